// Snippets written from Apple's public documentation of AVFAudio, in the usage shape each
// page shows, each followed by checks of what that page documents. The code is ordinary app
// code: on Apple's platforms replace `import TrellisAV` with `import AVFoundation` and nothing
// else changes. Every check is against arithmetic (a sine's frequency or level, frame counts,
// sample values, a formula from the page), never a number copied from a run.
//
// Everything renders offline (manual rendering), a second of audio or so: no device, no
// network, no sleeping (what arrives on another thread is waited for with a semaphore and a
// deadline).

import Foundation
import Testing
import TrellisAV

// MARK: - Signals and the arithmetic the checks use

/// The standard format: 32-bit float, deinterleaved.
private func standardFormat(_ channels: AVAudioChannelCount, rate: Double = 48_000) -> AVAudioFormat {
    AVAudioFormat(standardFormatWithSampleRate: rate, channels: channels)!
}

/// A buffer of the standard format holding `samples` in every channel.
private func buffer(from samples: [Float], channels: AVAudioChannelCount = 2, rate: Double = 48_000) -> AVAudioPCMBuffer {
    let buffer = AVAudioPCMBuffer(pcmFormat: standardFormat(channels, rate: rate), frameCapacity: AVAudioFrameCount(samples.count))!
    buffer.frameLength = AVAudioFrameCount(samples.count)
    for channel in 0..<Int(channels) {
        for (frame, sample) in samples.enumerated() { buffer.floatChannelData![channel][frame] = sample }
    }
    return buffer
}

/// `frames` frames of amplitude · sin(2π · hertz · n / rate) in every channel.
private func sineBuffer(hertz: Double, amplitude: Float, frames: Int, channels: AVAudioChannelCount = 2, rate: Double = 48_000) -> AVAudioPCMBuffer {
    let samples = (0..<frames).map { amplitude * Float(sin(2 * Double.pi * hertz * Double($0) / rate)) }
    return buffer(from: samples, channels: channels, rate: rate)
}

/// One channel of a float buffer's valid frames.
private func samples(of buffer: AVAudioPCMBuffer, channel: Int = 0) -> [Float] {
    Array(UnsafeBufferPointer(start: buffer.floatChannelData![channel], count: Int(buffer.frameLength)))
}

/// Root mean square.
private func rms(_ samples: some Collection<Float>) -> Float {
    guard !samples.isEmpty else { return 0 }
    let sum = samples.reduce(0.0) { $0 + Double($1) * Double($1) }
    return Float((sum / Double(samples.count)).squareRoot())
}

/// The frequency of a periodic signal from its rising zero crossings, placed between samples
/// by linear interpolation; a crossing counts only after the signal went below −20 % of its
/// RMS, so small noise around zero adds none.
private func zeroCrossingHertz(_ samples: some Collection<Float>, rate: Double = 48_000) -> Double {
    let threshold = 0.2 * rms(samples)
    var armed = false
    var crossings: [Double] = []
    var previous: Float = 0
    for (index, sample) in samples.enumerated() {
        if sample < -threshold { armed = true }
        if armed, index > 0, previous < 0, sample >= 0 {
            crossings.append(Double(index - 1) + Double(-previous / (sample - previous)))
            armed = false
        }
        previous = sample
    }
    guard let first = crossings.first, let last = crossings.last, crossings.count > 1 else { return 0 }
    return Double(crossings.count - 1) * rate / (last - first)
}

/// The amplitude of the component at `hertz` (Goertzel), exact for a whole number of its periods.
private func amplitude(at hertz: Double, in samples: some Collection<Float>, rate: Double = 48_000) -> Double {
    let coefficient = 2 * cos(2 * Double.pi * hertz / rate)
    var s1 = 0.0, s2 = 0.0
    for sample in samples {
        let s0 = Double(sample) + coefficient * s1 - s2
        s2 = s1
        s1 = s0
    }
    let power = max(0, s1 * s1 + s2 * s2 - coefficient * s1 * s2)
    return 2 * power.squareRoot() / Double(samples.count)
}

/// Cents from `reference` to `hertz`: 1200 · log2(hertz / reference).
private func cents(_ hertz: Double, from reference: Double) -> Double { 1_200 * log2(hertz / reference) }

private func decibels(_ ratio: Float) -> Double { 20 * log10(Double(ratio)) }

// MARK: - Engines

/// An engine in offline manual rendering mode.
private func offlineEngine(channels: AVAudioChannelCount = 2, rate: Double = 48_000, maximumFrameCount: AVAudioFrameCount = 4_096) throws -> AVAudioEngine {
    let engine = AVAudioEngine()
    try engine.enableManualRenderingMode(.offline, format: standardFormat(channels, rate: rate), maximumFrameCount: maximumFrameCount)
    return engine
}

/// Renders the next `frames` frames of a started offline engine, a buffer of
/// `manualRenderingMaximumFrameCount` at a time; each channel's samples.
private func renderFrames(_ engine: AVAudioEngine, _ frames: Int) throws -> [[Float]] {
    let buffer = AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: engine.manualRenderingMaximumFrameCount)!
    var channels = [[Float]](repeating: [], count: Int(buffer.format.channelCount))
    while channels[0].count < frames {
        let wanted = min(AVAudioFrameCount(frames - channels[0].count), buffer.frameCapacity)
        let status = try engine.renderOffline(wanted, to: buffer)
        #expect(status == .success, "renderOffline returned \(status)")
        guard status == .success, buffer.frameLength > 0 else { break }
        for channel in channels.indices { channels[channel] += samples(of: buffer, channel: channel) }
    }
    return channels
}

/// A player scheduling `buffer`, through `effects` in order, into the main mixer, rendered
/// offline for `frames` frames; each output channel.
private func renderPlayer(_ buffer: AVAudioPCMBuffer, options: AVAudioPlayerNodeBufferOptions = [], through effects: [AVAudioNode] = [],
                          frames: Int) throws -> [[Float]] {
    let engine = try offlineEngine()
    let player = AVAudioPlayerNode()
    engine.attach(player)
    var upstream: AVAudioNode = player
    for effect in effects {
        engine.attach(effect)
        engine.connect(upstream, to: effect, format: buffer.format)
        upstream = effect
    }
    engine.connect(upstream, to: engine.mainMixerNode, format: buffer.format)
    player.scheduleBuffer(buffer, at: nil, options: options)
    try engine.start()
    defer {
        player.stop()
        engine.stop()
    }
    player.play()
    return try renderFrames(engine, frames)
}

private func temporaryFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("AppleDocumentationSnippets-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}

// MARK: - State the blocks share with the tests

/// Fired from a completion handler; the test waits for it with a deadline.
private final class Fired: @unchecked Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var fired = 0

    func fire() {
        lock.lock()
        fired += 1
        lock.unlock()
        semaphore.signal()
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return fired
    }

    func wait(seconds: Double = 10) -> Bool { semaphore.wait(timeout: .now() + seconds) == .success }
}

/// What a tap hands over: the left channel, and each buffer's time and length.
private final class TapRecorder: @unchecked Sendable {
    struct Delivery {
        let sampleTime: AVAudioFramePosition
        let isSampleTimeValid: Bool
        let frames: Int
    }

