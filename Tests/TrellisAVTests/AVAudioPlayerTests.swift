import Foundation
import Testing
@testable import TrellisAV
import TrellisJACK
import TrellisTestSupport

/// A stereo float WAV of `frames` frames: `left` and `right` give each frame's samples.
private func writeFile(_ name: String, frames: Int, _ sample: (Int, Int) -> Float) throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-av-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let url = folder.appendingPathComponent(name)
    let file = try AVAudioFile(forWriting: url, settings: [AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMIsFloatKey: true, AVLinearPCMBitDepthKey: 32, AVSampleRateKey: 48_000, AVNumberOfChannelsKey: 2])
    let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(frames))!
    buffer.frameLength = AVAudioFrameCount(frames)
    for frame in 0..<frames {
        buffer.floatChannelData![0][frame] = sample(0, frame)
        buffer.floatChannelData![1][frame] = sample(1, frame)
    }
    try file.write(from: buffer)
    return url
}

/// What the shared players' engine plays, left and right, from a tap on its main mixer.
private final class Heard: @unchecked Sendable {
    let channels = Locked<[[Float]]>([[], []])

    init(_ engine: AVAudioEngine) {
        engine.mainMixerNode.installTap(onBus: 0, bufferSize: 1_024, format: nil) { [channels] buffer, _ in
            channels.withLock { heard in
                for channel in 0..<2 { heard[channel].append(contentsOf: UnsafeBufferPointer(start: buffer.floatChannelData![channel], count: Int(buffer.frameLength))) }
            }
        }
    }

    func wait(until done: ([[Float]]) -> Bool, seconds: Double = 20) -> [[Float]] {
        let deadline = Date().addingTimeInterval(seconds)
        while !channels.withLock({ done($0) }), Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        return channels.withLock { $0 }
    }
}

@Suite("AVAudioPlayer, on a private jackd", .liveAudio, .serialized)
struct AVAudioPlayerTests {
    /// A private jackd for one test; the shared engine joins it at its first `play` and
    /// leaves it when `done` runs.
    private func privateServer() throws -> (JACKServer, done: () -> Void) {
        let server = try JACKServer.startPrivateServer(name: "trellis-av-players-\(getpid())-\(UInt16.random(in: 0...UInt16.max))")
        SharedPlayback.shared.engine.jackServerName = server.name
        return (server, { SharedPlayback.shared.engine.stop(); server.stop() })
    }

    @Test("players started with play(atTime:) at one deviceCurrentTime start on the same frame")
    func synchronizedStart() throws {
        let (_, done) = try privateServer()
        defer { done() }
        let left = try writeFile("left.wav", frames: 4_800) { channel, frame in channel == 0 && frame == 0 ? 1 : 0 }
        let right = try writeFile("right.wav", frames: 4_800) { channel, frame in channel == 1 && frame == 0 ? 1 : 0 }
        let a = try AVAudioPlayer(contentsOf: left), b = try AVAudioPlayer(contentsOf: right)
        #expect(a.prepareToPlay() && b.prepareToPlay())
        let heard = Heard(SharedPlayback.shared.engine)
        defer { SharedPlayback.shared.engine.mainMixerNode.removeTap(onBus: 0) }
        let when = a.deviceCurrentTime + 0.3
        #expect(a.play(atTime: when) && b.play(atTime: when))
        let channels = heard.wait { $0[0].contains { $0 > 0.5 } && $0[1].contains { $0 > 0.5 } }
        let leftClick = try #require(channels[0].firstIndex { $0 > 0.5 }), rightClick = try #require(channels[1].firstIndex { $0 > 0.5 })
        #expect(leftClick == rightClick)
    }

