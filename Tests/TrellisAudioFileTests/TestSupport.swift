import Foundation
import Testing
import TrellisAudioFile
import TrellisCore

/// A fresh directory under the system temp directory, removed when released.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-audiofile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: path(name)) }
}

/// Runs an outside program and returns its standard output; fails the test if it exits non-zero.
@discardableResult
func run(_ program: String, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [program] + arguments
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "\(program) \(arguments.joined(separator: " ")) failed: \(errorText)", sourceLocation: sourceLocation)
    return data
}

/// `soxi -<flag> path`, trimmed.
func soxi(_ flag: String, _ path: String) throws -> String {
    String(decoding: try run("soxi", ["-\(flag)", path]), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}

/// Little-endian signed 32-bit integers from raw bytes.
func int32s(_ data: Data) -> [Int32] {
    data.withUnsafeBytes { raw in
        stride(from: 0, to: raw.count - 3, by: 4).map { Int32(littleEndian: raw.loadUnaligned(fromByteOffset: $0, as: Int32.self)) }
    }
}

/// Raw little-endian signed 32-bit integer bytes, as sox's `-t s32` reads them.
func rawBytes(_ values: [Int32]) -> Data {
    var data = Data(capacity: values.count * 4)
    for value in values { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
    return data
}

/// A small deterministic generator (SplitMix64), so failures reproduce.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Integers of `sampleType` that exercise every bit: both extremes, ±1, zero, and random
/// full-scale values. For int32, whose values travel through float, the values are those
/// a float can hold (24 significant bits), spread over every shift so every bit is used.
func testIntegers(_ sampleType: SampleType, count: Int, seed: UInt64 = 1) -> [Int32] {
    var generator = SplitMix64(seed: seed)
    let bits = sampleType.bitsPerSample
    switch sampleType {
    case .int32:
        let largestBelowOne = Int32(1 << 31 - 128)  // Float(1 - 2^-24) * 2^31
        var values: [Int32] = [Int32.min, largestBelowOne, 0, 1, -1, 0x00FF_FFFF, -0x0100_0000]
        while values.count < count {
            let significand = Int32.random(in: -(1 << 23)..<(1 << 23), using: &generator)
            values.append(significand << Int32.random(in: 0...8, using: &generator))
        }
        return values
    default:
        let full = Int32(1) << Int32(bits - 1)
        var values: [Int32] = [-full, full - 1, 0, 1, -1, full / 2, -full / 2]
        while values.count < count {
            values.append(Int32.random(in: -full..<full, using: &generator))
        }
        return values
    }
}

/// The float that stands for integer `value` of `bits` bits: value / 2^(bits-1).
func floatSample(_ value: Int32, bits: Int) -> Float {
    Float(value) / Float(sign: .plus, exponent: bits - 1, significand: 1)
}

/// Every container with every sample type it can hold, except lossy Ogg.
struct LosslessCase: CustomTestStringConvertible, Sendable {
    let container: AudioFileContainer
    let sampleType: SampleType
    var fileExtension: String { container == .aiff ? "aiff" : container.rawValue }
    var testDescription: String { "\(container) \(sampleType)" }

    static let all: [LosslessCase] = AudioFileContainer.allCases.filter { $0 != .ogg }.flatMap { container in
        container.supportedSampleTypes.map { LosslessCase(container: container, sampleType: $0) }
    }
    static let integers = all.filter { $0.sampleType.isInteger }
}

/// Every pair a container cannot hold.
struct ImpossibleCase: CustomTestStringConvertible, Sendable {
    let container: AudioFileContainer
    let sampleType: SampleType
    var testDescription: String { "\(container) \(sampleType)" }

    static let all: [ImpossibleCase] = AudioFileContainer.allCases.flatMap { container in
        SampleType.allCases.filter { !container.canHold($0) }.map { ImpossibleCase(container: container, sampleType: $0) }
    }
}

/// Writes `channels` to a new file and closes it.
func writeFile(_ path: String, container: AudioFileContainer? = nil, sampleType: SampleType, sampleRate: Double = 48_000, dither: Bool = true, channels: [[Float]]) throws {
    let writer = try AudioFileWriter(path: path, container: container, sampleType: sampleType, sampleRate: sampleRate, channelCount: channels.count, dither: dither)
    try writer.write(channels: channels)
    try writer.close()
}

/// A sine of `frequency` Hz and `amplitude`, computed in double.
func sine(frequency: Double, amplitude: Double, sampleRate: Double, frameCount: Int) -> [Float] {
    (0..<frameCount).map { Float(amplitude * sin(2 * Double.pi * frequency * Double($0) / sampleRate)) }
}