    private let lock = NSLock()
    private var left: [Float] = []
    private var deliveries: [Delivery] = []
    private let target: Int
    private let reached = DispatchSemaphore(value: 0)

    init(waitingFor target: Int) { self.target = target }

    func record(_ buffer: AVAudioPCMBuffer, at when: AVAudioTime) {
        let frames = samples(of: buffer)
        lock.lock()
        let before = left.count
        left += frames
        deliveries.append(Delivery(sampleTime: when.sampleTime, isSampleTimeValid: when.isSampleTimeValid, frames: frames.count))
        let after = left.count
        lock.unlock()
        if before < target, after >= target { reached.signal() }
    }

    func waitForTarget(seconds: Double = 10) -> Bool { reached.wait(timeout: .now() + seconds) == .success }

    var recorded: (left: [Float], deliveries: [Delivery]) {
        lock.lock()
        defer { lock.unlock() }
        return (left, deliveries)
    }
}

/// A signal generator's state, kept outside the render block as Apple's sample keeps it.
private final class Oscillator: @unchecked Sendable {
    let hertz: Double
    let amplitude: Float
    let sampleRate: Double
    var phase = 0.0

    init(hertz: Double, amplitude: Float, sampleRate: Double) {
        self.hertz = hertz
        self.amplitude = amplitude
        self.sampleRate = sampleRate
    }
}

/// Counts the frames a source node's block has written.
private final class FrameCounter: @unchecked Sendable {
    var next = 0
}

/// Gives a converter one buffer, then the end of the stream.
private final class OneShotInput: @unchecked Sendable {
    private let buffer: AVAudioPCMBuffer
    private var given = false

    init(_ buffer: AVAudioPCMBuffer) { self.buffer = buffer }

    func next(_ status: UnsafeMutablePointer<AVAudioConverterInputStatus>) -> AVAudioBuffer? {
        if given {
            status.pointee = .endOfStream
            return nil
        }
        given = true
        status.pointee = .haveData
        return buffer
    }
}

/// Deinterleaved float samples handed to the input node's block in place, a request at a
/// time, through one `AudioBufferList` that lives as long as the feed.
private final class InputFeed: @unchecked Sendable {
    private let channels: [UnsafeMutablePointer<Float>]
    private let frames: Int
    private let list: UnsafeMutableAudioBufferListPointer
    private(set) var framesGiven = 0

    init(channels samples: [[Float]]) {
        frames = samples[0].count
        channels = samples.map { channel in
            let pointer = UnsafeMutablePointer<Float>.allocate(capacity: channel.count)
            pointer.initialize(from: channel, count: channel.count)
            return pointer
        }
        list = AudioBufferList.allocate(maximumBuffers: samples.count)
    }

    deinit {
        for pointer in channels { pointer.deallocate() }
        free(list.unsafeMutablePointer)
    }

    /// The next `frameCount` frames, or nil once there are not that many left.
    func next(_ frameCount: AVAudioFrameCount) -> UnsafePointer<AudioBufferList>? {
        let count = Int(frameCount)
        guard framesGiven + count <= frames else { return nil }
        for (index, pointer) in channels.enumerated() {
            list[index] = AudioBuffer(mNumberChannels: 1, mDataByteSize: UInt32(count * MemoryLayout<Float>.size),
                                      mData: UnsafeMutableRawPointer(pointer + framesGiven))
        }
        framesGiven += count
        return list.unsafePointer
    }
}

/// A mono 480 Hz tone (0.5 peak) looping on a player that feeds an environment node, which
/// feeds the main mixer in stereo; rendered offline.
private final class EnvironmentScene {
    let engine = AVAudioEngine()
    let environment = AVAudioEnvironmentNode()
    let player = AVAudioPlayerNode()

    init() throws {
        let stereo = standardFormat(2), mono = standardFormat(1)
        try engine.enableManualRenderingMode(.offline, format: stereo, maximumFrameCount: 4_096)
        engine.attach(environment)
        engine.attach(player)
        engine.connect(player, to: environment, fromBus: 0, toBus: environment.nextAvailableInputBus, format: mono)
        engine.connect(environment, to: engine.mainMixerNode, format: stereo)
        player.renderingAlgorithm = .equalPowerPanning
        player.scheduleBuffer(sineBuffer(hertz: 480, amplitude: 0.5, frames: 4_800, channels: 1), at: nil, options: .loops)
        try engine.start()
        player.play()
    }

    deinit { engine.stop() }

    /// Each side's RMS over the last 0.1 s of the next 0.25 s (a whole number of the tone's
    /// periods), once any glide to a new placement has landed.
    func levels() throws -> (left: Float, right: Float) {
        let out = try renderFrames(engine, 12_000)
        return (rms(out[0][7_200...]), rms(out[1][7_200...]))
    }
}

// MARK: - The snippets

@Suite("Apple's AVFAudio documentation, as snippets", .serialized)
struct AppleDocumentationSnippets {
    // MARK: AVAudioEngine

    @Test("the engine makes its main mixer on first access, attached and connected to the output node; attach, connect and detach edit the graph")
    func engineGraph() {
        // https://developer.apple.com/documentation/avfaudio/avaudioengine
        let engine = AVAudioEngine()
        let mixer = engine.mainMixerNode
        #expect(engine.mainMixerNode === mixer)
        #expect(engine.attachedNodes.contains(mixer))
        #expect(mixer.engine === engine)
        let downstream = engine.outputConnectionPoints(for: mixer, outputBus: 0)
        #expect(downstream.count == 1)
        #expect(downstream.first?.node === engine.outputNode)
        #expect(downstream.first?.bus == 0)
        #expect(engine.inputConnectionPoint(for: engine.outputNode, inputBus: 0)?.node === mixer)

        let player = AVAudioPlayerNode()
        #expect(player.engine == nil)
        engine.attach(player)
        #expect(player.engine === engine)
        #expect(engine.attachedNodes.contains(player))
        engine.connect(player, to: mixer, format: standardFormat(2))
        #expect(engine.inputConnectionPoint(for: mixer, inputBus: 0)?.node === player)
        #expect(engine.outputConnectionPoints(for: player, outputBus: 0).first?.node === mixer)
        engine.detach(player)
        #expect(player.engine == nil)
        #expect(!engine.attachedNodes.contains(player))
        #expect(engine.inputConnectionPoint(for: mixer, inputBus: 0) == nil)
    }

