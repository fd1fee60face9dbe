import Foundation
import TrellisAV
import TrellisJACK
import TrellisJACK

/// A program run to its end or killed (SIGKILL) at its deadline.
struct Run {
    let status: Int32
    let output: String
    let killed: Bool
    var succeeded: Bool { !killed && status == 0 }
}

/// A started process that is killed with SIGKILL at its deadline, whatever happens.
final class Started: @unchecked Sendable {
    let process = Process()
    private let output = Pipe()
    private let lock = NSLock()
    private var bytes = Data()
    private var killedAtDeadline = false

    init(_ executable: String, _ arguments: [String], environment: [String: String] = [:], deadline: Double) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = output
        process.standardError = output
        output.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            self?.lock.withLock { self?.bytes.append(data) }
        }
        try process.run()
        let pid = process.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + deadline) { [weak self] in
            guard let self, self.process.isRunning else { return }
            self.lock.withLock { self.killedAtDeadline = true }
            Glibc.kill(pid, SIGKILL)
        }
    }

    var text: String { lock.withLock { String(decoding: bytes, as: UTF8.self) } }

    func wait() -> Run {
        process.waitUntilExit()
        output.fileHandleForReading.readabilityHandler = nil
        let rest = output.fileHandleForReading.readDataToEndOfFile()
        lock.withLock { bytes.append(rest) }
        return Run(status: process.terminationStatus, output: text, killed: lock.withLock { killedAtDeadline })
    }

    func kill() {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}

func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:], deadline: Double = 120) throws -> Run {
    try Started(executable, arguments, environment: environment, deadline: deadline).wait()
}

/// An example program, built beside this test bundle.
func example(_ name: String) -> String {
    URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name).path
}

func temporaryFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-examples-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}

/// A private JACK server on the dummy backend (TrellisJACK's `JACKServer`), stopped with
/// SIGTERM and then SIGKILL. It runs synchronous (-S): a cycle waits for every client, so
/// a client late on a busy machine delays the cycle instead of handing the next client a
/// stale buffer.
final class PrivateJACK {
    let name = "trellis-examples-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    private let server: JACKServer

    init() throws {
        server = try JACKServer.start(name: name, arguments: ["--no-realtime", "-S", "-n", name, "-d", "dummy", "-r", "48000", "-p", "256"])
    }

    var environment: [String: String] { ["JACK_DEFAULT_SERVER": name] }

    func ports() throws -> [String] {
        try run("/usr/bin/jack_lsp", [], environment: environment, deadline: 20).output.split(separator: "\n").map(String.init)
    }

    /// Waits until a port ending in `suffix` that is not the feeder's exists, and returns its client.
    func client(withPort suffix: String, except excluded: Set<String> = [], seconds: Double = 20) throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let clients = try ports().filter { $0.hasSuffix(suffix) }.map { String($0.dropLast(suffix.count)) }.filter { !excluded.contains($0) && $0 != "system" }
            if let client = clients.first { return client }
            Thread.sleep(forTimeInterval: 0.02)
        }
        throw ExampleError("no client with a port \(suffix) appeared on \(name)")
    }

    /// Waits until `client`'s ports are gone (a program that ended has left the server).
    func waitUntilGone(_ client: String, seconds: Double = 20) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while try ports().contains(where: { $0.hasPrefix(client + ":") }) {
            guard Date() < deadline else { throw ExampleError("\(client) is still on \(name)") }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// Connects two ports, trying again for a few seconds: a client's ports exist a moment
    /// before the client is active and can be connected.
    func connect(_ source: String, _ destination: String) throws {
        let deadline = Date().addingTimeInterval(5)
        while true {
            let linked = try run("/usr/bin/jack_connect", [source, destination], environment: environment, deadline: 20)
            if linked.succeeded { return }
            guard Date() < deadline else { throw ExampleError("jack_connect \(source) \(destination): \(linked.output)") }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    func stop() { server.stop() }
}

struct ExampleError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Every channel of an audio file, as floats.
func samples(of url: URL) throws -> [[Float]] {
    let file = try AVAudioFile(forReading: url)
    let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(max(1, file.length)))!
    try file.read(into: buffer)
    return (0..<Int(buffer.format.channelCount)).map { Array(UnsafeBufferPointer(start: buffer.floatChannelData![$0], count: Int(buffer.frameLength))) }
}

/// Writes `channels` as a 32-bit float WAV file at 48 kHz.
func write(_ channels: [[Float]], to url: URL) throws {
    let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: AVAudioChannelCount(channels.count))!
    let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(channels[0].count))!
    buffer.frameLength = AVAudioFrameCount(channels[0].count)
    for (index, channel) in channels.enumerated() {
        channel.withUnsafeBufferPointer { buffer.floatChannelData![index].update(from: $0.baseAddress!, count: $0.count) }
    }
    let file = try AVAudioFile(forWriting: url, settings: [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 48_000.0,
                                                           AVNumberOfChannelsKey: channels.count, AVLinearPCMBitDepthKey: 32, AVLinearPCMIsFloatKey: true])
    try file.write(from: buffer)
    file.close()
}

