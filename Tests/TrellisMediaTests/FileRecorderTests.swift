import Foundation
import Testing
import TrellisTestSupport
import TrellisAudioFile
import TrellisCore
import TrellisGraph
import TrellisMedia
import TrellisUnits

/// input -> recorder -> output, initialized.
private func recorderGraph(channels: Int = 2, sampleRate: Double = 48_000) throws -> (Graph, FileRecorder) {
    let graph = Graph(registry: BuiltInUnits.registry(), sampleRate: sampleRate, maximumFrames: 1024)
    let input = try graph.addNode(GraphInput(channelCount: channels), name: "in")
    let recorder = FileRecorder(channelCount: channels)
    let node = try graph.addNode(recorder, name: "recorder")
    let output = try graph.addNode(GenericOutput(channelCount: channels), name: "out")
    try graph.connect(input, to: node)
    try graph.connect(node, to: output)
    try graph.initialize()
    return (graph, recorder)
}

@Suite("File recorder")
struct FileRecorderTests {
    static let cases: [(AudioFileContainer, SampleType)] =
        [SampleType.float32, .int16, .int24, .int32].flatMap { [(AudioFileContainer.wav, $0), (.caf, $0)] }
        + [(.flac, .int16), (.flac, .int24)]

    @Test("recording a known signal to WAV, FLAC and CAF in each sample type gives the signal back exactly", arguments: cases)
    func roundTrip(container: AudioFileContainer, sampleType: SampleType) throws {
        let directory = TemporaryDirectory()
        let path = directory.file("take.\(container.rawValue)")
        let (graph, recorder) = try recorderGraph()
        try recorder.prepareToRecord(path: path, settings: RecordingSettings(encoding: .pcm(sampleType)))
        try recorder.record()
        let frames = 30_000
        var passed: [Float] = []
        renderOffline(graph, frames: frames, slice: 700, input: { buffers, count, start in
            for channel in 0..<2 {
                for index in 0..<count {
                    buffers[channel][index] = quantized(signal(Int(start) + index, channel: channel), to: sampleType)
                }
            }
        }) { output, count, _ in passed += UnsafeBufferPointer(start: output[0], count: count) }
        #expect(try recorder.stop() == frames)
        let reader = try AudioFileReader(path: path)
        #expect(reader.info.encoding == .pcm(sampleType))
        let channels = try reader.readAll()
        for channel in 0..<2 {
            #expect(channels[channel] == (0..<frames).map { quantized(signal($0, channel: channel), to: sampleType) })
        }
        #expect(passed == channels[0])
    }

