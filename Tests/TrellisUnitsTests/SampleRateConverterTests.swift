import Glibc
import Testing
import TrellisCore
@testable import TrellisUnits

@Suite("Sample-rate conversion")
struct SampleRateConverterTests {
    /// Frequency from the mean period between the first and last rising zero crossings.
    func measuredFrequency(_ samples: ArraySlice<Float>, sampleRate: Double) -> Double {
        var crossings: [Double] = []
        var previous = samples.startIndex
        for index in samples.indices.dropFirst() {
            let (x0, x1) = (Double(samples[previous]), Double(samples[index]))
            if x0 < 0 && x1 >= 0 { crossings.append(Double(previous) + x0 / (x0 - x1)) }
            previous = index
        }
        return Double(crossings.count - 1) * sampleRate / (crossings.last! - crossings.first!)
    }

    /// THD+N in dB: the residual after a least-squares fit of a sine at `frequency` plus DC.
    func thdPlusNoise(_ samples: ArraySlice<Float>, frequency: Double, sampleRate: Double) -> Double {
        var m = [[Double]](repeating: [0, 0, 0], count: 3), v = [0.0, 0.0, 0.0]
        for (offset, sample) in samples.enumerated() {
            let phase = 2 * Double.pi * frequency * Double(offset) / sampleRate
            let basis = [sin(phase), cos(phase), 1.0]
            for row in 0..<3 {
                v[row] += basis[row] * Double(sample)
                for column in 0..<3 { m[row][column] += basis[row] * basis[column] }
            }
        }
        // Gaussian elimination on the 3×3 normal equations.
        for pivot in 0..<3 {
            for row in (pivot + 1)..<3 {
                let factor = m[row][pivot] / m[pivot][pivot]
                for column in pivot..<3 { m[row][column] -= factor * m[pivot][column] }
                v[row] -= factor * v[pivot]
            }
        }
        var solution = [0.0, 0.0, 0.0]
        for row in (0..<3).reversed() {
            solution[row] = (v[row] - ((row + 1)..<3).reduce(0.0) { $0 + m[row][$1] * solution[$1] }) / m[row][row]
        }
        var residual = 0.0
        for (offset, sample) in samples.enumerated() {
            let phase = 2 * Double.pi * frequency * Double(offset) / sampleRate
            let fit = solution[0] * sin(phase) + solution[1] * cos(phase) + solution[2]
            residual += (Double(sample) - fit) * (Double(sample) - fit)
        }
        let signalPower = (solution[0] * solution[0] + solution[1] * solution[1]) / 2
        return 10 * log10(residual / Double(samples.count) / signalPower)
    }

    @Test("a 1 kHz sine keeps its frequency and stays clean through conversion",
          arguments: [(44_100.0, 48_000.0), (48_000, 96_000)])
    func sineThroughConversion(rates: (Double, Double)) throws {
        let (from, to) = rates
        let input = sine(frequency: 1000, sampleRate: from, count: Int(from * 1.5), amplitude: 0.5)
        let output = try SampleRateConverter.convert([input], from: from, to: to, quality: .veryHigh)[0]
        #expect(abs(Double(output.count) - 1.5 * to) <= 2)
        let middle = output[Int(0.2 * to)..<Int(1.3 * to)]
        let frequency = measuredFrequency(middle, sampleRate: to)
        #expect(abs(frequency - 1000) / 1000 < 1e-4, "measured \(frequency) Hz")
        let thdn = thdPlusNoise(middle, frequency: 1000, sampleRate: to)
        #expect(thdn < -100, "THD+N \(thdn) dB")
    }

    @Test("streaming in slices gives the same samples as converting at once")
    func streaming() throws {
        let input = sine(frequency: 440, sampleRate: 44_100, count: 20_000, amplitude: 0.5)
        let whole = try SampleRateConverter.convert([input], from: 44_100, to: 48_000)[0]
        let converter = try SampleRateConverter(inputRate: 44_100, outputRate: 48_000, channelCount: 1)
        let inputBuffer = AudioBufferList(channelCount: 1, frameCapacity: 300)
        let outputBuffer = AudioBufferList(channelCount: 1, frameCapacity: 400)
        var streamed: [Float] = []
        var position = 0
        while position < input.count {
            let count = min(300, input.count - position)
            inputBuffer[0][0].update(from: Array(input[position..<position + count]), count: count)
            let (consumed, produced) = converter.process(input: inputBuffer[0], inputFrames: count, output: outputBuffer[0], outputCapacity: 400)
            #expect(consumed == count)
            streamed += outputBuffer.samples(channel: 0, frameCount: produced)
            position += consumed
        }
        while true {
            let produced = converter.flush(output: outputBuffer[0], outputCapacity: 400)
            if produced == 0 { break }
            streamed += outputBuffer.samples(channel: 0, frameCount: produced)
        }
        #expect(streamed.count == whole.count)
        #expect(zip(streamed, whole).allSatisfy { abs($0 - $1) < 1e-6 })
    }

    @Test("bad rates are refused with a message naming them")
    func badRates() {
        #expect(throws: ConversionError.invalidRates(input: 0, output: 48_000)) {
            try SampleRateConverter(inputRate: 0, outputRate: 48_000, channelCount: 1)
        }
    }
}
