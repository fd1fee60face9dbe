import Foundation
import Testing
import TrellisAV
import TrellisJACK
import TrellisTestSupport

/// A stereo file of noise and a sine, made by sox (an outside program).
private func sourceFile(seconds: Double = 1) throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-av-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let url = folder.appendingPathComponent("source.wav")
    let run = try runCapped("/usr/bin/sox", ["-n", "-r", "48000", "-b", "32", "-e", "floating-point", "-c", "2", url.path,
                                             "synth", "\(seconds)", "pinknoise", "sine", "330", "gain", "-9"], addressSpace: 1 << 31, deadline: 60)
    #expect(run.exited && run.status == 0, "\(run.stderr)")
    return url
}

/// Renders `engine` offline for `frames` in slices of 4096, channel by channel.
private func renderAll(_ engine: AVAudioEngine, frames: Int) throws -> [[Float]] {
    let buffer = AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: 4_096)!
    var channels = [[Float]](repeating: [], count: Int(engine.manualRenderingFormat.channelCount))
    while channels[0].count < frames {
        let slice = AVAudioFrameCount(min(4_096, frames - channels[0].count))
        #expect(try engine.renderOffline(slice, to: buffer) == .success)
        for channel in channels.indices {
            channels[channel].append(contentsOf: UnsafeBufferPointer(start: buffer.floatChannelData![channel], count: Int(buffer.frameLength)))
        }
    }
    return channels
}

private func offlineEngine() throws -> AVAudioEngine {
    let engine = AVAudioEngine()
    try engine.enableManualRenderingMode(.offline, format: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!, maximumFrameCount: 4_096)
    return engine
}

/// The built `trellis` command, beside the test bundle.
private func trellis(_ arguments: [String]) throws -> CappedRun {
    let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("trellis").path
    return try runCapped(binary, arguments, addressSpace: 1 << 34, deadline: 300)
}

