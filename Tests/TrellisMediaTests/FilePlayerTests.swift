import Foundation
import Testing
import TrellisTestSupport
import TrellisAudioFile
import TrellisCore
import TrellisGraph
import TrellisMedia
import TrellisUnits

@Suite("File player")
struct FilePlayerTests {
    @Test("a 10-minute file plays through the player with every output sample equal to the file's")
    func tenMinuteFileIsExact() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("ten-minutes.wav")
        let frames = 10 * 60 * 48_000
        try writeSignalFile(path, frames: frames)
        let (graph, player) = try playerGraph(file: path)
        let ended = Locked<Int64?>(nil)
        player.addListener { note in
            if case .endOfFile(let time) = note { ended.withLock { $0 = time } }
        }
        try player.play()
        var mismatches = 0
        var firstMismatch = -1
        var silentAfterEnd = true
        renderOffline(graph, frames: frames + 4096, slice: 1024) { buffers, count, start in
            let out = buffers[0]
            for index in 0..<count {
                let frame = Int(start) + index
                let expected: Float = frame < frames ? signal(frame) : 0
                if out[index] != expected {
                    mismatches += 1
                    if firstMismatch < 0 { firstMismatch = frame }
                    if frame >= frames { silentAfterEnd = false }
                }
            }
        }
        #expect(mismatches == 0, "first mismatch at frame \(firstMismatch)")
        #expect(silentAfterEnd)
        #expect(player.underruns == 0)
        #expect(eventually { ended.current == Int64(frames) })
        #expect(!player.isPlaying)
    }

    @Test("a seek before playing starts the output at exactly that frame")
    func seekBeforePlay() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("seek.wav")
        try writeSignalFile(path, frames: 96_000)
        let (graph, player) = try playerGraph(file: path)
        try player.seek(toFrame: 12_345)
        try player.play()
        let out = collect(graph, frames: 3000)[0]
        #expect(out == (12_345..<15_345).map { signal($0) })
    }

    @Test("a seek while playing continues at exactly that frame from the next cycle")
    func seekWhilePlaying() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("seek.flac")
        try writeSignalFile(path, frames: 96_000, sampleType: .int24)
        let expected = try AudioFileReader(path: path).readAll()[0]
        let (graph, player) = try playerGraph(file: path)
        try player.play()
        let first = collect(graph, frames: 2048)[0]
        try player.seek(toFrame: 70_001)
        let second = collect(graph, frames: 2048, start: 2048)[0]
        #expect(first == Array(expected[0..<2048]))
        #expect(second == Array(expected[70_001..<72_049]))
    }

    @Test("seeking by seconds lands on the nearest frame and reports it as the current time")
    func seekBySeconds() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("seconds.wav")
        try writeSignalFile(path, frames: 48_000, sampleRate: 48_000)
        let (graph, player) = try playerGraph(file: path)
        try player.seek(toSeconds: 0.25)
        #expect(player.currentFrame == 12_000)
        try player.play()
        let out = collect(graph, frames: 1000)[0]
        #expect(out == (12_000..<13_000).map { signal($0) })
        #expect(player.currentFrame == 13_000)
    }

    @Test("a loop count of 3 plays the file 4 times with sample-exact joins, then silence")
    func loopsAreGapless() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("loop.wav")
        let length = 10_007
        try writeSignalFile(path, frames: length)
        let (graph, player) = try playerGraph(file: path)
        player.loopCount = 3
        try player.play()
        let out = collect(graph, frames: 4 * length + 3000, slice: 480)[0]
        let expected = (0..<(4 * length)).map { signal($0 % length) } + Array(repeating: 0, count: 3000)
        #expect(out == expected)
    }

    @Test("two players started at the same sample time stay sample-aligned: their outputs subtract to silence")
    func synchronizedStart() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("sync.wav")
        try writeSignalFile(path, frames: 50_000)
        let graph = Graph(registry: BuiltInUnits.registry(), maximumFrames: 512)
        let first = FilePlayer(), second = FilePlayer()
        try first.load(path: path)
        try second.load(path: path)
        let a = try graph.addNode(first, name: "a")
        let b = try graph.addNode(second, name: "b")
        let merger = try graph.addNode(Merger(inputs: [1, 1]))
        let output = try graph.addNode(GenericOutput(channelCount: 2))
        try graph.connect(a, to: merger, 0)
        try graph.connect(b, to: merger, 1)
        try graph.connect(merger, to: output)
        try graph.initialize()
        // Prepared at different moments, started together mid-slice.
        try first.prepare()
        _ = collect(graph, frames: 2000)
        try first.play(atSampleTime: 5_000)
        _ = collect(graph, frames: 1000, start: 2000)
        try second.play(atSampleTime: 5_000)
        let out = collect(graph, frames: 60_000, start: 3000)
        let difference = zip(out[0], out[1]).map { $0 - $1 }
        #expect(difference.allSatisfy { $0 == 0 })
        #expect(out[0][1999] == 0)
        #expect(Array(out[0][2000..<52_000]) == (0..<50_000).map { signal($0) })
    }

    @Test("a start time already past plays as if it had begun then: the frames since are skipped")
    func lateStartSkips() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("late.wav")
        try writeSignalFile(path, frames: 20_000)
        let (graph, player) = try playerGraph(file: path)
        try player.prepare()
        #expect(player.waitUntilReady())
        _ = collect(graph, frames: 2_000)
        try player.play(atSampleTime: 1_500)
        let out = collect(graph, frames: 1_000, start: 2_000)[0]
        #expect(out == (500..<1_500).map { signal($0) })
    }

    @Test("volume scales the output and pan balances a stereo file with the mixer's equal-power law")
    func volumeAndPan() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("stereo.wav")
        try writeSignalFile(path, frames: 20_000, channels: 2)
        let (graph, player) = try playerGraph(file: path, channels: 2)
        try player.setParameter(named: "volume", 0.5)
        try player.setParameter(named: "pan", 0.25)
        try player.play()
        let out = collect(graph, frames: 10_000)
        // Balance: the near side stays at unity, the far side follows √2·cos((pan + 1)·π/4).
        let far = 2.0.squareRoot() * cos(1.25 * Double.pi / 4)
        for frame in 100..<10_000 {
            let left = Double(signal(frame, channel: 0)) * 0.5 * far, right = Double(signal(frame, channel: 1)) * 0.5
            guard abs(Double(out[0][frame]) - left) <= 1e-6, abs(Double(out[1][frame]) - right) <= 1e-6 else {
                Issue.record("frame \(frame): \(out[0][frame]), \(out[1][frame]) against \(left), \(right)")
                break
            }
        }
    }

    @Test("a stereo file at the centre plays bit for bit")
    func stereoCentreIsExact() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("centre.wav")
        try writeSignalFile(path, frames: 10_000, channels: 2)
        let (graph, player) = try playerGraph(file: path, channels: 2)
        try player.play()
        let out = collect(graph, frames: 10_000)
        #expect(out[0] == (0..<10_000).map { signal($0, channel: 0) })
        #expect(out[1] == (0..<10_000).map { signal($0, channel: 1) })
    }

    @Test("a mono file panned on a stereo output: hard left leaves the right silent, the centre is -3 dB each side")
    func monoPan() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("mono.wav")
        try writeSignalFile(path, frames: 20_000)
        let graph = Graph(registry: BuiltInUnits.registry())
        let player = FilePlayer(channelCount: 2)
        try player.load(path: path)
        let node = try graph.addNode(player)
        let output = try graph.addNode(GenericOutput(channelCount: 2))
        try graph.connect(node, to: output)
        try player.setParameter(named: "pan", -1)
        try graph.initialize()
        try player.play()
        let left = collect(graph, frames: 8_000)
        #expect(left[1].allSatisfy { $0 == 0 })
        #expect(zip(left[0], (0..<8_000).map { signal($0) }).allSatisfy { abs($0 - $1) <= 1e-6 })
        try player.setParameter(named: "pan", 0)
        let centre = collect(graph, frames: 8_000, start: 8_000)
        let minus3dB = 1 / 2.0.squareRoot()
        for frame in 200..<8_000 {
            let expected = Double(signal(8_000 + frame)) * minus3dB
            guard abs(Double(centre[0][frame]) - expected) <= 1e-6, abs(Double(centre[1][frame]) - expected) <= 1e-6 else {
                Issue.record("frame \(frame): \(centre[0][frame]), \(centre[1][frame]) against \(expected)")
                break
            }
        }
    }

    @Test("a mono file on a stereo output plays on both channels, centred")
    func monoOnStereo() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("mono.wav")
        try writeSignalFile(path, frames: 5000)
        let graph = Graph(registry: BuiltInUnits.registry())
        let player = FilePlayer(channelCount: 2)
        try player.load(path: path)
        let node = try graph.addNode(player)
        let output = try graph.addNode(GenericOutput(channelCount: 2))
        try graph.connect(node, to: output)
        try graph.initialize()
        try player.play()
        let out = collect(graph, frames: 5000)
        // Centred with equal power: -3 dB on each side.
        let expected = (0..<5000).map { Double(signal($0)) / 2.0.squareRoot() }
        #expect(zip(out[0], expected).allSatisfy { abs(Double($0) - $1) <= 1e-6 })
        #expect(zip(out[1], expected).allSatisfy { abs(Double($0) - $1) <= 1e-6 })
    }

    @Test("a 44.1 kHz sine plays at 48 kHz with its frequency and length kept")
    func rateConversion() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("cd.wav")
        let frequency = 1000.0
        try writeSignalFile(path, frames: 44_100, sampleRate: 44_100) { frame, _ in
            Float(0.5 * sin(2 * Double.pi * frequency * Double(frame) / 44_100))
        }
        let (graph, player) = try playerGraph(file: path)
        try player.play()
        let out = collect(graph, frames: 50_000)[0]
        let last = out.lastIndex { abs($0) > 1e-3 } ?? 0
        #expect(abs(last - 48_000) < 100)
        // Away from the edges the output is the same sine sampled at 48 kHz.
        var worst: Float = 0
        for frame in 2000..<46_000 {
            let expected = Float(0.5 * sin(2 * Double.pi * frequency * Double(frame) / 48_000))
            worst = max(worst, abs(out[frame] - expected))
        }
        #expect(worst < 1e-3)
    }

    @Test("with varispeed on, rate 2 plays a 500 Hz sine as a 1 kHz sine in half the time; rate 0.5 as 250 Hz in twice the time")
    func varispeed() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("tone.wav")
        try writeSignalFile(path, frames: 48_000) { frame, _ in Float(0.5 * sin(2 * Double.pi * 500 * Double(frame) / 48_000)) }
        for (rate, frequency, length) in [(2.0, 1_000.0, 24_000), (0.5, 250.0, 96_000)] {
            let (graph, player) = try playerGraph(file: path)
            try player.setParameter(FilePlayer.varispeedParameter, 1)
            player.rate = rate
            #expect(player.rate == rate)
            try player.play()
            let out = collect(graph, frames: length + 4_800)[0]
            let last = out.lastIndex { abs($0) > 1e-3 } ?? 0
            #expect(abs(last - length) < 100, "rate \(rate): sound ends at \(last), not near \(length)")
            // Away from the edges: the sine at its new frequency, fitted in phase.
            let middle = Array(out[length / 4..<3 * length / 4])
            var ss = 0.0, cc = 0.0, sc = 0.0, ys = 0.0, yc = 0.0
            for (index, sample) in middle.enumerated() {
                let phase = 2 * Double.pi * frequency * Double(index) / 48_000
                let s = sin(phase), c = cos(phase), y = Double(sample)
                ss += s * s; cc += c * c; sc += s * c; ys += y * s; yc += y * c
            }
            let determinant = ss * cc - sc * sc
            let a = (ys * cc - yc * sc) / determinant, b = (yc * ss - ys * sc) / determinant
            var residual = 0.0
            for (index, sample) in middle.enumerated() {
                let phase = 2 * Double.pi * frequency * Double(index) / 48_000
                residual = max(residual, abs(Double(sample) - a * sin(phase) - b * cos(phase)))
            }
            #expect(abs((a * a + b * b).squareRoot() - 0.5) < 1e-3 && residual < 1e-3, "rate \(rate): amplitude \((a * a + b * b).squareRoot()), residual \(residual)")
        }
    }

    @Test("live, rate 2 and 0.5 keep a 500 Hz sine at 500 Hz and end near half and twice the file's length")
    func stretchLive() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("tone.wav")
        try writeSignalFile(path, frames: 48_000) { frame, _ in Float(0.5 * sin(2 * Double.pi * 500 * Double(frame) / 48_000)) }
        for (rate, length) in [(2.0, 24_000), (0.5, 96_000)] {
            let (graph, player) = try playerGraph(file: path)
            player.rate = rate
            try player.play()
            let out = collect(graph, frames: length + 9_600)[0]
            let last = out.lastIndex { abs($0) > 1e-3 } ?? 0
            // Real time is not sample-exact at the end (the stretcher's last window).
            #expect(abs(last - length) < 2_400, "rate \(rate): sound ends at \(last), not near \(length)")
            let middle = out[length / 4..<3 * length / 4]
            var crossings = 0
            for index in middle.indices.dropFirst() where (middle[index - 1] < 0) != (middle[index] < 0) { crossings += 1 }
            let hertz = Double(crossings) / 2 / (Double(middle.count) / 48_000)
            #expect(abs(hertz - 500) < 2, "rate \(rate): \(hertz) Hz")
        }
    }

    @Test("looping at a rate that keeps the pitch, the position wraps at the file's end")
    func stretchedLoopWraps() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("loop.wav")
        try writeSignalFile(path, frames: 24_000)
        let (graph, player) = try playerGraph(file: path)
        player.loopCount = -1
        player.rate = 2
        try player.play()
        // 18,000 output frames at rate 2: one and a half passes, so about half way through.
        _ = collect(graph, frames: 18_000)
        #expect((6_000..<18_000).contains(player.currentFrame), "\(player.currentFrame)")
    }

    @Test("a rate change while playing goes on from the frame playing, and the position counts file frames")
    func rateChangeWhilePlaying() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("long.wav")
        try writeSignalFile(path, frames: 480_000)
        let (graph, player) = try playerGraph(file: path)
        try player.play()
        _ = collect(graph, frames: 24_000)
        #expect(player.currentFrame == 24_000)
        player.rate = 2
        _ = collect(graph, frames: 24_000, start: 24_000)
        #expect(abs(player.currentFrame - 72_000) <= 2, "\(player.currentFrame): 24000 frames at rate 1, then 24000 at rate 2")
        player.rate = 0.5
        _ = collect(graph, frames: 24_000, start: 48_000)
        #expect(abs(player.currentFrame - 84_000) <= 2, "\(player.currentFrame)")
    }

    @Test("pause holds the position and play resumes at the next frame")
    func pauseAndResume() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("pause.wav")
        try writeSignalFile(path, frames: 20_000)
        let (graph, player) = try playerGraph(file: path)
        try player.play()
        let first = collect(graph, frames: 1024)[0]
        try player.pause()
        let paused = collect(graph, frames: 1024, start: 1024)[0]
        try player.play()
        let resumed = collect(graph, frames: 1024, start: 2048)[0]
        #expect(first == (0..<1024).map { signal($0) })
        #expect(paused.allSatisfy { $0 == 0 })
        #expect(resumed == (1024..<2048).map { signal($0) })
    }

    @Test("stop closes the file and rewinds; play starts from frame 0 again")
    func stopRewinds() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("stop.wav")
        try writeSignalFile(path, frames: 20_000)
        let (graph, player) = try playerGraph(file: path)
        try player.play()
        _ = collect(graph, frames: 3000)
        #expect(openDescriptorCount(of: path) == 1)
        player.stop()
        #expect(openDescriptorCount(of: path) == 0)
        #expect(!player.isReady)
        #expect(player.transportState == .stopped)
        #expect(player.currentFrame == 0)
        let silent = collect(graph, frames: 512, start: 3000)[0]
        #expect(silent.allSatisfy { $0 == 0 })
        try player.play()
        let out = collect(graph, frames: 1000, start: 3512)[0]
        #expect(out == (0..<1000).map { signal($0) })
    }

    @Test("time updates arrive at the requested interval on a thread other than the render thread")
    func timeUpdates() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("time.wav")
        try writeSignalFile(path, frames: 48_000)
        let (graph, player) = try playerGraph(file: path)
        let renderThread = pthread_self()
        let updates = Locked<[(PlayerTime, Bool)]>([])
        player.addTimeObserver(interval: 0.1) { time in
            updates.withLock { $0.append((time, pthread_equal(pthread_self(), renderThread) != 0)) }
        }
        try player.play()
        _ = collect(graph, frames: 48_000, slice: 480)
        #expect(eventually { updates.current.count == 10 })
        let got = updates.current
        #expect(got.map(\.0.frame) == (1...10).map { $0 * 4800 })
        #expect(got.allSatisfy { !$0.1 })
    }

    @Test("an offline render after prepare never underruns, and prefill reports ready")
    func prefill() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("prefill.wav")
        try writeSignalFile(path, frames: 200_000)
        let (graph, player) = try playerGraph(file: path)
        try player.prepare()
        #expect(player.waitUntilReady())
        try player.play()
        _ = collect(graph, frames: 200_000, slice: 1024)
        #expect(player.underruns == 0)
    }

    @Test("an offline render runs on past the end of the file without waiting for a slow end-of-file handler")
    func slowHandler() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("short.wav")
        try writeSignalFile(path, frames: 2000)
        let (graph, player) = try playerGraph(file: path)
        player.addListener { _ in usleep(300_000) }
        try player.play()
        let began = Date()
        let out = collect(graph, frames: 20_000, slice: 256)[0]
        #expect(Date().timeIntervalSince(began) < 0.25)
        #expect(out == (0..<2000).map { signal($0) } + Array(repeating: 0, count: 18_000))
    }

    @Test("a file that cannot be opened is refused with its path named, and nothing plays")
    func missingFile() throws {
        let player = FilePlayer()
        #expect { try player.load(path: "/nonexistent/take.wav") } throws: { "\($0)".contains("/nonexistent/take.wav") }
        #expect(throws: MediaError.self) { try player.prepare() }
        #expect(!player.isReady)
    }

    @Test("a read failure mid-file is reported and the player ends there instead of hanging")
    func readFailure() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("failing.wav")
        try writeSignalFile(path, frames: 480_000)
        let (graph, player) = try playerGraph(file: path)
        let notes = Locked<[PlayerNotification]>([])
        player.addListener { note in notes.withLock { $0.append(note) } }
        try player.prepare()
        #expect(player.waitUntilReady())
        // The disk fails: reads from the file's descriptor now get EBADF.
        try redirectDescriptor(of: path, to: "/dev/null")
        try player.play()
        let out = collect(graph, frames: 480_000, slice: 1024)[0]
        let played = out.indices.first { out[$0] != signal($0) } ?? out.count
        #expect(played >= 48_000 && played < 480_000)
        #expect(out[played...].allSatisfy { $0 == 0 })
        #expect(eventually {
            notes.current.contains { if case .readFailed(let error) = $0 { "\(error)".contains("failing.wav") } else { false } }
                && notes.current.contains { if case .endOfFile = $0 { true } else { false } }
        })
        #expect(player.underruns == 0)
    }

    @Test("a damaged FLAC frame plays as silence at its time, the rest plays on, and the damage is reported")
    func damagedFLAC() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("damaged.flac")
        try writeSignalFile(path, frames: 240_000, sampleType: .int16)
        let clean = try AudioFileReader(path: path).readAll()[0]
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: path))
        let readThrough = try AudioFileReader(path: path).readAll()[0]
        let (graph, player) = try playerGraph(file: path)
        let notes = Locked<[PlayerNotification]>([])
        player.addListener { note in notes.withLock { $0.append(note) } }
        try player.prepare()
        #expect(player.waitUntilReady())
        try player.play()
        let out = collect(graph, frames: 250_000, slice: 1024)[0]

        let silenced = (0..<240_000).filter { out[$0] == 0 && clean[$0] != 0 }
        #expect(!silenced.isEmpty && silenced.count < 240_000 / 4, "\(silenced.count) frames silenced")
        #expect(Array(out[..<240_000]) == readThrough, "the player plays what reading the file through gives")
        #expect(out[240_000...].allSatisfy { $0 == 0 })
        #expect(eventually {
            notes.current.contains { note in
                guard case .damaged(let reported, let damage, _) = note else { return false }
                return reported == path && damage.errorCount > 0 && damage.silencedFrames >= silenced.count
            }
        })
    }

    @Test("a player registered by short name is the file player")
    func registry() throws {
        let registry = ComponentRegistry()
        try MediaUnits.register(into: registry)
        #expect(try registry.instantiate(named: "player").componentDescription.description == "augn:afpl:trls")
        #expect(try registry.instantiate(named: "recorder").componentDescription.description == "auou:rcrd:trls")
    }
}
