import Foundation
import Testing
import TrellisAudioFile
import TrellisCore

/// Vorbis is lossy, so its files are judged against the signal's math, not bit for bit.
@Suite("Ogg Vorbis")
struct OggTests {
    static let sampleRate = 48_000.0
    static let frequency = 440.0
    static let amplitude = 0.5

    static func writeSine(_ path: String, seconds: Double = 1) throws -> [Float] {
        let original = sine(frequency: frequency, amplitude: amplitude, sampleRate: sampleRate, frameCount: Int(seconds * sampleRate))
        try writeFile(path, sampleType: .float32, sampleRate: sampleRate, channels: [original])
        return original
    }

    /// Frequency from the zero crossings between the first and last upward crossing,
    /// each placed between samples by linear interpolation.
    static func measuredFrequency(_ samples: ArraySlice<Float>) -> Double {
        var crossings: [Double] = []
        var index = samples.startIndex
        while index + 1 < samples.endIndex {
            let a = Double(samples[index]), b = Double(samples[index + 1])
            if a < 0 && b >= 0 { crossings.append(Double(index) + a / (a - b)) }
            index += 1
        }
        guard let first = crossings.first, let last = crossings.last, crossings.count > 1 else { return 0 }
        return Double(crossings.count - 1) * sampleRate / (last - first)
    }

    @Test("a sine comes back with its length, within 20 dB SNR of the original")
    func sineSignalToNoise() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("sine.ogg")
        let original = try Self.writeSine(path)
        let decoded = try AudioFileReader(path: path).readAll()
        #expect(decoded.count == 1)
        let channel = decoded.first ?? []
        #expect(channel.count == original.count)
        let count = min(channel.count, original.count)
        var signal = 0.0, noise = 0.0
        for n in 0..<count {
            signal += Double(original[n]) * Double(original[n])
            noise += (Double(channel[n]) - Double(original[n])) * (Double(channel[n]) - Double(original[n]))
        }
        let snr = 10 * log10(signal / max(noise, .leastNormalMagnitude))
        #expect(snr > 20, "SNR \(snr) dB")
    }

    @Test("a sine keeps its frequency and its energy")
    func sineFrequencyAndEnergy() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("sine.ogg")
        _ = try Self.writeSine(path)
        let decoded = try AudioFileReader(path: path).readAll().first ?? []
        // Leave out the edges, where the codec's windows start and stop.
        let middle = decoded.dropFirst(4800).dropLast(4800)
        #expect(abs(Self.measuredFrequency(middle) - Self.frequency) < 0.5)
        let meanSquare = middle.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(middle.count)
        let expectedMeanSquare = Self.amplitude * Self.amplitude / 2
        #expect(abs(10 * log10(meanSquare / expectedMeanSquare)) < 0.2, "energy off by \(10 * log10(meanSquare / expectedMeanSquare)) dB")
    }

    @Test("seeking lands where reading straight through has the same samples")
    func seekMatchesLinearRead() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("sine.ogg")
        _ = try Self.writeSine(path)
        let reader = try AudioFileReader(path: path)
        let whole = try reader.readAll().first ?? []
        let buffer = AudioBufferList(channelCount: 1, frameCapacity: 64)
        for frame in [12_345, 100, 30_000, 40_000, 47_000, 30_001, 0, 23_456] {
            try reader.seek(toFrame: frame)
            #expect(try reader.read(into: buffer[0], frameCount: 64) == 64)
            let piece = buffer.samples(channel: 0)
            let worst = zip(piece, whole[frame..<frame + 64]).map { abs($0 - $1) }.max() ?? 1
            #expect(worst <= 1e-6, "frame \(frame): differs by \(worst)")
        }
    }
}