    @Test("rate 1.5 keeps a 440 Hz tone at 440 Hz and ends the file 1/1.5 as late")
    func rateKeepsPitch() throws {
        let (_, done) = try privateServer()
        defer { done() }
        let seconds = 3.0
        let tone = try writeFile("tone.wav", frames: Int(seconds * 48_000)) { _, frame in 0.5 * Float(sin(2 * Double.pi * 440 * Double(frame) / 48_000)) }
        let player = try AVAudioPlayer(contentsOf: tone)
        player.enableRate = true
        player.rate = 1.5
        final class Finished: AVAudioPlayerDelegate, @unchecked Sendable {
            let done = Locked(false)
            func audioPlayerDidFinishPlaying(_ player: AVAudioPlayer, successfully flag: Bool) { done.withLock { $0 = flag } }
        }
        let delegate = Finished()
        player.delegate = delegate
        let heard = Heard(SharedPlayback.shared.engine)
        defer { SharedPlayback.shared.engine.mainMixerNode.removeTap(onBus: 0) }
        #expect(player.play())
        let channels = heard.wait { heard in
            guard let start = heard[0].firstIndex(where: { abs($0) > 0.05 }) else { return false }
            return heard[0].count > start + 48_000 * 3
        }
        let start = try #require(channels[0].firstIndex { abs($0) > 0.05 })
        let end = try #require(channels[0].lastIndex { abs($0) > 0.05 })
        #expect(abs(Double(end - start) - seconds / 1.5 * 48_000) < 0.02 * 48_000, "\(end - start) frames of sound")
        #expect(abs(peakHertz(channels[0][(start + 24_000)..<(start + 72_000)], low: 300, high: 600) - 440) < 0.5)
        let deadline = Date().addingTimeInterval(5)
        while !delegate.done.withLock({ $0 }), Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(delegate.done.withLock { $0 })
        #expect(!player.isPlaying)
    }

    @Test("stop keeps the position, as Apple's does; currentTime = 0 rewinds")
    func stopKeepsPosition() throws {
        let (_, done) = try privateServer()
        defer { done() }
        let tone = try writeFile("long.wav", frames: 48_000 * 5) { _, frame in 0.1 * Float(sin(Double(frame) / 10)) }
        let player = try AVAudioPlayer(contentsOf: tone)
        #expect(player.play())
        Thread.sleep(forTimeInterval: 0.5)
        player.stop()
        let kept = player.currentTime
        #expect(kept > 0.2 && kept < 2)
        #expect(!player.isPlaying)
        player.currentTime = 0
        #expect(player.currentTime == 0)
        #expect(abs(player.duration - 5) < 1e-9)
    }

