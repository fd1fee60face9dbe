import Foundation
import Testing
import TrellisAnalysis
import TrellisAudioFile
import TrellisCore

/// A 1 kHz sine at `decibels` dBFS (peak), `seconds` long, at 48 kHz.
func sine(_ decibels: Double, seconds: Double, frequency: Double = 1000, phase: Double = 0, rate: Double = 48_000) -> [Float] {
    let amplitude = pow(10, decibels / 20)
    return (0..<Int(seconds * rate)).map { Float(amplitude * sin(2 * .pi * frequency * Double($0) / rate + phase)) }
}

/// Writes `channels` as a float32 WAV in a fresh temporary folder and returns its path.
func writeFile(_ channels: [[Float]], rate: Double = 48_000, name: String = "signal.wav") throws -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-analysis-\(UUID().uuidString.prefix(8))").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let path = folder + "/" + name
    let writer = try AudioFileWriter(path: path, sampleType: .float32, sampleRate: rate, channelCount: channels.count)
    try writer.write(channels: channels)
    try writer.close()
    return path
}

/// The loudness of `signal` on every channel of a `channelCount`-channel file.
func measure(_ signal: [Float], channelCount: Int = 2) throws -> FileAnalysis {
    try FileAnalysis.analyze(path: try writeFile(Array(repeating: signal, count: channelCount)))
}

/// EBU Tech 3341 (2016), table 1, and BS.1770's weighting of one channel, built here from
/// their definitions: the meter must read each within 0.1 LU.
@Suite("Loudness by EBU R128 against Tech 3341's test signals")
struct LoudnessTests {
    @Test("cases 1 and 2: a stereo 1 kHz sine at -23 and -33 dBFS reads -23 and -33 LUFS, momentary, short-term and integrated",
          arguments: [-23.0, -33.0])
    func steadySine(_ level: Double) throws {
        let analysis = try measure(sine(level, seconds: 20))
        #expect(abs(analysis.loudness.integrated - level) <= 0.1)
        #expect(abs(analysis.loudness.maximumMomentary - level) <= 0.1)
        #expect(abs(analysis.loudness.maximumShortTerm - level) <= 0.1)
        #expect(analysis.loudness.range <= 0.1)
    }

    @Test("a mono 1 kHz sine at -23 dBFS is one channel of weight 1: 3.01 LU below the stereo pair")
    func monoSine() throws {
        let analysis = try measure(sine(-23, seconds: 20), channelCount: 1)
        #expect(abs(analysis.loudness.integrated - (-23 + 10 * log10(0.5))) <= 0.1)
    }

    @Test("cases 3 to 5: the relative gate leaves out the quiet parts, and the integrated loudness is -23 LUFS",
          arguments: [
            [(-36.0, 10.0), (-23, 60), (-36, 10)],
            [(-72.0, 10.0), (-36, 10), (-23, 60), (-36, 10), (-72, 10)],
            [(-26.0, 20.0), (-20, 20.1), (-26, 20)],
          ])
    func gating(_ parts: [(Double, Double)]) throws {
        let signal = parts.flatMap { sine($0.0, seconds: $0.1) }
        let analysis = try measure(signal)
        #expect(abs(analysis.loudness.integrated - (-23)) <= 0.1, "\(analysis.loudness.integrated)")
    }

    @Test("cases 15 to 19: a sine at a quarter of the rate, 0.5 full scale, at any phase has a true peak of -6.02 dBTP",
          arguments: [0.0, 45.0, 60.0, 67.5, 88.2])
    func truePeak(_ degrees: Double) throws {
        let signal = sine(20 * log10(0.5), seconds: 1, frequency: 12_000, phase: degrees * .pi / 180)
        let analysis = try measure(signal, channelCount: 1)
        #expect(abs(analysis.loudness.truePeak - 20 * log10(0.5)) <= 0.2, "\(analysis.loudness.truePeak) dBTP")
    }
}
