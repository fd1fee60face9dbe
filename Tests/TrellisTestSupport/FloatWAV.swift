import Foundation

/// Writes mono 32-bit float WAV files byte by byte, for fixtures that no tool makes:
/// samples that are NaN, which sox refuses to produce.
public enum FloatWAV {
    /// Writes `samples` as a mono IEEE-float WAV file at `sampleRate`.
    public static func write(_ samples: [Float], sampleRate: Int, to path: String) throws {
        var data = Data()
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        let payload = samples.count * 4
        data.append(contentsOf: Array("RIFF".utf8))
        append(UInt32(36 + payload))
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        append(UInt32(16))
        append(UInt16(3))  // IEEE float
        append(UInt16(1))
        append(UInt32(sampleRate))
        append(UInt32(sampleRate * 4))
        append(UInt16(4))
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