@Suite("AVAudioEngine, live on JACK", .liveAudio, .serialized)
struct AVAudioEngineLiveTests {
    @Test("started without manual rendering, the engine is a JACK client playing to the physical ports, heard through a tap")
    func playsOnJACK() throws {
        let server = try JACKServer.startPrivateServer(name: "trellis-av-\(getpid())-\(UInt16.random(in: 0...UInt16.max))")
        defer { server.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-av-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let tone = folder.appendingPathComponent("tone.wav")
        let made = try runCapped("/usr/bin/sox", ["-n", "-r", "48000", "-c", "2", tone.path, "synth", "3", "sine", "440", "gain", "-6"], addressSpace: 1 << 31, deadline: 60)
        #expect(made.exited && made.status == 0)
        let engine = AVAudioEngine()
        engine.jackServerName = server.name
        let player = AVAudioPlayerNode()
        engine.attach(player)
        engine.connect(player, to: engine.mainMixerNode, format: nil)
        let heard = Locked<[Float]>([])
        engine.mainMixerNode.installTap(onBus: 0, bufferSize: 4_800, format: nil) { buffer, _ in
            let left = UnsafeBufferPointer(start: buffer.floatChannelData![0], count: Int(buffer.frameLength))
            heard.withLock { $0.append(contentsOf: left) }
        }
        player.scheduleFile(try AVAudioFile(forReading: tone), at: nil)
        try engine.start()
        defer { engine.stop() }
        player.play()
        #expect(engine.isRunning)
        let deadline = Date().addingTimeInterval(15)
        while heard.withLock({ $0.filter { abs($0) > 0.1 }.count }) < 24_000, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        let samples = heard.withLock { $0 }
        let start = try #require(samples.firstIndex { abs($0) > 0.1 })
        try #require(samples.count - start >= 24_000)
        #expect(abs(peakHertz(samples[start..<(start + 24_000)], low: 300, high: 600) - 440) < 1)
        let ports = try runCapped("/usr/bin/jack_lsp", ["-c"], addressSpace: 1 << 31, deadline: 30, environment: ["JACK_DEFAULT_SERVER": server.name]).stdout
        #expect(ports.contains("system:playback_1") && ports.contains(":out_1"), "\(ports)")
        // jack_lsp -c: a port at the start of a line, what it is connected to indented below.
        let connected = ports.components(separatedBy: "\n").drop { $0.hasPrefix(" ") || $0.hasPrefix("\t") || !$0.hasSuffix(":out_1") }.dropFirst().first ?? ""
        #expect(connected.contains("system:playback_1"), "\(ports)")
    }

    @Test("nodes attached, connected, tapped and detached while the engine runs live never meet its upkeep half way")
    func editsWhileLive() throws {
        let server = try JACKServer.startPrivateServer(name: "trellis-av-edits-\(getpid())-\(UInt16.random(in: 0...UInt16.max))")
        defer { server.stop() }
        let engine = AVAudioEngine()
        engine.jackServerName = server.name
        _ = engine.mainMixerNode
        try engine.start()
        defer { engine.stop() }
        let delivered = Locked(0)
        for round in 0..<150 {
            let player = AVAudioPlayerNode(), delay = AVAudioUnitDelay()
            engine.attach(player)
            engine.attach(delay)
            engine.connect(player, to: delay, format: nil)
            engine.connect(delay, to: engine.mainMixerNode, format: nil)
            if round % 10 == 0 { delay.installTap(onBus: 0, bufferSize: 256, format: nil) { _, _ in delivered.withLock { $0 += 1 } } }
            Thread.sleep(forTimeInterval: 0.002)
            if round % 10 == 0 { delay.removeTap(onBus: 0) }
            engine.detach(player)
            engine.detach(delay)
        }
        #expect(engine.isRunning)
        #expect(engine.attachedNodes.count == 2)
    }
}

@Suite("AVAudioEngine, offline")
struct AVAudioEngineTests {
    @Test("player → EQ → reverb → main mixer, rendered by hand offline, is `trellis render` of the same session, bit for bit")
    func manualRenderingMatchesTrellisRender() throws {
        let source = try sourceFile()
        let engine = try offlineEngine()
        let player = AVAudioPlayerNode(), eq = AVAudioUnitEQ(numberOfBands: 2), reverb = AVAudioUnitReverb()
        eq.bands[0].filterType = .lowShelf
        eq.bands[0].frequency = 200
        eq.bands[0].gain = 4
        eq.bands[1].filterType = .parametric
        eq.bands[1].frequency = 2_000
        eq.bands[1].bandwidth = 1
        eq.bands[1].gain = -3
        reverb.loadFactoryPreset(.mediumHall)
        reverb.wetDryMix = 40
        for node in [player, eq, reverb] as [AVAudioNode] { engine.attach(node) }
        engine.connect(player, to: eq, format: nil)
        engine.connect(eq, to: reverb, format: nil)
        engine.connect(reverb, to: engine.mainMixerNode, format: nil)
        player.scheduleFile(try AVAudioFile(forReading: source), at: nil)
        try engine.start()
        player.play()
        let ours = try renderAll(engine, frames: 96_000)

        let folder = source.deletingLastPathComponent().path
        let session = folder + "/same.yaml", rendered = folder + "/same.wav"
        // One octave is a Q of √2; the unused bands are bypassed, as AVAudioUnitEQ's are.
        let q = Float(2.0.squareRoot())
        let bypassed = (2..<16).map { "band\($0).bypass: 1" }.joined(separator: ", ")
        try """
            version: 1
            defaults: { sample-rate: 48000, block-size: 4096 }
            nodes:
              player: { unit: player, file: \(source.path) }
              eq: { unit: eq, parameters: { band0.type: 1, band0.freq: 200, band0.gain: 4, band0.q: 0.7071, band1.type: 0, band1.freq: 2000, band1.q: \(q), band1.gain: -3, \(bypassed) } }
              reverb: { unit: reverb, preset: Medium Hall, parameters: { wetDryMix: 40 } }
              mix: { unit: mixer }
              out: { unit: output, channels: 2 }
            connections: [player -> eq -> reverb -> mix -> out]
            """.write(toFile: session, atomically: true, encoding: .utf8)
        let run = try trellis(["render", session, "-o", rendered, "--duration", "2"])
        #expect(run.exited && run.status == 0, "\(run.stderr)")
        let file = try AVAudioFile(forReading: URL(fileURLWithPath: rendered))
        let theirs = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 96_000)!
        try file.read(into: theirs)
        #expect(theirs.frameLength == 96_000)
        for channel in 0..<2 {
            let expected = Array(UnsafeBufferPointer(start: theirs.floatChannelData![channel], count: 96_000))
            let differing = zip(ours[channel], expected).filter { $0 != $1 }.count
            #expect(differing == 0, "channel \(channel): \(differing) of 96000 samples differ")
        }
        #expect(ours[0].contains { $0 != 0 })
    }

