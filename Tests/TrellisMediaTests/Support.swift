import Foundation
import TrellisTestSupport
import TrellisAudioFile
import TrellisCore
import TrellisEngine
import TrellisGraph
import TrellisMedia
import TrellisUnits

/// A fresh directory for one test's files, removed when the value goes away.
final class TemporaryDirectory {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "trellis-media-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }
}

/// A deterministic, non-repeating test signal in [-1, 1): every frame differs, so any
/// frame out of place shows.
func signal(_ frame: Int, channel: Int = 0) -> Float {
    var x = UInt64(frame &* 2 + channel) &+ 0x9E37_79B9_7F4A_7C15
    x = (x ^ (x >> 30)) &* 0xBF58_476D_1CE4_E5B9
    x = (x ^ (x >> 27)) &* 0x94D0_49BB_1331_11EB
    x ^= x >> 31
    return Float(Int32(truncatingIfNeeded: x >> 32)) / 2_147_483_648
}

/// Writes `frames` frames of `signal` (or `samples`) to a new file, in chunks.
func writeSignalFile(
    _ path: String, frames: Int, channels: Int = 1, sampleRate: Double = 48_000,
    sampleType: SampleType = .float32, container: AudioFileContainer? = nil,
    samples: ((Int, Int) -> Float) = { signal($0, channel: $1) }
) throws {
    let writer = try AudioFileWriter(path: path, container: container, sampleType: sampleType, sampleRate: sampleRate, channelCount: channels)
    let chunk = 65_536
    let list = AudioBufferList(channelCount: channels, frameCapacity: chunk)
    var done = 0
    while done < frames {
        let count = min(chunk, frames - done)
        for channel in 0..<channels {
            let out = list[0][channel]
            for frame in 0..<count { out[frame] = samples(done + frame, channel) }
        }
        try writer.write(from: list[0], frameCount: count)
        done += count
    }
    try writer.close()
}

/// Renders a graph's engine slice by slice the way the offline renderer does: every
/// streaming participant is waited on before each cycle. `input` fills the graph's
/// input; `body` sees each slice's output (valid during the call), its length and its
/// start frame. (`body` has no default, so a trailing closure always means it.)
func renderOffline(
    _ graph: Graph, frames: Int, slice: Int = 512, start: Int64 = 0,
    input: ((AudioBuffers, Int, Int64) -> Void)? = nil,
    _ body: (AudioBuffers, Int, Int64) -> Void
) {
    let plan = graph.plan!
    let output = AudioBufferList(channelCount: plan.outputChannelCount, frameCapacity: slice)
    let inputBuffers = AudioBufferList(channelCount: max(1, plan.inputChannelCount), frameCapacity: slice)
    let participants = plan.streamingParticipants
    var done = 0
    graph.engine.startRendering()
    defer { graph.engine.stopRendering() }
    while done < frames {
        let count = min(slice, frames - done)
        for participant in participants { participant.waitForStreaming(frameCount: count) }
        let time = start + Int64(done)
        input?(inputBuffers[0], count, time)
        let status = graph.engine.render(
            frameCount: count, timeStamp: AudioTimeStamp(sampleTime: time),
            input: plan.inputChannelCount > 0 ? inputBuffers[0] : .empty, output: output[0])
        precondition(status == .ok, "render failed: \(status)")
        body(output[0], count, time)
        done += count
        graph.engine.collectRetired()
    }
}

/// Collects each output channel of an offline render.
func collect(_ graph: Graph, frames: Int, slice: Int = 512, start: Int64 = 0) -> [[Float]] {
    var result = Array(repeating: [Float](), count: graph.plan!.outputChannelCount)
    for channel in result.indices { result[channel].reserveCapacity(frames) }
    renderOffline(graph, frames: frames, slice: slice, start: start) { buffers, count, _ in
        for channel in result.indices { result[channel] += UnsafeBufferPointer(start: buffers[channel], count: count) }
    }
    return result
}

/// player -> output, initialized, with the file loaded.
func playerGraph(file: String, channels: Int = 1, sampleRate: Double = 48_000, maximumFrames: Int = 1024) throws -> (Graph, FilePlayer) {
    let graph = Graph(registry: BuiltInUnits.registry(), sampleRate: sampleRate, maximumFrames: maximumFrames)
    let player = FilePlayer()
    try player.load(path: file)
    let node = try graph.addNode(player, name: "player")
    let output = try graph.addNode(GenericOutput(channelCount: channels), name: "out")
    try graph.connect(node, to: output)
    try graph.initialize()
    return (graph, player)
}

/// Waits up to `seconds` for `condition`, polling.
func eventually(_ seconds: Double = 5, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(1_000)
    }
    return condition()
}


/// Fills a graph input with `signal`, frame for frame on the render clock.
func signalInput(_ buffers: AudioBuffers, _ count: Int, _ start: Int64) {
    for channel in 0..<buffers.channelCount {
        for index in 0..<count { buffers[channel][index] = signal(Int(start) + index, channel: channel) }
    }
}

/// `signal` rounded to what `sampleType` stores exactly (`v / 2^(bits-1)`), so a round
/// trip through a file of that type must give it back unchanged.
func quantized(_ value: Float, to sampleType: SampleType) -> Float {
    switch sampleType {
    case .float32: return value
    case .int32: return min(value, Float(1).nextDown)
    case .int16, .int24:
        let scale = Float(1 << (sampleType.bitsPerSample - 1))
        return min((value * scale).rounded(), scale - 1) / scale
    }
}

/// An offline render whose output is not needed.
func drive(_ graph: Graph, frames: Int, slice: Int = 512, start: Int64 = 0, input: ((AudioBuffers, Int, Int64) -> Void)? = nil) {
    renderOffline(graph, frames: frames, slice: slice, start: start, input: input) { _, _, _ in }
}

/// Points the one open descriptor of `path` at `device` opened write-only, so later
/// writes fail as `device` makes them (/dev/full: ENOSPC, a full disk) and later reads
/// fail with EBADF (a failing disk).
func redirectDescriptor(of path: String, to device: String) throws {
    let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
    let replacement = open(device, O_WRONLY)
    defer { close(replacement) }
    var redirected = 0
    for name in descriptors {
        guard let fd = Int32(name), let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name),
              target == path else { continue }
        if dup2(replacement, fd) == fd { redirected += 1 }
    }
    precondition(redirected == 1, "expected one open descriptor for \(path), found \(redirected)")
}

/// How many of this process's descriptors are open on `path`.
func openDescriptorCount(of path: String) -> Int {
    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return descriptors.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) == path }.count
}
