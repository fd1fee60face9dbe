import Foundation
import Testing
import TrellisAV
import TrellisTestSupport

/// An offline engine, stereo at 48 kHz, with a player wired straight to the output.
private func playerEngine() throws -> (AVAudioEngine, AVAudioPlayerNode) {
    let engine = AVAudioEngine(), player = AVAudioPlayerNode()
    try engine.enableManualRenderingMode(.offline, format: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!, maximumFrameCount: 1_024)
    engine.attach(player)
    engine.connect(player, to: engine.outputNode, format: nil)
    try engine.start()
    return (engine, player)
}

/// The left channel of the next `frames` frames, rendered in slices of up to 1,024.
private func render(_ engine: AVAudioEngine, _ frames: Int, slice: Int = 1_024) throws -> [Float] {
    let buffer = AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: 1_024)!
    var left: [Float] = []
    while left.count < frames {
        #expect(try engine.renderOffline(AVAudioFrameCount(min(slice, frames - left.count)), to: buffer) == .success)
        left += UnsafeBufferPointer(start: buffer.floatChannelData![0], count: Int(buffer.frameLength))
    }
    return left
}

/// A mono buffer holding `samples`.
private func buffer(_ samples: [Float]) -> AVAudioPCMBuffer {
    let buffer = AVAudioPCMBuffer(pcmFormat: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1)!, frameCapacity: AVAudioFrameCount(samples.count))!
    buffer.frameLength = AVAudioFrameCount(samples.count)
    for (frame, sample) in samples.enumerated() { buffer.floatChannelData![0][frame] = sample }
    return buffer
}

/// Three seconds of mono white noise at 48 kHz that sox writes into `folder`, opened,
/// and all of it read.
private func noiseFile(in folder: String) throws -> (AVAudioFile, AVAudioPCMBuffer) {
    let path = folder + "/noise.wav"
    let made = try runCapped("/usr/bin/sox", ["-n", "-r", "48000", "-b", "32", "-e", "floating-point", "-c", "1", path, "synth", "3", "whitenoise", "gain", "-6"],
                             addressSpace: 1 << 31, deadline: 60)
    #expect(made.exited && made.status == 0)
    let file = try AVAudioFile(forReading: URL(fileURLWithPath: path))
    let all = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(file.length))!
    try file.read(into: all)
    return (file, all)
}

/// Waits up to five seconds for `condition`.
private func eventually(_ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(5)
    while !condition(), Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
    return condition()
}

private func temporaryFolder() throws -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-av-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    return folder
}

private func ramp(_ count: Int, from start: Float) -> [Float] { (0..<count).map { start + Float($0) / 1_000 } }

@Suite("AVAudioPlayerNode")
struct AVAudioPlayerNodeTests {
    @Test("buffers scheduled with no time play back to back from the player's start, and each handler runs once its buffer is done")
    func buffersBackToBack() throws {
        let (engine, player) = try playerEngine()
        defer { engine.stop() }
        let first = ramp(700, from: 1), second = ramp(500, from: 2)
        let finished = Locked<[String]>([])
        player.scheduleBuffer(buffer(first)) { finished.withLock { $0.append("first") } }
        player.scheduleBuffer(buffer(second)) { finished.withLock { $0.append("second") } }
        player.play()
        let heard = try render(engine, 1_500, slice: 256)
        #expect(Array(heard[0..<700]) == first)
        #expect(Array(heard[700..<1_200]) == second)
        #expect(heard[1_200...].allSatisfy { $0 == 0 })
        #expect(eventually { finished.withLock { $0 } == ["first", "second"] })
    }