    @Test("a WAV with Ogg-only settings is refused before anything is created", arguments: [
        (AudioFileContainer.wav, RecordingEncoding.vorbis), (.ogg, .pcm(.int16)), (.flac, .pcm(.float32)),
    ])
    func refusedSettings(container: AudioFileContainer, encoding: RecordingEncoding) throws {
        let directory = TemporaryDirectory()
        let path = directory.file("refused.\(container.rawValue)")
        let (_, recorder) = try recorderGraph()
        #expect {
            try recorder.prepareToRecord(path: path, settings: RecordingSettings(encoding: encoding))
        } throws: { error in
            "\(error)".contains(path) && "\(error)".contains("\(container) cannot hold \(encoding)") && !"\(error)".contains("fmt?")
        }
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(throws: MediaError.self) { try recorder.record() }
    }

    @Test("Ogg Vorbis records from float and decodes close to the signal")
    func vorbis() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("take.ogg")
        let (graph, recorder) = try recorderGraph(channels: 1)
        try recorder.prepareToRecord(path: path, settings: RecordingSettings(encoding: .vorbis))
        try recorder.record()
        drive(graph, frames: 48_000, input: { buffers, count, start in
            for index in 0..<count { buffers[0][index] = Float(0.5 * sin(2 * Double.pi * 440 * Double(Int(start) + index) / 48_000)) }
        })
        try recorder.stop()
        let decoded = try AudioFileReader(path: path).readAll()[0]
        #expect(decoded.count == 48_000)
        let error = maxDeviation(decoded, from: 4800, to: 43_200, frequency: 440, amplitude: 0.5, sampleRate: 48_000)
        #expect(error < 0.05)
    }

    @Test("recording from a sample time for a length takes exactly that window and closes the file itself")
    func window() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("window.wav")
        let (graph, recorder) = try recorderGraph(channels: 1)
        let finished = Locked<Int?>(nil)
        recorder.addListener { note in
            if case .finished(let frames, nil) = note { finished.withLock { $0 = frames } }
        }
        try recorder.prepareToRecord(path: path)
        try recorder.record(atSampleTime: 1_234, frameCount: 5_000)
        drive(graph, frames: 10_000, slice: 256, input: signalInput)
        #expect(eventually { finished.current == 5_000 })
        #expect(recorder.recorderState == .idle)
        let samples = try AudioFileReader(path: path).readAll()[0]
        #expect(samples == (1_234..<6_234).map { signal($0) })
    }

    @Test("pause leaves a gap out of the file and record resumes the same file")
    func pauseAndResume() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("pause.caf")
        let (graph, recorder) = try recorderGraph(channels: 1)
        try recorder.prepareToRecord(path: path)
        try recorder.record()
        drive(graph, frames: 1000, slice: 250, input: signalInput)
        recorder.pause()
        drive(graph, frames: 1000, slice: 250, start: 1000, input: signalInput)
        try recorder.record()
        drive(graph, frames: 1000, slice: 250, start: 2000, input: signalInput)
        #expect(try recorder.stop() == 2000)
        let samples = try AudioFileReader(path: path).readAll()[0]
        #expect(samples == (0..<1000).map { signal($0) } + (2000..<3000).map { signal($0) })
    }

    @Test("a recorder watching a bus as an observer records it without being in its path, at another rate and width")
    func observerWithConversion() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("observed.wav")
        let graph = Graph(registry: BuiltInUnits.registry(), maximumFrames: 512)
        let tone = try graph.addNode(ToneGenerator(channelCount: 2), name: "tone")
        try graph.setParameter(tone, "freq", 1000)
        try graph.setParameter(tone, "amp", 0.5)
        let output = try graph.addNode(GenericOutput(channelCount: 2), name: "out")
        try graph.connect(tone, to: output)
        try graph.initialize()
        let recorder = FileRecorder(channelCount: 2, sampleRate: 48_000)
        try recorder.prepareToRecord(path: path, settings: RecordingSettings(sampleRate: 44_100, channelCount: 1))
        try graph.addObserver(recorder, node: tone)
        try recorder.record()
        drive(graph, frames: 48_000)
        try recorder.stop()
        let reader = try AudioFileReader(path: path)
        #expect(reader.info.sampleRate == 44_100)
        #expect(reader.info.channelCount == 1)
        #expect(abs(reader.info.frameCount - 44_100) <= 2)
        let samples = try reader.readAll()[0]
        // The stereo tone averaged to mono is the same sine; resampled, it keeps 1 kHz.
        let worst = maxDeviation(samples, from: 2000, to: 42_000, frequency: 1000, amplitude: 0.5, sampleRate: 44_100)
        #expect(worst < 1e-3)
    }

    @Test("a write failure (a full disk) is reported once while the audio keeps flowing")
    func fullDisk() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("full.wav")
        let (graph, recorder) = try recorderGraph(channels: 1)
        let failures = Locked<[MediaError]>([])
        recorder.addListener { note in
            if case .writeFailed(let error) = note { failures.withLock { $0.append(error) } }
        }
        try recorder.prepareToRecord(path: path)
        try recorder.record()
        var passed: [Float] = []
        drive(graph, frames: 5_000, input: signalInput)
        // The disk fills up: from now on the file's descriptor writes to /dev/full (ENOSPC).
        try redirectDescriptor(of: path, to: "/dev/full")
        renderOffline(graph, frames: 20_000, start: 5_000, input: signalInput) { output, count, _ in
            passed += UnsafeBufferPointer(start: output[0], count: count)
        }
        #expect(eventually { failures.current.count == 1 })
        #expect(passed == (5_000..<25_000).map { signal($0) })
        #expect(throws: MediaError.self) { try recorder.stop() }
        #expect(recorder.overrunFrames == 0)
        #expect(failures.current.first.map { "\($0)".contains("full.wav") } == true)
    }

    @Test("the recorder meters its input as AVAudioRecorder does")
    func recorderMeters() throws {
        let directory = TemporaryDirectory()
        let (graph, recorder) = try recorderGraph(channels: 1)
        try recorder.prepareToRecord(path: directory.file("m.wav"))
        recorder.updateMeters()
        drive(graph, frames: 4800, input: { buffers, count, _ in buffers[0].update(repeating: 0.25, count: count) })
        recorder.updateMeters()
        #expect(abs(recorder.peakPower(forChannel: 0) - Float(20 * log10(0.25))) < 1e-4)
        #expect(abs(recorder.averagePower(forChannel: 0) - Float(20 * log10(0.25))) < 1e-4)
        try recorder.stop()
    }
}

/// The largest difference between `samples` and a sine, over a range of frames.
func maxDeviation(_ samples: [Float], from start: Int, to end: Int, frequency: Double, amplitude: Double, sampleRate: Double) -> Float {
    var worst: Float = 0
    for frame in start..<end {
        let expected = Float(amplitude * sin(2 * Double.pi * frequency * Double(frame) / sampleRate))
        worst = max(worst, abs(samples[frame] - expected))
    }
    return worst
}