    @Test("renderOffline renders the frames asked for into the buffer, sets its frameLength, and advances manualRenderingSampleTime by as many; successive calls continue the stream")
    func renderOfflineSlices() throws {
        // https://developer.apple.com/documentation/avfaudio/avaudioengine/renderoffline(_:to:)
        let format = standardFormat(2)
        let engine = AVAudioEngine()
        try engine.enableManualRenderingMode(.offline, format: format, maximumFrameCount: 4_096)
        let counter = FrameCounter()
        let source = AVAudioSourceNode { _, _, frameCount, audioBufferList -> OSStatus in
            let buffers = UnsafeMutableAudioBufferListPointer(audioBufferList)
            for frame in 0..<Int(frameCount) {
                let value = Float(counter.next % 1_000) / 1_000
                counter.next += 1
                for buffer in buffers {
                    let samples = UnsafeMutableBufferPointer<Float>(buffer)
                    samples[frame] = value
                }
            }
            return noErr
        }
        engine.attach(source)
        engine.connect(source, to: engine.mainMixerNode, format: format)
        engine.prepare()
        try engine.start()
        defer { engine.stop() }
        #expect(engine.isRunning)
        #expect(engine.isInManualRenderingMode)
        #expect(engine.manualRenderingMode == .offline)
        #expect(engine.manualRenderingFormat == format)
        #expect(engine.manualRenderingMaximumFrameCount == 4_096)

        let buffer = AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: engine.manualRenderingMaximumFrameCount)!
        var left: [Float] = [], right: [Float] = []
        var rendered: AVAudioFramePosition = 0
        for slice: AVAudioFrameCount in [512, 1_000, 333, 4_096, 1, 2_058] {
            let status = try engine.renderOffline(slice, to: buffer)
            #expect(status == .success)
            #expect(buffer.frameLength == slice)
            #expect(buffer.frameLength <= buffer.frameCapacity)
            rendered += AVAudioFramePosition(slice)
            #expect(engine.manualRenderingSampleTime == rendered)
            left += samples(of: buffer, channel: 0)
            right += samples(of: buffer, channel: 1)
        }
        let expected = (0..<Int(rendered)).map { Float($0 % 1_000) / 1_000 }
        #expect(left.count == expected.count)
        #expect(zip(left, expected).allSatisfy { abs($0 - $1) <= 1e-6 })
        #expect(zip(right, expected).allSatisfy { abs($0 - $1) <= 1e-6 })
    }

    @Test("the offline processing article: a file through a reverb into the main mixer, rendered while manualRenderingSampleTime < the source's length, is written to a file as long as the source, at the source's pitch")
    func offlineProcessingArticle() throws {
        // https://developer.apple.com/documentation/avfaudio/performing-offline-audio-processing
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // The source: one second of 441 Hz (a period of 100 frames) at 44.1 kHz, 16-bit stereo.
        let sourceURL = folder.appendingPathComponent("Rhythm.wav")
        let tone = sineBuffer(hertz: 441, amplitude: 0.5, frames: 44_100, rate: 44_100)
        do {
            let settings: [String: Any] = [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 44_100.0, AVNumberOfChannelsKey: 2,
                                           AVLinearPCMBitDepthKey: 16, AVLinearPCMIsFloatKey: false, AVLinearPCMIsBigEndianKey: false]
            let file = try AVAudioFile(forWriting: sourceURL, settings: settings)
            try file.write(from: tone)
        }

        let sourceFile = try AVAudioFile(forReading: sourceURL)
        let format = sourceFile.processingFormat

        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        let reverb = AVAudioUnitReverb()
        engine.attach(player)
        engine.attach(reverb)
        reverb.loadFactoryPreset(.mediumHall)
        reverb.wetDryMix = 50
        engine.connect(player, to: reverb, format: format)
        engine.connect(reverb, to: engine.mainMixerNode, format: format)
        player.scheduleFile(sourceFile, at: nil)

        let maxFrames: AVAudioFrameCount = 4_096
        try engine.enableManualRenderingMode(.offline, format: format, maximumFrameCount: maxFrames)
        try engine.start()
        player.play()

        let buffer = AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: engine.manualRenderingMaximumFrameCount)!
        let outputURL = folder.appendingPathComponent("Rhythm-processed.caf")
        var rendered: [Float] = []
        do {
            let outputFile = try AVAudioFile(forWriting: outputURL, settings: sourceFile.fileFormat.settings)
            while engine.manualRenderingSampleTime < sourceFile.length {
                let frameCount = sourceFile.length - engine.manualRenderingSampleTime
                let framesToRender = min(AVAudioFrameCount(frameCount), buffer.frameCapacity)
                let status = try engine.renderOffline(framesToRender, to: buffer)
                #expect(status == .success, "renderOffline returned \(status)")
                guard status == .success else { break }
                try outputFile.write(from: buffer)
                rendered += samples(of: buffer)
            }
        }
        player.stop()
        engine.stop()

        #expect(rendered.count == Int(sourceFile.length))
        let processed = try AVAudioFile(forReading: outputURL)
        #expect(processed.length == sourceFile.length)
        #expect(processed.processingFormat.sampleRate == format.sampleRate)
        let readBack = AVAudioPCMBuffer(pcmFormat: processed.processingFormat, frameCapacity: AVAudioFrameCount(processed.length))!
        try processed.read(into: readBack)
        // The output file has the source's 16-bit settings: what was rendered, to within a step.
        #expect(zip(samples(of: readBack), rendered).allSatisfy { abs($0 - $1) <= Float(1) / 32_767 })
        // The tone keeps its pitch through the engine, which runs at the file's rate.
        let secondHalf = rendered[22_050...]
        #expect(abs(cents(zeroCrossingHertz(secondHalf, rate: 44_100), from: 441)) < 10)
        #expect(rms(secondHalf) > 0.1 * rms(samples(of: tone)))
    }

    // MARK: AVAudioSourceNode

    @Test("a source node's render block, written as a signal generator, is what the engine renders: a 440 Hz sine at the mixer's outputVolume")
    func signalGenerator() throws {
        // https://developer.apple.com/documentation/avfaudio/building-a-signal-generator
        let engine = try offlineEngine()
        let mainMixer = engine.mainMixerNode
        let output = engine.outputNode
        let outputFormat = engine.manualRenderingFormat
        let oscillator = Oscillator(hertz: 440, amplitude: 0.5, sampleRate: outputFormat.sampleRate)
        let sourceNode = AVAudioSourceNode { _, _, frameCount, audioBufferList -> OSStatus in
            let buffers = UnsafeMutableAudioBufferListPointer(audioBufferList)
            let increment = 2 * Double.pi * oscillator.hertz / oscillator.sampleRate
            for frame in 0..<Int(frameCount) {
                let value = oscillator.amplitude * Float(sin(oscillator.phase))
                oscillator.phase += increment
                if oscillator.phase >= 2 * Double.pi { oscillator.phase -= 2 * Double.pi }
                for buffer in buffers {
                    let samples = UnsafeMutableBufferPointer<Float>(buffer)
                    samples[frame] = value
                }
            }
            return noErr
        }
        let inputFormat = AVAudioFormat(commonFormat: outputFormat.commonFormat, sampleRate: outputFormat.sampleRate,
                                        channels: outputFormat.channelCount, interleaved: outputFormat.isInterleaved)!
        engine.attach(sourceNode)
        engine.connect(sourceNode, to: mainMixer, format: inputFormat)
        engine.connect(mainMixer, to: output, format: outputFormat)
        mainMixer.outputVolume = 0.5
        engine.prepare()
        try engine.start()
        defer { engine.stop() }
        let out = try renderFrames(engine, 24_000)
        // 19,200 frames are exactly 176 periods of 440 Hz at 48 kHz.
        let expectedLevel: Float = 0.5 * 0.5 / Float(2).squareRoot()
        for channel in out {
            let steady = channel[4_800...]
            #expect(abs(zeroCrossingHertz(steady) - 440) < 0.5)
            #expect(abs(rms(steady) - expectedLevel) < 0.01 * expectedLevel)
        }
        #expect(out[0] == out[1])
    }

    // MARK: AVAudioPlayerNode

    @Test("a buffer scheduled with .loops plays again and again: the output is the buffer repeated")
    func playerLoops() throws {
        // https://developer.apple.com/documentation/avfaudio/avaudioplayernodebufferoptions/loops
        let ramp = buffer(from: (0..<480).map { Float($0) / 480 - 0.5 })
        let out = try renderPlayer(ramp, options: .loops, frames: 4_800)
        let expected = (0..<4_800).map { Float($0 % 480) / 480 - 0.5 }
        for channel in out {
            #expect(channel.count == 4_800)
            #expect(zip(channel, expected).allSatisfy { abs($0 - $1) <= 1e-6 })
        }
    }

    @Test("a scheduled buffer plays once from the start of the player's timeline, then silence; its completion handler is called once the player is done with it")
    func playerCompletionHandler() throws {
        // https://developer.apple.com/documentation/avfaudio/avaudioplayernode/schedulebuffer(_:completionhandler:)
        let engine = try offlineEngine()
        let player = AVAudioPlayerNode()
        let burst = buffer(from: (0..<1_000).map { Float($0 + 1) / 1_000 })
        engine.attach(player)
        engine.connect(player, to: engine.mainMixerNode, format: burst.format)
        let consumed = Fired()
        player.scheduleBuffer(burst) { consumed.fire() }
        try engine.start()
        defer { engine.stop() }
        player.play()
        #expect(player.isPlaying)
        let out = try renderFrames(engine, 8_192)
        #expect(consumed.wait())
        #expect(consumed.count == 1)
        let expected = samples(of: burst)
        for channel in out {
            #expect(zip(channel[0..<1_000], expected).allSatisfy { abs($0 - $1) <= 1e-6 })
            #expect(channel[1_000...].allSatisfy { $0 == 0 })
        }
        player.stop()
        #expect(!player.isPlaying)
    }

    @Test("a buffer scheduled at a sample time of the player's timeline starts on that frame, silence before it")
    func playerScheduledAtTime() throws {
        // https://developer.apple.com/documentation/avfaudio/avaudioplayernode/schedulebuffer(_:at:options:completionhandler:)
        let engine = try offlineEngine()
        let player = AVAudioPlayerNode()
        let burst = buffer(from: (0..<1_000).map { Float($0 + 1) / 1_000 })
        engine.attach(player)
        engine.connect(player, to: engine.mainMixerNode, format: burst.format)
        let when = AVAudioTime(sampleTime: 2_400, atRate: burst.format.sampleRate)
        player.scheduleBuffer(burst, at: when, options: [])
        try engine.start()
        defer { engine.stop() }
        player.play()
        let out = try renderFrames(engine, 8_192)
        let expected = samples(of: burst)
        #expect(out[0][0..<2_400].allSatisfy { $0 == 0 })
        #expect(zip(out[0][2_400..<3_400], expected).allSatisfy { abs($0 - $1) <= 1e-6 })
        #expect(out[0][3_400...].allSatisfy { $0 == 0 })
    }

    @Test("a segment of a file plays exactly its frames, and a file scheduled after it follows it directly")
    func playerSegmentThenFile() throws {
        // https://developer.apple.com/documentation/avfaudio/avaudioplayernode/schedulesegment(_:startingframe:framecount:at:completionhandler:)
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("ramp.wav")
        let ramp = (0..<4_800).map { Float($0) / 4_800 - 0.5 }
        do {
            let settings: [String: Any] = [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 48_000.0, AVNumberOfChannelsKey: 2,
                                           AVLinearPCMBitDepthKey: 32, AVLinearPCMIsFloatKey: true]
            let file = try AVAudioFile(forWriting: url, settings: settings)
            let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 4_800)!
            buffer.frameLength = 4_800
            for (frame, sample) in ramp.enumerated() {
                buffer.floatChannelData![0][frame] = sample
                buffer.floatChannelData![1][frame] = -sample
            }
            try file.write(from: buffer)
        }
        let file = try AVAudioFile(forReading: url)
        let engine = try offlineEngine()
        let player = AVAudioPlayerNode()
        engine.attach(player)
        engine.connect(player, to: engine.mainMixerNode, format: file.processingFormat)
        player.scheduleSegment(file, startingFrame: 1_000, frameCount: 2_000, at: nil)
        player.scheduleFile(file, at: nil)
        try engine.start()
        defer { engine.stop() }
        player.play()
        let out = try renderFrames(engine, 8_192)
        let expected = Array(ramp[1_000..<3_000]) + ramp + [Float](repeating: 0, count: 8_192 - 6_800)
        #expect(out[0].count == expected.count)
        #expect(zip(out[0], expected).allSatisfy { abs($0 - $1) <= 1e-6 })
        #expect(zip(out[1], expected).allSatisfy { abs($0 + $1) <= 1e-6 })
    }

    // MARK: AVAudioMixerNode and AVAudioMixing

    @Test("the mixer takes each connection on its next available input bus and sums them at their volumes, times its outputVolume; a mono source panned hard left or right plays on that side only")
    func mixerVolumesAndPan() throws {
        // https://developer.apple.com/documentation/avfaudio/avaudiomixernode
        let engine = try offlineEngine()
        let mixer = engine.mainMixerNode
        let stereo = standardFormat(2)
        let quiet = AVAudioPlayerNode(), loud = AVAudioPlayerNode()
        engine.attach(quiet)
        engine.attach(loud)
        #expect(mixer.nextAvailableInputBus == 0)
        engine.connect(quiet, to: mixer, format: stereo)
        #expect(engine.inputConnectionPoint(for: mixer, inputBus: 0)?.node === quiet)
        #expect(mixer.nextAvailableInputBus == 1)
        engine.connect(loud, to: mixer, format: stereo)
        #expect(engine.inputConnectionPoint(for: mixer, inputBus: 1)?.node === loud)
        quiet.scheduleBuffer(buffer(from: [Float](repeating: 0.25, count: 480)), at: nil, options: .loops)
        loud.scheduleBuffer(buffer(from: [Float](repeating: 0.5, count: 480)), at: nil, options: .loops)
        loud.volume = 0.5
        mixer.outputVolume = 0.8
        #expect(loud.volume == 0.5 && quiet.volume == 1)
        try engine.start()
        quiet.play()
        loud.play()
        let mixed = try renderFrames(engine, 9_600)
        engine.stop()
        let expected: Float = (0.25 * 1 + 0.5 * 0.5) * 0.8
        for channel in mixed { #expect(channel[4_800...].allSatisfy { abs($0 - expected) < 1e-4 }) }

        // https://developer.apple.com/documentation/avfaudio/avaudiostereomixing/pan
        let panned = try offlineEngine()
        let mono = standardFormat(1)
        let leftSource = AVAudioPlayerNode(), rightSource = AVAudioPlayerNode()
        panned.attach(leftSource)
        panned.attach(rightSource)
        panned.connect(leftSource, to: panned.mainMixerNode, format: mono)
        panned.connect(rightSource, to: panned.mainMixerNode, format: mono)
        leftSource.pan = -1
        rightSource.pan = 1
        leftSource.scheduleBuffer(buffer(from: [Float](repeating: 0.5, count: 480), channels: 1), at: nil, options: .loops)
        rightSource.scheduleBuffer(buffer(from: [Float](repeating: 0.25, count: 480), channels: 1), at: nil, options: .loops)
        try panned.start()
        leftSource.play()
        rightSource.play()
        let sides = try renderFrames(panned, 9_600)
        panned.stop()
        // Hard left and hard right are mirror images, so the sides keep the sources' 2 : 1.
        let left = rms(sides[0][4_800...]), right = rms(sides[1][4_800...])
        #expect(left > 0.1)
        #expect(abs(left / right - 2) < 0.02)
    }

    // MARK: Taps

    @Test("a tap on the main mixer's output hands over every frame the offline render made, in order, each buffer stamped where the previous ended; after removeTap nothing more arrives")
    func tapInOfflineRendering() throws {
        // https://developer.apple.com/documentation/avfaudio/avaudionode/installtap(onbus:buffersize:format:block:)
        let engine = try offlineEngine()
        let player = AVAudioPlayerNode()
        let loop = sineBuffer(hertz: 480, amplitude: 0.5, frames: 4_800)
        engine.attach(player)
        engine.connect(player, to: engine.mainMixerNode, format: loop.format)
        let recorder = TapRecorder(waitingFor: 48_000)
        engine.mainMixerNode.installTap(onBus: 0, bufferSize: 4_800, format: nil) { buffer, when in
            recorder.record(buffer, at: when)
        }
        player.scheduleBuffer(loop, at: nil, options: .loops)
        try engine.start()
        defer { engine.stop() }
        player.play()
        let rendered = try renderFrames(engine, 48_000)
        #expect(recorder.waitForTarget())
        engine.mainMixerNode.removeTap(onBus: 0)

        let (tapped, deliveries) = recorder.recorded
        #expect(tapped.count == 48_000)
        #expect(zip(tapped, rendered[0]).allSatisfy { abs($0 - $1) <= 1e-6 })
        #expect(deliveries.allSatisfy { $0.isSampleTimeValid })
        for (earlier, later) in zip(deliveries, deliveries.dropFirst()) {
            #expect(later.sampleTime == earlier.sampleTime + AVAudioFramePosition(earlier.frames))
        }
        _ = try renderFrames(engine, 9_600)
        #expect(recorder.recorded.left.count == tapped.count)
    }

    // MARK: AVAudioSinkNode

    @Test("a sink node has one input bus and no output bus; connected from the input node in the input node's format, its input takes that format")
    func sinkNode() {
        // https://developer.apple.com/documentation/avfaudio/avaudiosinknode
        let engine = AVAudioEngine()
        let sink = AVAudioSinkNode { _, _, _ -> OSStatus in noErr }
        engine.attach(sink)
        let format = engine.inputNode.outputFormat(forBus: 0)
        engine.connect(engine.inputNode, to: sink, format: format)
        #expect(sink.numberOfInputs == 1)
        #expect(sink.numberOfOutputs == 0)
        #expect(sink.inputFormat(forBus: 0) == format)
        #expect(engine.inputConnectionPoint(for: sink, inputBus: 0)?.node === engine.inputNode)
    }

    // MARK: Effects

    @Test("an EQ band boosts its centre frequency by its gain in dB, a high-pass band cuts far below its frequency, a bypassed band does nothing, and globalGain scales everything")
    func equalizer() throws {
        // https://developer.apple.com/documentation/avfaudio/avaudiouniteq
        let fresh = AVAudioUnitEQ(numberOfBands: 3)
        #expect(fresh.bands.count == 3)
        #expect(fresh.bands.allSatisfy { $0.gain == 0 })

        // 1 kHz is 48 frames a period: the 4,800-frame loop is seamless, and 12,000 frames are 250 periods.
        let tone = sineBuffer(hertz: 1_000, amplitude: 0.25, frames: 4_800)
        let inputLevel = rms(samples(of: tone))
        func level(_ configure: (AVAudioUnitEQ) -> Void) throws -> Float {
            let eq = AVAudioUnitEQ(numberOfBands: 1)
            configure(eq)
            let out = try renderPlayer(tone, options: .loops, through: [eq], frames: 24_000)
            return rms(out[0][12_000...])
        }
        let boosted = try level { eq in
            let band = eq.bands[0]
            band.filterType = .parametric
            band.frequency = 1_000
            band.bandwidth = 0.5
            band.gain = 6
            band.bypass = false
        }
        #expect(abs(decibels(boosted / inputLevel) - 6) < 0.2)
        let highPassed = try level { eq in
            let band = eq.bands[0]
            band.filterType = .highPass
            band.frequency = 8_000
            band.bypass = false
        }
        // A second-order high-pass three octaves below its cutoff: about −36 dB.
        #expect(decibels(highPassed / inputLevel) < -30)
        let bypassed = try level { eq in
            let band = eq.bands[0]
            band.filterType = .parametric
            band.frequency = 1_000
            band.gain = 6
            band.bypass = true
        }
        #expect(abs(decibels(bypassed / inputLevel)) < 0.1)
        let quieter = try level { eq in
            eq.bands[0].bypass = true
            eq.globalGain = -6
        }
        #expect(abs(decibels(quieter / inputLevel) + 6) < 0.2)
    }

    @Test("a delay has Apple's documented defaults; all wet, an impulse comes out delayTime later, and each echo is feedback % of the one before")
    func delay() throws {
        // https://developer.apple.com/documentation/avfaudio/avaudiounitdelay
        let defaults = AVAudioUnitDelay()
        #expect(defaults.delayTime == 1)
        #expect(defaults.feedback == 50)
        #expect(defaults.lowPassCutoff == 15_000)
        #expect(defaults.wetDryMix == 100)

        let delay = AVAudioUnitDelay()
        delay.delayTime = 0.05
        delay.feedback = 50
        delay.wetDryMix = 100
        let impulse = buffer(from: [1])
        let out = try renderPlayer(impulse, through: [delay], frames: 9_600)[0]
        // 0.05 s is 2,400 frames. The low-pass in the loop smears each echo but keeps its
        // area (its gain at 0 Hz is 1), so each echo's sum is its gain.
        #expect(out[0..<2_300].allSatisfy { abs($0) < 1e-3 })
        let firstEcho = out[2_300..<4_700], secondEcho = out[4_700..<7_100]
        let peak = firstEcho.indices.max { abs(out[$0]) < abs(out[$1]) } ?? 0
        #expect(abs(peak - 2_400) <= 4)
        #expect(abs(firstEcho.reduce(0, +) - 1) < 0.02)
        #expect(abs(secondEcho.reduce(0, +) - 0.5) < 0.02)
    }

    @Test("a reverb with a factory preset: all dry (wetDryMix 0) it passes a burst unchanged and adds nothing after; all wet a tail rings on after the burst")
    func reverb() throws {
        // https://developer.apple.com/documentation/avfaudio/avaudiounitreverb
        let burst = sineBuffer(hertz: 480, amplitude: 0.5, frames: 4_800)
        let burstLevel = rms(samples(of: burst))
        func render(wetDryMix: Float) throws -> [Float] {
            let reverb = AVAudioUnitReverb()
            reverb.loadFactoryPreset(.mediumHall)
            reverb.wetDryMix = wetDryMix
            return try renderPlayer(burst, through: [reverb], frames: 48_000)[0]
        }
        let dry = try render(wetDryMix: 0)
        // The burst's energy spread over twice its length.
        let spread = burstLevel / Float(2).squareRoot()
        #expect(abs(rms(dry[0..<9_600]) - spread) < 0.01 * spread)
        #expect(rms(dry[9_600...]) < 1e-4 * burstLevel)
        let wet = try render(wetDryMix: 100)
        #expect(decibels(rms(wet[14_400..<28_800]) / burstLevel) > -50)
    }

    @Test("a distortion preset puts harmonics on a pure tone; all dry (wetDryMix 0) the tone stays pure")
    func distortion() throws {
        // https://developer.apple.com/documentation/avfaudio/avaudiounitdistortion
        // 480 Hz is 100 frames a period: 9,600 frames hold whole periods of it and its harmonics.
        let tone = sineBuffer(hertz: 480, amplitude: 0.5, frames: 4_800)
        func harmonicRatio(_ signal: ArraySlice<Float>) -> Double {
            let fundamental = amplitude(at: 480, in: signal)
            return max(amplitude(at: 960, in: signal), amplitude(at: 1_440, in: signal)) / fundamental
        }
        func render(wetDryMix: Float) throws -> [Float] {
            let distortion = AVAudioUnitDistortion()
            distortion.loadFactoryPreset(.multiDistortedCubed)
            distortion.wetDryMix = wetDryMix
            return try renderPlayer(tone, options: .loops, through: [distortion], frames: 24_000)[0]
        }
        #expect(harmonicRatio(samples(of: tone)[...]) < 1e-4)
        let distorted = try render(wetDryMix: 100)
        #expect(harmonicRatio(distorted[14_400..<24_000]) > 0.01)
        let clean = try render(wetDryMix: 0)
        #expect(harmonicRatio(clean[14_400..<24_000]) < 1e-3)
    }

    @Test("time-pitch: defaults rate 1, pitch 0, overlap 8; pitch +1200 cents raises a tone an octave; rate 2 plays it twice as fast at the same pitch")
    func timePitch() throws {
        // https://developer.apple.com/documentation/avfaudio/avaudiounittimepitch
        let defaults = AVAudioUnitTimePitch()
        #expect(defaults.rate == 1)
        #expect(defaults.pitch == 0)
        #expect(defaults.overlap == 8)

        let loop = sineBuffer(hertz: 480, amplitude: 0.5, frames: 4_800)
        let octaveUp = AVAudioUnitTimePitch()
        octaveUp.pitch = 1_200
        let raised = try renderPlayer(loop, options: .loops, through: [octaveUp], frames: 48_000)[0]
        #expect(abs(cents(zeroCrossingHertz(raised[24_000...]), from: 480) - 1_200) < 10)

        let oneSecond = sineBuffer(hertz: 480, amplitude: 0.5, frames: 48_000)
        let faster = AVAudioUnitTimePitch()
        faster.rate = 2
        let sped = try renderPlayer(oneSecond, through: [faster], frames: 48_000)[0]
        // One second at rate 2 lasts half a second (plus the unit's latency), at 480 Hz.
        #expect(abs(cents(zeroCrossingHertz(sped[7_200..<19_200]), from: 480)) < 10)
        #expect(rms(sped[38_400...]) < 0.01 * rms(samples(of: oneSecond)))
    }

    @Test("varispeed: default rate 1; rate 2 plays a tone twice as fast and 1200 · log2(2) = 1200 cents higher")
    func varispeed() throws {
        // https://developer.apple.com/documentation/avfaudio/avaudiounitvarispeed/rate
        #expect(AVAudioUnitVarispeed().rate == 1)
        let oneSecond = sineBuffer(hertz: 480, amplitude: 0.5, frames: 48_000)
        let varispeed = AVAudioUnitVarispeed()
        varispeed.rate = 2
        let out = try renderPlayer(oneSecond, through: [varispeed], frames: 48_000)[0]
        let expectedCents = 1_200 * log2(Double(varispeed.rate))
        #expect(abs(cents(zeroCrossingHertz(out[4_800..<19_200]), from: 480) - expectedCents) < 10)
        #expect(rms(out[33_600...]) < 0.01 * rms(samples(of: oneSecond)))
    }

    // MARK: Formats, buffers, files, converters, times

    @Test("the standard format is 32-bit float deinterleaved; a common format's stream description follows from its sample type, channels and interleaving; settings describe a format back")
    func formats() {
        // https://developer.apple.com/documentation/avfaudio/avaudioformat
        let standard = AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!
        #expect(standard.isStandard)
        #expect(standard.commonFormat == .pcmFormatFloat32)
        #expect(!standard.isInterleaved)
        #expect(standard.sampleRate == 44_100 && standard.channelCount == 2)
        #expect(standard == AVAudioFormat(commonFormat: .pcmFormatFloat32, sampleRate: 44_100, channels: 2, interleaved: false)!)
        let floats = standard.streamDescription.pointee
        #expect(floats.mFormatID == kAudioFormatLinearPCM)
        #expect(floats.mSampleRate == 44_100 && floats.mChannelsPerFrame == 2)
        // Deinterleaved: each buffer holds one channel, so a frame of it is one 4-byte sample.
        #expect(floats.mBitsPerChannel == 32 && floats.mBytesPerFrame == 4)
        #expect(floats.mFormatFlags & kAudioFormatFlagIsFloat != 0)
        #expect(floats.mFormatFlags & kAudioFormatFlagIsNonInterleaved != 0)

        let int16 = AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 48_000, channels: 2, interleaved: true)!
        #expect(!int16.isStandard && int16.isInterleaved && int16.commonFormat == .pcmFormatInt16)
        let shorts = int16.streamDescription.pointee
        // Interleaved: a frame is every channel's 2-byte sample.
        #expect(shorts.mBitsPerChannel == 16)
        #expect(shorts.mBytesPerFrame == 2 * shorts.mChannelsPerFrame)
        #expect(shorts.mFramesPerPacket == 1 && shorts.mBytesPerPacket == shorts.mBytesPerFrame)
        #expect(shorts.mFormatFlags & kAudioFormatFlagIsSignedInteger != 0)
        #expect(shorts.mFormatFlags & kAudioFormatFlagIsNonInterleaved == 0)
        #expect(AVAudioFormat(settings: int16.settings) == int16)
        #expect(AVAudioFormat(settings: standard.settings) == standard)
    }

    @Test("a PCM buffer starts empty with the capacity asked for; frameLength says how much holds audio, up to the capacity; interleaved data is one pointer with a stride of the channel count")
    func pcmBuffers() throws {
        // https://developer.apple.com/documentation/avfaudio/avaudiopcmbuffer
        let format = standardFormat(2)
        let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 1_024)!
        #expect(buffer.frameCapacity == 1_024)
        #expect(buffer.frameLength == 0)
        #expect(buffer.format == format)
        #expect(buffer.stride == 1)
        #expect(buffer.floatChannelData != nil && buffer.int16ChannelData == nil && buffer.int32ChannelData == nil)
        buffer.frameLength = 256
        #expect(buffer.frameLength <= buffer.frameCapacity)
        for frame in 0..<256 {
            buffer.floatChannelData![0][frame] = Float(frame) / 256
            buffer.floatChannelData![1][frame] = -Float(frame) / 256
        }

        let interleaved = AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 48_000, channels: 2, interleaved: true)!
        let shorts = AVAudioPCMBuffer(pcmFormat: interleaved, frameCapacity: 256)!
        #expect(shorts.stride == 2)
        #expect(shorts.int16ChannelData != nil && shorts.floatChannelData == nil)
        shorts.frameLength = 256
        let data = shorts.int16ChannelData![0]
        for frame in 0..<256 {
            data[frame * shorts.stride] = Int16(frame * 128)
            data[frame * shorts.stride + 1] = -Int16(frame * 128)
        }
        // Read back through a converter into the float buffer's layout: frame × 128 / 32768 = frame / 256.
        let converter = try #require(AVAudioConverter(from: interleaved, to: format))
        let floats = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 256)!
        try converter.convert(to: floats, from: shorts)
        #expect(floats.frameLength == 256)
        #expect(samples(of: floats, channel: 0) == samples(of: buffer, channel: 0))
        #expect(samples(of: floats, channel: 1) == samples(of: buffer, channel: 1))
    }

    @Test("a file written from settings takes buffers in its float processing format and stores 16-bit samples; read back it has the length written and the samples to within a step, from any framePosition")
    func audioFile() throws {
        // https://developer.apple.com/documentation/avfaudio/avaudiofile
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("tone.wav")
        let settings: [String: Any] = [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 44_100.0, AVNumberOfChannelsKey: 2,
                                       AVLinearPCMBitDepthKey: 16, AVLinearPCMIsFloatKey: false, AVLinearPCMIsBigEndianKey: false]
        let tone = sineBuffer(hertz: 441, amplitude: 0.5, frames: 2_205, rate: 44_100)
        do {
            let file = try AVAudioFile(forWriting: url, settings: settings)
            #expect(file.processingFormat == standardFormat(2, rate: 44_100))
            #expect(file.fileFormat.commonFormat == .pcmFormatInt16)
            try file.write(from: tone)
            #expect(file.length == 2_205)
            try file.write(from: tone)
            #expect(file.length == 4_410)
        }

        let file = try AVAudioFile(forReading: url)
        #expect(file.length == 4_410)
        #expect(file.fileFormat.sampleRate == 44_100 && file.fileFormat.channelCount == 2)
        #expect(file.fileFormat.commonFormat == .pcmFormatInt16)
        #expect(file.processingFormat.commonFormat == .pcmFormatFloat32 && !file.processingFormat.isInterleaved)
        let written = samples(of: tone) + samples(of: tone)
        let step = Float(1) / 32_767
        let all = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(file.length))!
        try file.read(into: all)
        #expect(all.frameLength == 4_410)
        #expect(file.framePosition == 4_410)
        for channel in 0..<2 {
            #expect(zip(samples(of: all, channel: channel), written).allSatisfy { abs($0 - $1) <= step })
        }
        file.framePosition = 441
        let part = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 1_000)!
        try file.read(into: part, frameCount: 441)
        #expect(part.frameLength == 441)
        #expect(file.framePosition == 882)
        #expect(zip(samples(of: part), written[441..<882]).allSatisfy { abs($0 - $1) <= step })
    }

    @Test("convert(to:from:) converts sample type and interleaving at one rate, frame for frame: float x becomes the 16-bit integer x · 32768")
    func converterBasic() throws {
        // https://developer.apple.com/documentation/avfaudio/avaudioconverter/convert(to:from:)
        let input = sineBuffer(hertz: 1_000, amplitude: 0.5, frames: 480)
        for frame in 0..<480 { input.floatChannelData![1][frame] = -input.floatChannelData![1][frame] }
        let int16 = AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 48_000, channels: 2, interleaved: true)!
        let converter = try #require(AVAudioConverter(from: input.format, to: int16))
        let output = AVAudioPCMBuffer(pcmFormat: int16, frameCapacity: input.frameLength)!
        try converter.convert(to: output, from: input)
        #expect(output.frameLength == input.frameLength)
        let ints = output.int16ChannelData![0]
        var worst: Float = 0
        for frame in 0..<480 {
            for channel in 0..<2 {
                let expected = input.floatChannelData![channel][frame] * 32_768
                worst = max(worst, abs(Float(ints[frame * output.stride + channel]) - expected))
            }
        }
        #expect(worst <= 1)
    }

    @Test("a change of rate goes through the input-block form: 44.1 kHz to 48 kHz keeps a tone's frequency and scales its length by 48/44.1")
    func converterSampleRate() throws {
        // https://developer.apple.com/documentation/avfaudio/avaudioconverter/convert(to:error:withinputfrom:)
        let input = sineBuffer(hertz: 1_000, amplitude: 0.5, frames: 44_100, channels: 1, rate: 44_100)
        let outputFormat = standardFormat(1, rate: 48_000)
        let converter = try #require(AVAudioConverter(from: input.format, to: outputFormat))
        let source = OneShotInput(input)
        let output = AVAudioPCMBuffer(pcmFormat: outputFormat, frameCapacity: 4_096)!
        var converted: [Float] = []
        var status = AVAudioConverterOutputStatus.haveData
        var calls = 0
        while status == .haveData, calls < 100 {
            calls += 1
            var error: NSError?
            status = converter.convert(to: output, error: &error) { _, inputStatus in source.next(inputStatus) }
            #expect(status != .error, "\(String(describing: error))")
            converted += samples(of: output)
        }
        #expect(status == .endOfStream)
        let expectedLength = Double(input.frameLength) * outputFormat.sampleRate / input.format.sampleRate
        #expect(abs(Double(converted.count) - expectedLength) <= 16)
        #expect(converted.count > 40_000)
        if converted.count > 40_000 {
            #expect(abs(zeroCrossingHertz(converted[8_000..<40_000]) - 1_000) < 1)
        }
    }

    @Test("an AVAudioTime is valid for what it was made from; host ticks and seconds convert both ways; extrapolated from an anchor, a time gains what it lacked at the anchor's rate")
    func audioTime() throws {
        // https://developer.apple.com/documentation/avfaudio/avaudiotime
        let sampleOnly = AVAudioTime(sampleTime: 4_800, atRate: 48_000)
        #expect(sampleOnly.isSampleTimeValid && !sampleOnly.isHostTimeValid)
        #expect(sampleOnly.sampleTime == 4_800 && sampleOnly.sampleRate == 48_000)

        let anchorHost = AVAudioTime.hostTime(forSeconds: 1_000)
        let hostOnly = AVAudioTime(hostTime: anchorHost)
        #expect(hostOnly.isHostTimeValid && !hostOnly.isSampleTimeValid)
        #expect(hostOnly.hostTime == anchorHost)
        #expect(abs(AVAudioTime.seconds(forHostTime: anchorHost) - 1_000) < 1e-6)

        let anchor = AVAudioTime(hostTime: anchorHost, sampleTime: 0, atRate: 48_000)
        #expect(anchor.isHostTimeValid && anchor.isSampleTimeValid)
        let later = try #require(AVAudioTime(sampleTime: 96_000, atRate: 48_000).extrapolateTime(fromAnchor: anchor))
        #expect(later.isHostTimeValid && later.sampleTime == 96_000)
        let elapsed = AVAudioTime.seconds(forHostTime: later.hostTime) - AVAudioTime.seconds(forHostTime: anchorHost)
        #expect(abs(elapsed - 2) < 1e-6)
        let halfSecondOn = AVAudioTime(hostTime: anchorHost + AVAudioTime.hostTime(forSeconds: 0.5))
        let placed = try #require(halfSecondOn.extrapolateTime(fromAnchor: anchor))
        #expect(placed.isSampleTimeValid)
        #expect(abs(placed.sampleTime - 24_000) <= 1)
    }

    // MARK: AVAudioEnvironmentNode and AVAudio3DMixing

    @Test("in an environment node, with equal-power panning, a mono source ahead plays equally on both sides, to the listener's right (+x) from the right, and from the left once the listener moves past it; the total power stays the same")
    func environmentDirection() throws {
        // https://developer.apple.com/documentation/avfaudio/avaudioenvironmentnode
        let scene = try EnvironmentScene()
        #expect(scene.environment.nextAvailableInputBus == 1)
        let listener = scene.environment.listenerPosition
        #expect(listener.x == 0 && listener.y == 0 && listener.z == 0)
        let orientation = scene.environment.listenerAngularOrientation
        #expect(orientation.yaw == 0 && orientation.pitch == 0 && orientation.roll == 0)

        scene.player.position = AVAudio3DPoint(x: 0, y: 0, z: -1)
        let ahead = try scene.levels()
        scene.player.position = AVAudio3DPoint(x: 1, y: 0, z: 0)
        let right = try scene.levels()
        scene.environment.listenerPosition = AVAudio3DPoint(x: 2, y: 0, z: 0)
        let left = try scene.levels()

        #expect(ahead.left > 0.05)
        #expect(abs(ahead.left - ahead.right) < 0.01 * ahead.left)
        #expect(right.right > 2 * right.left)
        #expect(left.left > 2 * left.right)
        // Equal power: left² + right² is the same wherever the source sits at one distance.
        let aheadPower = ahead.left * ahead.left + ahead.right * ahead.right
        let rightPower = right.left * right.left + right.right * right.right
        let leftPower = left.left * left.left + left.right * left.right
        #expect(abs(rightPower / aheadPower - 1) < 0.02)
        #expect(abs(leftPower / aheadPower - 1) < 0.02)
    }

    @Test("distance attenuation: by default inverse with reference 1, so a source at 2 m is half as loud (−6.02 dB) as at 1 m; linear fades to silence at maximumDistance; outputVolume scales every source")
    func environmentDistance() throws {
        // https://developer.apple.com/documentation/avfaudio/avaudioenvironmentdistanceattenuationparameters
        let scene = try EnvironmentScene()
        let parameters = scene.environment.distanceAttenuationParameters
        #expect(parameters.distanceAttenuationModel == .inverse)
        #expect(parameters.referenceDistance == 1)
        #expect(parameters.maximumDistance == 100_000)
        #expect(parameters.rolloffFactor == 1)

        // gain = reference / (reference + rolloff · (distance − reference))
        func inverseGain(_ distance: Float) -> Float {
            parameters.referenceDistance / (parameters.referenceDistance + parameters.rolloffFactor * (distance - parameters.referenceDistance))
        }
        scene.player.position = AVAudio3DPoint(x: 0, y: 0, z: -1)
        let near = try scene.levels().left
        scene.player.position = AVAudio3DPoint(x: 0, y: 0, z: -2)
        let far = try scene.levels().left
        #expect(near > 0.05)
        #expect(abs(far / near - inverseGain(2) / inverseGain(1)) < 0.01)
        #expect(abs(decibels(far / near) + 6.02) < 0.1)

        scene.player.position = AVAudio3DPoint(x: 0, y: 0, z: -1)
        scene.environment.outputVolume = 0.5
        let halfVolume = try scene.levels().left
        #expect(abs(halfVolume / near - 0.5) < 0.01)
        scene.environment.outputVolume = 1

        // gain = 1 − rolloff · (distance − reference) / (maximum − reference)
        parameters.distanceAttenuationModel = .linear
        parameters.referenceDistance = 1
        parameters.maximumDistance = 10
        parameters.rolloffFactor = 1
        scene.player.position = AVAudio3DPoint(x: 0, y: 0, z: -5.5)
        let halfway = try scene.levels().left
        let linearGain: Float = 1 - (5.5 - 1) / (10 - 1)
        #expect(abs(halfway / near - linearGain) < 0.01)
        scene.player.position = AVAudio3DPoint(x: 0, y: 0, z: -10)
        let atMaximum = try scene.levels()
        #expect(atMaximum.left < 1e-3 * near && atMaximum.right < 1e-3 * near)
    }

    // MARK: Manual rendering input

    @Test("in manual rendering, the input node pulls its audio from the block given to setManualRenderingInputPCMFormat, and what renders is what the block fed")
    func manualRenderingInput() throws {
        // https://developer.apple.com/documentation/avfaudio/avaudioinputnode/setmanualrenderinginputpcmformat(_:inputblock:)
        let format = standardFormat(2)
        let engine = AVAudioEngine()
        try engine.enableManualRenderingMode(.offline, format: format, maximumFrameCount: 1_024)
        let frames = 8_192
        let left = (0..<frames).map { 0.5 * Float(sin(2 * Double.pi * 480 * Double($0) / 48_000)) }
        let right = (0..<frames).map { Float($0 % 1_000) / 1_000 - 0.5 }
        let feed = InputFeed(channels: [left, right])
        let accepted = engine.inputNode.setManualRenderingInputPCMFormat(format) { frameCount in
            feed.next(frameCount)
        }
        #expect(accepted)
        engine.connect(engine.inputNode, to: engine.mainMixerNode, format: format)
        try engine.start()
        defer { engine.stop() }
        let rendered = try renderFrames(engine, frames)
        #expect(rendered[0].count == frames)
        #expect(zip(rendered[0], left).allSatisfy { abs($0 - $1) <= 1e-6 })
        #expect(zip(rendered[1], right).allSatisfy { abs($0 - $1) <= 1e-6 })
        #expect(feed.framesGiven == frames)
    }
}
