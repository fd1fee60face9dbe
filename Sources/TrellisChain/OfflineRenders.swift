import TrellisAudioFile
import TrellisCore
import TrellisEngine
import TrellisGraph
import TrellisMedia
import TrellisOffline
import TrellisSession
import TrellisUnits

/// `trellis render` and `trellis chain` from files to a file, without their progress
/// bars and loudness reports: what the C interface renders.
public enum OfflineRenders {
    /// Renders the session at `path` into `output` as `trellis render PATH --input …
    /// -o OUTPUT` does; `duration` nil for as long as its players play. Returns the
    /// frames written.
    public static func session(
        path: String, inputs assignments: [String], duration: Double?, output: String, registry: ComponentRegistry
    ) throws(CommandError) -> Int {
        var options = SessionLoadOptions()
        options.defaultThreads = Parallelism.processorCount
        let loaded: LoadedSession
        do { loaded = try SessionLoader.load(path: path, registry: registry, options: options) } catch {
            throw CommandError("\(error)", kind: .session)
        }
        let graph = loaded.graph
        let uses = loaded.players.map(\.path) + loaded.recorders.map(\.path)
            + assignments.compactMap { text in text.firstIndex(of: "=").map { String(text[text.index(after: $0)...]) } }
        if uses.contains(where: { FileChecks.sameFile($0, output) }) {
            throw CommandError("render: \(output) is a file this render uses; writing it would destroy it, so name another file", kind: .file)
        }
        let inputs = try SessionInputs.files(for: loaded, assignments: assignments, conversion: ConverterEdge(graph).quality)
        let length = try RenderLength(duration: duration, played: loaded.playedFrames, sampleRate: graph.sampleRate, session: path,
                                      playsFiles: !loaded.players.isEmpty)
        do { try OfflineRenderer.prepareForOffline(graph) } catch { throw CommandError("render: \(error)", kind: .session) }
        guard (graph.plan?.outputChannelCount ?? 0) > 0 else {
            throw CommandError("render: \(path) has no output node, so it has no audio to write (it only sends MIDI)", kind: .session)
        }
        let recorders: [FileRecorder]
        do {
            recorders = try loaded.startTransport(atSampleTime: 0, clock: loaded.loadedDocument.transport ?? TransportSpec(), rolling: true)
        } catch { throw CommandError("\(error)", kind: .session) }
        let written: Int
        do {
            written = try OfflineRenderer(graph: graph).render(
                frameCount: length.frames, to: output, dither: ConverterEdge(graph).dither ?? true, inputs: inputs)
        } catch { throw CommandError("render: \(error)", kind: .file) }
        for recorder in recorders {
            do { _ = try recorder.stop() } catch { throw CommandError("render: \(error)", kind: .file) }
        }
        return written
    }

    /// Renders `source` (an audio file, a MIDI file, or a tone with its settings) through
    /// `units` into `output` as `trellis chain SOURCE ! UNITS ! OUTPUT` does; nil
    /// `sampleRate` for the source's, nil `duration` for the source's length.
    public static func chain(
        source: String, units: String, sampleRate: Double?, duration: Double?, output: String, registry: ComponentRegistry
    ) throws(CommandError) -> Int {
        let sourceWords = try ChainText.words(source), unitWords = try ChainText.words(units)
        let pipeline = try ChainPipeline(arguments: sourceWords + (unitWords.isEmpty ? [] : ["!"] + unitWords) + ["!", output])
        if let sampleRate, !(sampleRate >= 1_000 && sampleRate <= 768_000) {
            throw CommandError("sample rate \(sampleRate): give a rate from 1000 to 768000 Hz", kind: .argument)
        }
        if let duration, !(duration.isFinite && duration > 0 && duration <= RenderLength.durationLimit) {
            throw CommandError("duration \(duration): give seconds above 0 and at most \(Int(RenderLength.durationLimit))", kind: .argument)
        }
        guard !["jack", "midi"].contains(pipeline.source.word) else {
            throw CommandError("chain: a \(pipeline.source.word) source runs live; render from a file or a tone", kind: .argument)
        }
        if pipeline.source.word != "tone", FileChecks.sameFile(pipeline.source.word, output) {
            throw CommandError("chain: the output \(output) is the source file; writing it would destroy it, so name another file", kind: .file)
        }
        var rate = sampleRate
        if rate == nil { rate = try pipeline.converterRate() }
        let built = try ChainBuilder(registry: registry, blockSize: OfflineRenderer.preferredSliceFrames, rate: rate).build(pipeline)
        let graph = built.graph
        let frames: Int
        if let duration {
            frames = Int((duration * graph.sampleRate).rounded())
        } else if let input = built.input {
            frames = Int((Double(input.info.frameCount) * graph.sampleRate / input.info.sampleRate).rounded())
        } else if let song = built.song {
            frames = Int(((song.duration + LoadedSession.midiTail) * graph.sampleRate).rounded(.up))
        } else {
            throw CommandError("chain: a \(pipeline.source.word) source has no end; give a duration", kind: .argument)
        }
        let edge = ConverterEdge(graph)
        do {
            return try OfflineRenderer(graph: graph).render(
                frameCount: frames, to: output, dither: edge.dither ?? true, input: built.input, conversion: edge.quality)
        } catch { throw CommandError("chain: \(error)", kind: .file) }
    }
}
