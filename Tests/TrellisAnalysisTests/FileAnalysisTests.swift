import Foundation
import Testing
import TrellisAnalysis
import TrellisAudioFile

/// What numpy computes of the same samples, by the definitions `trellis analyze` states.
func numpyFigures(_ channels: [[Float]]) throws -> [[String: Double]] {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-numpy-\(UUID().uuidString.prefix(8))").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    for (index, channel) in channels.enumerated() {
        try channel.withUnsafeBytes { Data($0) }.write(to: URL(fileURLWithPath: "\(folder)/\(index).f32"))
    }
    let script = """
        import json, sys, numpy as np
        full = np.float32(1) - np.float32(1) / np.float32(32768)
        out = []
        for index in range(\(channels.count)):
            x = np.fromfile(f"\(folder)/{index}.f32", dtype="<f4").astype(np.float64)
            at = np.abs(x) >= full
            edges = np.diff(np.concatenate(([0], at.astype(np.int8), [0])))
            starts, ends = np.where(edges == 1)[0], np.where(edges == -1)[0]
            lengths = ends - starts
            runs = lengths[lengths >= 2]
            out.append({"peak": 20 * np.log10(np.max(np.abs(x))), "rms": 20 * np.log10(np.sqrt(np.mean(x * x))),
                        "dc": float(np.mean(x)), "clipped": int(runs.sum()), "runs": int(len(runs))})
        print(json.dumps(out))
        """
    let process = Process()
    // A deadline that ends in SIGKILL: numpy cannot hold the suite.
    process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
    process.arguments = ["-k", "5", "60", "python3", "-c", script]
    let out = Pipe()
    process.standardOutput = out
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0, let figures = try JSONSerialization.jsonObject(with: data) as? [[String: Double]] else {
        throw AnalysisTestFailure("numpy did not answer: \(String(decoding: data, as: UTF8.self))")
    }
    return figures
}

struct AnalysisTestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

@Suite("trellis analyze's figures")
struct FileAnalysisTests {
    /// Two channels of noise with a DC offset, one with clipped runs of 1, 2 and 5
    /// full-scale samples (the first is a peak, not clipping) and a negative run of 3.
    static func fixture() -> [[Float]] {
        var generator = SystemRandomNumberGenerator()
        var left = (0..<96_000).map { _ in Float.random(in: -0.4...0.4, using: &generator) + 0.05 }
        let right = (0..<96_000).map { index in Float(0.3 * sin(Double(index) * 0.05)) - 0.02 }
        left[1000] = 1
        for index in 2000..<2002 { left[index] = 1 }
        for index in 3000..<3005 { left[index] = 1 }
        for index in 4000..<4003 { left[index] = -1 }
        return [left, right]
    }

    @Test("peak, RMS, DC offset and clipping equal numpy's computation of the same samples")
    func levelsMatchNumpy() throws {
        let channels = Self.fixture()
        let analysis = try FileAnalysis.analyze(path: try writeFile(channels))
        let expected = try numpyFigures(channels)
        #expect(analysis.channels.count == 2)
        for (channel, figures) in zip(analysis.channels.map(\.statistics), expected) {
            #expect(abs(channel.peakDecibels - figures["peak"]!) < 1e-9)
            #expect(abs(channel.rmsDecibels - figures["rms"]!) < 1e-9)
            #expect(abs(channel.dcOffset - figures["dc"]!) < 1e-12)
            #expect(Double(channel.clippedSamples) == figures["clipped"]!)
            #expect(Double(channel.clippedRuns) == figures["runs"]!)
        }
        #expect(analysis.channels[0].statistics.clippedRuns == 3)
        #expect(analysis.channels[0].statistics.clippedSamples == 10)
    }

    @Test("a pure tone's spectral centroid is its frequency, within one bin")
    func centroidOfATone() throws {
        let analysis = try FileAnalysis.analyze(path: try writeFile([sine(-6, seconds: 2, frequency: 3000)]))
        let bin = 48_000.0 / Double(SpectrumStatistics.blockSize)
        #expect(abs(try #require(analysis.spectralCentroid) - 3000) <= bin)
        #expect(abs(try #require(analysis.spectralRollOff) - 3000) <= bin)
    }

    @Test("an empty file is an error that names it; a file that is not audio is the reader's error")
    func badInput() throws {
        let empty = try writeFile([[]])
        #expect { try FileAnalysis.analyze(path: empty) } throws: { "\($0)".contains("\(empty): the file holds no audio frames") }
        let text = empty.replacingOccurrences(of: "signal.wav", with: "notes.wav")
        try "not audio".write(toFile: text, atomically: true, encoding: .utf8)
        #expect { try FileAnalysis.analyze(path: text) } throws: { "\($0)".contains(text) }
    }
}
