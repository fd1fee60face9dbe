import Foundation

/// Writes 32-bit float WAV files byte by byte, for fixtures that no tool makes:
/// samples that are NaN, which sox refuses to produce, or exact impulses.
public enum FloatWAV {
    /// Writes `samples` (interleaved when `channels` > 1) as an IEEE-float WAV file at `sampleRate`.
    public static func write(_ samples: [Float], channels: Int = 1, sampleRate: Int, to path: String) throws {
        var data = Data()
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        let payload = samples.count * 4
        data.append(contentsOf: Array("RIFF".utf8))
        append(UInt32(36 + payload))
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        append(UInt32(16))
        append(UInt16(3))  // IEEE float
        append(UInt16(channels))
        append(UInt32(sampleRate))
        append(UInt32(sampleRate * 4 * channels))
        append(UInt16(4 * channels))
        append(UInt16(32))
        data.append(contentsOf: Array("data".utf8))
        append(UInt32(payload))
        for sample in samples { append(sample.bitPattern) }
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// A file of `frames` frames that are silent before frame `nanFrom` and NaN from there on.
    public static func writeNaN(from nanFrom: Int, frames: Int, sampleRate: Int = 48_000, to path: String) throws {
        try write((0..<frames).map { $0 < nanFrom ? 0 : .nan }, sampleRate: sampleRate, to: path)
    }
}
