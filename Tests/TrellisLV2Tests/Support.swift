import Foundation
import TrellisCore
@testable import TrellisLV2

enum Fixture {
    /// Plugins/fixtures in the repository.
    static let directory: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("Plugins/fixtures").path
    }()

    static let amp = "http://lv2plug.in/plugins/eg-amp"
    static let fifths = "http://lv2plug.in/plugins/eg-fifths"
    static let sampler = "http://lv2plug.in/plugins/eg-sampler"
    static let epiano = "http://drobilla.net/plugins/mda/EPiano"
}

/// Deterministic white noise in -0.5...0.5.
struct Noise {
    var state: UInt32 = 0x1234_5678
    mutating func next() -> Float {
        state = state &* 1_664_525 &+ 1_013_904_223
        return Float(state >> 8) / Float(1 << 24) - 0.5
    }
    mutating func samples(_ count: Int) -> [Float] { (0..<count).map { _ in next() } }
}

/// Renders a unit offline in blocks, feeding every input channel `input(channel, frame)`.
final class OfflineRender {
    let unit: any AudioUnit
    let blockSize: Int
    let inputs: AudioBufferList
    let outputs: AudioBufferList
    private var inputTable: UnsafeMutablePointer<AudioBuffers>
    private var outputTable: UnsafeMutablePointer<AudioBuffers>
    var sampleTime: Int64 = 0

    init(_ unit: any AudioUnit, blockSize: Int = 256) {
        self.unit = unit
        self.blockSize = blockSize
        let inCounts = (0..<unit.elementCount(.input)).map { (try? unit.format(scope: .input, element: $0).channelCount) ?? 1 }
        let outCounts = (0..<unit.elementCount(.output)).map { (try? unit.format(scope: .output, element: $0).channelCount) ?? 1 }
        inputs = AudioBufferList(channelCounts: inCounts.isEmpty ? [1] : inCounts, frameCapacity: blockSize)
        outputs = AudioBufferList(channelCounts: outCounts.isEmpty ? [1] : outCounts, frameCapacity: blockSize)
        inputTable = .allocate(capacity: max(1, inCounts.count))
        outputTable = .allocate(capacity: max(1, outCounts.count))
        for bus in 0..<inCounts.count { inputTable[bus] = inputs[bus] }
        for bus in 0..<outCounts.count { outputTable[bus] = outputs[bus] }
    }

    deinit {
        inputTable.deallocate()
        outputTable.deallocate()
    }

    /// Renders one block of `frames` with `events`, its cycle started at `hostTime` (0:
    /// unknown); the caller fills `inputs` first. Allocation-free.
    func renderBlock(frames: Int, events: RenderEventList = .empty, hostTime: UInt64 = 0) -> RenderStatus {
        let context = RenderContext(
            frameCount: frames, timeStamp: AudioTimeStamp(sampleTime: sampleTime, hostTime: hostTime),
            inputs: BusBuffers(buses: UnsafePointer(inputTable), count: unit.elementCount(.input)),
            outputs: BusBuffers(buses: UnsafePointer(outputTable), count: unit.elementCount(.output)), events: events)
        sampleTime += Int64(frames)
        return unit.render(context)
    }

    /// Runs `signal` (per input channel) through the unit; returns each output channel.
    func process(_ signal: [[Float]], frames total: Int) -> [[Float]] {
        let outChannels = (0..<unit.elementCount(.output)).flatMap { bus in (0..<outputs[bus].channelCount).map { (bus, $0) } }
        let inChannels = (0..<unit.elementCount(.input)).flatMap { bus in (0..<inputs[bus].channelCount).map { (bus, $0) } }
        var result = [[Float]](repeating: [], count: outChannels.count)
        var position = 0
        while position < total {
            let frames = min(blockSize, total - position)
            for (index, (bus, channel)) in inChannels.enumerated() {
                let source = signal.isEmpty ? [] : signal[min(index, signal.count - 1)]
                for frame in 0..<frames {
                    inputs[bus][channel][frame] = position + frame < source.count ? source[position + frame] : 0
                }
            }
            _ = renderBlock(frames: frames)
            for (index, (bus, channel)) in outChannels.enumerated() {
                result[index] += UnsafeBufferPointer(start: outputs[bus][channel], count: frames)
            }
            position += frames
        }
        return result
    }
}

func rms(_ samples: ArraySlice<Float>) -> Float {
    guard !samples.isEmpty else { return 0 }
    return (samples.reduce(0) { $0 + $1 * $1 } / Float(samples.count)).squareRoot()
}

/// Runs an outside program and returns its standard output.
@discardableResult
func run(_ program: String, _ arguments: [String], environment: [String: String] = [:]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [program] + arguments
    var env = ProcessInfo.processInfo.environment
    for (key, value) in environment { env[key] = value }
    process.environment = env
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}

func makeUnit(_ uri: String, world: LV2World = LV2World(), sampleRate: Double = 48_000, maxFrames: Int = 4096) throws -> LV2PluginUnit {
    let unit = try LV2PluginUnit(world: world, uri: uri)
    try unit.setSampleRate(sampleRate)
    try unit.setMaximumFramesPerSlice(maxFrames)
    return unit
}