    @Test("a stereo buffer plays each channel on its own side; a mono one on both")
    func channels() throws {
        let (engine, player) = try playerEngine()
        defer { engine.stop() }
        let stereo = AVAudioPCMBuffer(pcmFormat: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!, frameCapacity: 300)!
        stereo.frameLength = 300
        for frame in 0..<300 {
            stereo.floatChannelData![0][frame] = Float(frame)
            stereo.floatChannelData![1][frame] = -Float(frame)
        }
        player.scheduleBuffer(stereo)
        player.scheduleBuffer(buffer(ramp(200, from: 7)))
        player.play()
        let output = AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: 1_024)!
        #expect(try engine.renderOffline(512, to: output) == .success)
        let left = Array(UnsafeBufferPointer(start: output.floatChannelData![0], count: 500))
        let right = Array(UnsafeBufferPointer(start: output.floatChannelData![1], count: 500))
        #expect(left == (0..<300).map(Float.init) + ramp(200, from: 7))
        #expect(right == (0..<300).map { -Float($0) } + ramp(200, from: 7))
    }

    @Test("a buffer scheduled at a sample time plays from that frame of the player's timeline, silence before it")
    func bufferAtSampleTime() throws {
        let (engine, player) = try playerEngine()
        defer { engine.stop() }
        let samples = ramp(300, from: 1)
        player.scheduleBuffer(buffer(samples), at: AVAudioTime(sampleTime: 1_000, atRate: 48_000))
        _ = try render(engine, 512)
        player.play()
        let heard = try render(engine, 2_048)
        #expect(heard[0..<1_000].allSatisfy { $0 == 0 })
        #expect(Array(heard[1_000..<1_300]) == samples)
        #expect(heard[1_300...].allSatisfy { $0 == 0 })
    }

    @Test("play(at:) starts the player's timeline on the node time it names")
    func playAtNodeTime() throws {
        let (engine, player) = try playerEngine()
        defer { engine.stop() }
        player.scheduleBuffer(buffer(ramp(100, from: 1)))
        player.play(at: AVAudioTime(sampleTime: 1_500, atRate: 48_000))
        let heard = try render(engine, 2_048)
        #expect(heard.firstIndex { $0 != 0 } == 1_500)
        let now = try #require(engine.outputNode.lastRenderTime)
        let playerTime = try #require(player.playerTime(forNodeTime: now))
        #expect(now.sampleTime == 2_048)
        #expect(playerTime.sampleTime == 548)
        let start = try #require(player.nodeTime(forPlayerTime: AVAudioTime(sampleTime: 0, atRate: 48_000)))
        #expect(start.sampleTime == 1_500)
    }

    @Test("a looping buffer repeats until a buffer scheduled with interruptsAtLoop takes over at its loop point")
    func loopsUntilInterruptedAtLoop() throws {
        let (engine, player) = try playerEngine()
        defer { engine.stop() }
        let loop = ramp(300, from: 1), next = ramp(200, from: 5)
        let loopDone = Locked(false)
        player.scheduleBuffer(buffer(loop), at: nil, options: .loops) { loopDone.withLock { $0 = true } }
        player.play()
        var heard = try render(engine, 1_000)
        #expect(heard == (0..<1_000).map { loop[$0 % 300] })
        player.scheduleBuffer(buffer(next), at: nil, options: .interruptsAtLoop)
        heard = try render(engine, 1_000)
        // The loop ends at its next loop point, frame 1,200 of the timeline (200 into this render).
        #expect(Array(heard[0..<200]) == Array(loop[100..<300]))
        #expect(Array(heard[200..<400]) == next)
        #expect(heard[400...].allSatisfy { $0 == 0 })
        #expect(eventually { loopDone.withLock { $0 } })
    }

    @Test("a buffer scheduled with interrupts cuts what plays at once, and the cut buffer's handler runs")
    func interruptsAtOnce() throws {
        let (engine, player) = try playerEngine()
        defer { engine.stop() }
        let long = ramp(5_000, from: 1), short = ramp(100, from: 9)
        let cut = Locked(false)
        player.scheduleBuffer(buffer(long)) { cut.withLock { $0 = true } }
        player.play()
        #expect(try render(engine, 1_024) == Array(long[0..<1_024]))
        player.scheduleBuffer(buffer(short), at: nil, options: .interrupts)
        let heard = try render(engine, 1_024)
        #expect(Array(heard[0..<100]) == short)
        #expect(heard[100...].allSatisfy { $0 == 0 })
        #expect(eventually { cut.withLock { $0 } })
    }

    @Test("a segment of a file plays exactly those frames of it, read through libsndfile, across many read-ahead pieces")
    func segmentOfFile() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (file, all) = try noiseFile(in: folder)
        file.framePosition = 17
        let (engine, player) = try playerEngine()
        defer { engine.stop() }
        let played = Locked<AVAudioPlayerNodeCompletionCallbackType?>(nil)
        player.scheduleSegment(file, startingFrame: 12_345, frameCount: 100_000, at: nil, completionCallbackType: .dataPlayedBack) { type in
            played.withLock { $0 = type }
        }
        player.play()
        let heard = try render(engine, 101_000)
        let expected = Array(UnsafeBufferPointer(start: all.floatChannelData![0] + 12_345, count: 100_000))
        #expect(Array(heard[0..<100_000]) == expected)
        #expect(heard[100_000...].allSatisfy { $0 == 0 })
        #expect(eventually { played.withLock { $0 } == .dataPlayedBack })
        #expect(file.framePosition == 17)
    }

    @Test("offline, each slice reads the file ahead itself: a segment plays whole while a slow completion handler holds up the player's queue")
    func offlineReadsAheadPerSlice() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (file, all) = try noiseFile(in: folder)
        let (engine, player) = try playerEngine()
        defer { engine.stop() }
        // The handler of the first buffer blocks the queue the player's own timer runs on
        // until the render is done.
        let release = DispatchSemaphore(value: 0)
        player.scheduleBuffer(buffer([0.5]), at: nil, options: [], completionCallbackType: .dataConsumed) { _ in
            _ = release.wait(timeout: .now() + 30)
        }
        player.scheduleSegment(file, startingFrame: 0, frameCount: 120_000, at: nil)
        player.play()
        let heard = try render(engine, 120_001)
        release.signal()
        #expect(heard[0] == 0.5)
        #expect(Array(heard[1...120_000]) == Array(UnsafeBufferPointer(start: all.floatChannelData![0], count: 120_000)))
    }

    @Test("a file at another rate is converted to the engine's: a 1 kHz tone at 44.1 kHz plays at 1 kHz and lasts as long")
    func fileAtAnotherRate() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/tone.wav"
        let made = try runCapped("/usr/bin/sox", ["-n", "-r", "44100", "-c", "1", path, "synth", "1", "sine", "1000", "gain", "-6"], addressSpace: 1 << 31, deadline: 60)
        #expect(made.exited && made.status == 0)
        let (engine, player) = try playerEngine()
        defer { engine.stop() }
        player.scheduleFile(try AVAudioFile(forReading: URL(fileURLWithPath: path)), at: nil)
        player.play()
        let heard = try render(engine, 60_000)
        let last = try #require(heard.lastIndex { abs($0) > 0.01 })
        #expect(abs(last - 48_000) < 100)
        #expect(abs(peakHertz(heard[9_600..<28_800], low: 900, high: 1_100) - 1_000) < 1)
    }

    @Test("stop drops what is scheduled, calls its handlers and sets the player time back; pause keeps both")
    func stopAndPause() throws {
        let (engine, player) = try playerEngine()
        defer { engine.stop() }
        let samples = ramp(4_000, from: 1)
        let dropped = Locked(false)
        player.scheduleBuffer(buffer(samples)) { dropped.withLock { $0 = true } }
        player.play()
        #expect(try render(engine, 1_000) == Array(samples[0..<1_000]))
        player.pause()
        #expect(!player.isPlaying)
        #expect(try render(engine, 1_000).allSatisfy { $0 == 0 })
        #expect(player.playerTime(forNodeTime: AVAudioTime(sampleTime: 2_000, atRate: 48_000)) == nil)
        player.play()
        #expect(try render(engine, 1_000) == Array(samples[1_000..<2_000]))
        #expect(player.playerTime(forNodeTime: AVAudioTime(sampleTime: 3_000, atRate: 48_000))?.sampleTime == 2_000)
        player.stop()
        #expect(eventually { dropped.withLock { $0 } })
        #expect(try render(engine, 1_000).allSatisfy { $0 == 0 })
        player.scheduleBuffer(buffer(ramp(10, from: 3)))
        player.play()
        let heard = try render(engine, 1_000)
        #expect(Array(heard[0..<10]) == ramp(10, from: 3))
        #expect(player.playerTime(forNodeTime: AVAudioTime(sampleTime: 5_000, atRate: 48_000))?.sampleTime == 1_000)
    }

    @Test("the async form of scheduleBuffer returns once the buffer was rendered, with the callback type asked for")
    func asyncSchedule() throws {
        let (engine, player) = try playerEngine()
        defer { engine.stop() }
        player.play()
        let returned = Locked<AVAudioPlayerNodeCompletionCallbackType?>(nil)
        // The task runs on a thread of its own: the cooperative pool may be busy with the
        // suite's other tests for minutes on two cores.
        Task(executorPreference: OwnThreadExecutor()) {
            let type = await player.scheduleBuffer(buffer(ramp(600, from: 1)), completionCallbackType: .dataRendered)
            returned.withLock { $0 = type }
        }
        let deadline = Date().addingTimeInterval(30)
        while returned.withLock({ $0 }) == nil, Date() < deadline {
            _ = try render(engine, 1_024)
            Thread.sleep(forTimeInterval: 0.002)
        }
        #expect(returned.withLock { $0 } == .dataRendered)
    }
}

/// Runs a task's jobs on a serial dispatch queue of its own, outside Swift's cooperative pool.
private final class OwnThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let queue = DispatchQueue(label: "TrellisAVTests.OwnThreadExecutor")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