    @Test("a player at volume 0.5 on the main mixer renders half of what it renders at 1")
    func mixerVolume() throws {
        let source = try sourceFile(seconds: 0.2)
        func render(volume: Float) throws -> [[Float]] {
            let engine = try offlineEngine()
            let player = AVAudioPlayerNode()
            engine.attach(player)
            engine.connect(player, to: engine.mainMixerNode, format: nil)
            player.volume = volume
            player.scheduleFile(try AVAudioFile(forReading: source), at: nil)
            try engine.start()
            player.play()
            return try renderAll(engine, frames: 9_600)
        }
        let full = try render(volume: 1), half = try render(volume: 0.5)
        for channel in 0..<2 {
            #expect(full[channel].contains { $0 != 0 })
            #expect(zip(full[channel], half[channel]).allSatisfy { abs($0 * 0.5 - $1) <= 1e-7 })
        }
    }

    @Test("Apple's description of its delay finds Trellis' delay, and an impulse comes out delayTime later")
    func instantiateByDescription() async throws {
        let description = AudioComponentDescription(componentType: kAudioUnitType_Effect, componentSubType: kAudioUnitSubType_Delay,
                                                    componentManufacturer: kAudioUnitManufacturer_Apple)
        let unit = try await AVAudioUnit.instantiate(with: description)
        #expect(unit is AVAudioUnitEffect)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-av-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let impulse = folder.appendingPathComponent("impulse.wav")
        do {
            let file = try AVAudioFile(forWriting: impulse, settings: [AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMIsFloatKey: true, AVLinearPCMBitDepthKey: 32, AVSampleRateKey: 48_000, AVNumberOfChannelsKey: 2])
            let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 100)!
            buffer.frameLength = 100
            buffer.floatChannelData![0][0] = 1
            buffer.floatChannelData![1][0] = 1
            try file.write(from: buffer)
        }
        let engine = try offlineEngine()
        let player = AVAudioPlayerNode()
        engine.attach(player)
        engine.attach(unit)
        engine.connect(player, to: unit, format: nil)
        engine.connect(unit, to: engine.outputNode, format: nil)
        player.scheduleFile(try AVAudioFile(forReading: impulse), at: nil)
        try engine.start()
        player.play()
        let out = try renderAll(engine, frames: 12_000)
        // Delay's defaults: 1 s, 50 % wet; at 48 kHz the echo is 48 000 frames late, past
        // this render, so what is heard is the dry half of the impulse at frame 0.
        let loudest = out[0].indices.max { abs(out[0][$0]) < abs(out[0][$1]) }!
        #expect(loudest == 0)
        #expect(abs(out[0][0] - 0.5) < 1e-6)
    }

    @Test("a tap on the main mixer hands over every rendered frame once, in order, with its sample time")
    func tapSeesEveryFrame() throws {
        let source = try sourceFile(seconds: 0.5)
        let engine = try offlineEngine()
        let player = AVAudioPlayerNode()
        engine.attach(player)
        engine.connect(player, to: engine.mainMixerNode, format: nil)
        let tapped = Locked<[(Int64, [Float])]>([])
        engine.mainMixerNode.installTap(onBus: 0, bufferSize: 1_000, format: nil) { buffer, time in
            let left = Array(UnsafeBufferPointer(start: buffer.floatChannelData![0], count: Int(buffer.frameLength)))
            tapped.withLock { $0.append((time.sampleTime, left)) }
        }
        player.scheduleFile(try AVAudioFile(forReading: source), at: nil)
        try engine.start()
        player.play()
        let rendered = try renderAll(engine, frames: 20_000)
        let deadline = Date().addingTimeInterval(10)
        while tapped.withLock({ $0.count }) < 20, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        let buffers = tapped.withLock { $0 }
        #expect(buffers.count == 20)
        #expect(buffers.map(\.0) == (0..<20).map { Int64($0 * 1_000) })
        #expect(buffers.flatMap(\.1) == rendered[0])
    }

    @Test("renderOffline into a buffer of another format is refused, naming both")
    func renderWrongFormat() throws {
        let engine = try offlineEngine()
        _ = engine.mainMixerNode
        try engine.start()
        let mono = AVAudioPCMBuffer(pcmFormat: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1)!, frameCapacity: 256)!
        let error = #expect(throws: AVAudioError.self) { try engine.renderOffline(256, to: mono) }
        #expect(error?.message.contains("1 ch") == true && error?.message.contains("2 ch") == true)
    }
}