/// The frequency (Hz) in `low...high` with the most energy, to 0.01 Hz, by a DFT at
/// each candidate (coarse, then fine around the best).
func peakHertz(_ signal: ArraySlice<Float>, low: Double, high: Double, rate: Double = 48_000) -> Double {
    func power(_ hertz: Double) -> Double {
        let step = 2 * Double.pi * hertz / rate
        var re = 0.0, im = 0.0
        for (index, sample) in signal.enumerated() {
            re += Double(sample) * cos(step * Double(index))
            im -= Double(sample) * sin(step * Double(index))
        }
        return re * re + im * im
    }
    var best = low
    for hertz in stride(from: low, through: high, by: 1) where power(hertz) > power(best) { best = hertz }
    var fine = best
    for hertz in stride(from: best - 1, through: best + 1, by: 0.01) where power(hertz) > power(fine) { fine = hertz }
    return fine
}

/// A player engine on the server: plays `channels` from its out ports, for the programs to record.
func feeder(_ channels: [[Float]], on jack: PrivateJACK) throws -> AVAudioEngine {
    let engine = AVAudioEngine()
    engine.jackServerName = jack.name
    let player = AVAudioPlayerNode()
    engine.attach(player)
    engine.connect(player, to: engine.mainMixerNode, format: nil)
    let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
    let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(channels[0].count))!
    buffer.frameLength = buffer.frameCapacity
    for channel in 0..<2 {
        channels[channel].withUnsafeBufferPointer { buffer.floatChannelData![channel].update(from: $0.baseAddress!, count: $0.count) }
    }
    player.scheduleBuffer(buffer)
    try engine.start()
    player.play()
    return engine
}

/// Where `part` starts inside `whole`, matching its first 256 samples exactly.
func offset(of part: [Float], in whole: [Float]) -> Int? {
    let probe = Array(part.prefix(256))
    guard probe.count == 256, probe.contains(where: { $0 != 0 }) else { return nil }
    return (0...(whole.count - probe.count)).first { start in
        whole[start] == probe[0] && Array(whole[start..<start + 256]) == probe
    }
}

/// A stereo feed: a 660 Hz sine at half scale on the left, the same a fifth up on the
/// right, and a little noise, so every stretch of it is unique.
func feedSignal(seconds: Int) -> [[Float]] {
    var generator = SystemRandomNumberGenerator()
    return [660.0, 990.0].map { hertz in
        (0..<(48_000 * seconds)).map { frame in
            Float(0.5 * sin(2 * Double.pi * hertz * Double(frame) / 48_000)) + Float.random(in: -0.01...0.01, using: &generator)
        }
    }
}

/// How `heard` differs from the stretch of `fed` it starts like: nil when it is that
/// stretch exactly, else where it first differs and how many samples differ.
func difference(_ heard: ArraySlice<Float>, from fed: [Float], at start: Int) -> String? {
    let heard = Array(heard)
    guard start + heard.count <= fed.count else { return "the take (\(heard.count) frames from \(start)) runs past the feed's \(fed.count)" }
    var first: Int?, count = 0
    for index in heard.indices where heard[index] != fed[start + index] {
        first = first ?? index
        count += 1
    }
    guard let first else { return nil }
    return "\(count) of \(heard.count) samples differ, the first at \(first): \(heard[first]) where the feed has \(fed[start + first])"
}

/// Records what `client`'s output ports play, through a JACK client of its own whose
/// input a tap reads (every frame, none lost), until `frames` frames are in.
final class Capture: @unchecked Sendable {
    let engine = AVAudioEngine()
    private let lock = NSLock()
    private var channels: [[Float]] = [[], []]

    init(on jack: PrivateJACK) throws {
        engine.jackServerName = jack.name
        let input = engine.inputNode
        engine.connect(input, to: engine.mainMixerNode, format: nil)
        engine.mainMixerNode.outputVolume = 0
        input.installTap(onBus: 0, bufferSize: 4_800, format: nil) { [self] buffer, _ in
            lock.withLock {
                for channel in 0..<2 {
                    channels[channel] += UnsafeBufferPointer(start: buffer.floatChannelData![channel], count: Int(buffer.frameLength))
                }
            }
        }
        try engine.start()
    }

    var heard: [[Float]] { lock.withLock { channels } }

    func wait(for frames: Int, seconds: Double = 30) -> [[Float]] {
        let deadline = Date().addingTimeInterval(seconds)
        while heard[0].count < frames, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        return heard
    }

    func stop() {
        engine.inputNode.removeTap(onBus: 0)
        engine.stop()
    }
}