    @Test("record(forDuration:) writes exactly that long of what another JACK client feeds the input, meters it, and tells the delegate")
    func recordsInput() throws {
        let (server, done) = try privateServer()
        defer { done() }
        let tone = try writeFile("feed.wav", frames: 48_000 * 6) { _, frame in 0.5 * Float(sin(2 * Double.pi * 660 * Double(frame) / 48_000)) }
        let feeder = AVAudioEngine()
        feeder.jackServerName = server.name
        let player = AVAudioPlayerNode()
        feeder.attach(player)
        feeder.connect(player, to: feeder.mainMixerNode, format: nil)
        player.scheduleFile(try AVAudioFile(forReading: tone), at: nil)
        try feeder.start()
        defer { feeder.stop() }
        player.play()

        let url = tone.deletingLastPathComponent().appendingPathComponent("take.wav")
        let recorder = try AVAudioRecorder(url: url, settings: [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 48_000, AVNumberOfChannelsKey: 2, AVLinearPCMBitDepthKey: 24])
        final class Finished: AVAudioRecorderDelegate, @unchecked Sendable {
            let done = Locked(false)
            func audioRecorderDidFinishRecording(_ recorder: AVAudioRecorder, successfully flag: Bool) { done.withLock { $0 = flag } }
        }
        let delegate = Finished()
        recorder.delegate = delegate
        #expect(recorder.prepareToRecord())
        // The recording client is the one with capture ports; the feeder, the other one with playback ports.
        func lsp() throws -> [String] {
            try runCapped("/usr/bin/jack_lsp", [], addressSpace: 1 << 31, deadline: 30, environment: ["JACK_DEFAULT_SERVER": server.name]).stdout
                .split(separator: "\n").map(String.init)
        }
        let ports = try lsp()
        let recording = try #require(ports.first { $0.hasSuffix(":in_1") }).dropLast(":in_1".count)
        let feeding = try #require(ports.first { $0.hasSuffix(":out_1") && !$0.hasPrefix(recording + ":") }).dropLast(":out_1".count)
        for channel in 1...2 {
            let linked = try runCapped("/usr/bin/jack_connect", ["\(feeding):out_\(channel)", "\(recording):in_\(channel)"], addressSpace: 1 << 31, deadline: 30,
                                       environment: ["JACK_DEFAULT_SERVER": server.name])
            #expect(linked.exited && linked.status == 0, "\(linked.stderr)")
        }
        Thread.sleep(forTimeInterval: 0.3)
        recorder.isMeteringEnabled = true
        #expect(recorder.record(forDuration: 1))
        Thread.sleep(forTimeInterval: 0.5)
        recorder.updateMeters()
        #expect(abs(recorder.peakPower(forChannel: 0) - 20 * log10(0.5)) < 0.5, "peak \(recorder.peakPower(forChannel: 0)) dB")
        let deadline = Date().addingTimeInterval(10)
        while !delegate.done.withLock({ $0 }), Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(delegate.done.withLock { $0 })
        let file = try AVAudioFile(forReading: url)
        #expect(file.length == 48_000)
        #expect(file.fileFormat.settings[AVLinearPCMBitDepthKey] as? Int == 24)
        let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 48_000)!
        try file.read(into: buffer)
        let left = Array(UnsafeBufferPointer(start: buffer.floatChannelData![0], count: 48_000))
        #expect(abs((left.map(abs).max() ?? 0) - 0.5) < 0.01)
        #expect(abs(peakHertz(left[12_000..<36_000], low: 600, high: 720) - 660) < 0.5)
        #expect(recorder.deleteRecording())
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test("setActive runs the shared engine at JACK's rate and period; the server going away and coming back is an interruption that began, then ended with shouldResume")
    func sessionInterruptions() throws {
        let name = "trellis-av-session-\(getpid())-\(UInt16.random(in: 0...UInt16.max))"
        let servers = Locked<[JACKServer]>([try JACKServer.startPrivateServer(name: name)])
        SharedPlayback.shared.engine.jackServerName = name
        defer {
            SharedPlayback.shared.engine.stop()
            for server in servers.withLock({ $0 }) { server.stop() }
        }
        let session = AVAudioSession.sharedInstance()
        try session.setCategory(.playback)
        #expect(session.category == .playback)
        try session.setActive(true)
        #expect(session.sampleRate == 48_000)
        #expect(abs(session.ioBufferDuration - 256.0 / 48_000) < 1e-12)
        #expect(session.outputNumberOfChannels == 2)
        let seen = Locked<[(type: UInt?, options: UInt?)]>([])
        let observer = NotificationCenter.default.addObserver(forName: AVAudioSession.interruptionNotification, object: nil, queue: nil) { note in
            let entry = (note.userInfo?[AVAudioSessionInterruptionTypeKey] as? UInt, note.userInfo?[AVAudioSessionInterruptionOptionKey] as? UInt)
            seen.withLock { $0.append(entry) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        func wait(for type: AVAudioSession.InterruptionType) -> Bool {
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                if seen.withLock({ $0.contains { $0.type == type.rawValue } }) { return true }
                Thread.sleep(forTimeInterval: 0.05)
            }
            return false
        }
        servers.withLock { $0[0].kill() }
        #expect(wait(for: .began))
        let again = try JACKServer.startPrivateServer(name: name)
        servers.withLock { $0.append(again) }
        #expect(wait(for: .ended))
        let ended = seen.withLock { $0.first { $0.type == AVAudioSession.InterruptionType.ended.rawValue } }
        #expect(ended?.options == AVAudioSession.InterruptionOptions.shouldResume.rawValue)
        try session.setActive(false)
        #expect(session.sampleRate == 0)
    }
}
