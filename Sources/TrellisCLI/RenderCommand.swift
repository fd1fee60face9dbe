import Foundation
import ArgumentParser
import TrellisChain
import TrellisAudioFile
import TrellisCore
import TrellisGraph
import TrellisMedia
import TrellisOffline
import TrellisSession
import TrellisUnits

struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a session offline to a file, as fast as the machine allows.")

    @Argument(help: "The session file.")
    var session: String

    @Option(name: .shortAndLong, help: "The output file; its extension picks the container (wav, aiff, caf, flac, ogg).")
    var output: String

    @Option(help: "Seconds to render (required unless the session plays files).")
    var duration: Double?

    @OptionGroup var file: OutputFileOptions

    @OptionGroup var loudness: LoudnessOptions

    @OptionGroup var parallel: ThreadsOption

    @Option(name: .long, help: "Feed a JACK input port of the session from a file: PORT=FILE (repeatable).")
    var input: [String] = []

    @Option(help: "The transport's tempo in beats per minute (else the session's transport: tempo, else 120).")
    var tempo: Double?

    @Option(help: "The transport's meter, as 4/4 or 6/8 (else the session's, else 4/4).")
    var meter: String?

    @Option(help: "Where the transport starts: frames, seconds (2.5s), bars|beats|ticks (3|1|0) or SMPTE (00:00:02:12).")
    var start: String?

    /// The session's `transport:` with the options given here in its place.
    private func transport(_ loaded: LoadedSession) throws -> TransportSpec {
        var spec = loaded.loadedDocument.transport ?? TransportSpec()
        if let tempo {
            guard TransportSpec.tempoRange.contains(tempo) else { throw CLIError("--tempo \(tempo): give a tempo from 1 to 999 beats per minute") }
            spec.tempo = tempo
        }
        if let meter {
            guard let value = TransportSpec.meter(meter) else { throw CLIError("--meter \(meter): give a meter such as 4/4 or 6/8") }
            spec.meter = value
        }
        if let start {
            guard let position = TransportTime(start) else {
                throw CLIError("--start \(start): give frames (96000), seconds (2.5s), bars|beats|ticks (3|1|0) or SMPTE (00:00:02:12)")
            }
            spec.start = position
        }
        guard spec.clock(sampleRate: loaded.graph.sampleRate) != nil else {
            throw CLIError("--start \(start ?? "") is no position in this meter or frame rate")
        }
        return spec
    }

    func run() throws {
        let type = try file.sampleTypeValue()
        let loaded: LoadedSession
        do { loaded = try SessionLoader.load(path: session, registry: try Units.shared(), options: parallel.loadOptions) } catch {
            throw CLIError("\(error)")
        }
        for warning in loaded.warnings { Log.logger.warning("\(warning)") }
        let graph = loaded.graph
        try refuseOverwritingInputs(loaded)
        let edge = ConverterEdge(graph)
        let dither = try file.ditherValue(edge)
        let inputs = try SessionInputs.files(for: loaded, assignments: input, conversion: edge.quality)
        let length = try RenderLength(duration: duration, played: loaded.playedFrames, sampleRate: graph.sampleRate, session: session,
                                      playsFiles: !loaded.players.isEmpty)
        let frames = length.frames
        if let note = length.note { Log.logger.warning("\(note)") }
        // A session's block size is for live periods; offline, long slices cost less.
        do { try OfflineRenderer.prepareForOffline(graph) } catch { throw CLIError("render: \(error)") }
        let channelCount = graph.plan?.outputChannelCount ?? 0
        guard channelCount > 0 else {
            let document = loaded.loadedDocument
            let place = document.graph.positions["nodes"] ?? document.graph.location ?? SourceLocation(file: session, line: 1, column: 1)
            throw CLIError("\(SessionError("render: the session has no output node, so it has no audio to write (it only sends MIDI); add one, such as `out: output`", at: place))")
        }
        let recorders: [FileRecorder]
        do { recorders = try loaded.startTransport(atSampleTime: 0, clock: try transport(loaded), rolling: true) } catch { throw CLIError("\(error)") }
        let progress = ProgressBar(total: frames, label: output)
        let report: ((Int, Int) -> Void)? = progress.isVisible ? { done, _ in progress.update(done) } : nil
        let warnings = RenderWarnings(engine: graph.engine, registry: graph.registry)
        // With --normalize a float temporary file lies beside the output until it is written.
        try OutputSpace.check(output: output, frames: frames, channels: channelCount,
                              bits: loudness.normalize == nil ? (type ?? .float32).bitsPerSample : 32, copies: loudness.normalize == nil ? 1 : 2)
        let measured = MeasuredRender(output: output, sampleType: type, dither: dither, quality: file.quality,
                                      sampleRate: graph.sampleRate, channelCount: channelCount, options: loudness)
        let outcome = try measured.run { path, type, dither, quality, observe in
            do {
                return try OfflineRenderer(graph: graph).render(frameCount: frames, to: path, sampleType: type, dither: dither, quality: quality,
                                                                inputs: inputs, progress: report, observeOutput: observe)
            } catch { throw CLIError("render: \(error)") }
        }
        let written = outcome.frames
        for recorder in recorders {
            do { _ = try recorder.stop() } catch { throw CLIError("render: \(error)") }
        }
        progress.finish()
        for case let file as FileInput in inputs where !file.reader.damage.isEmpty {
            warnings.warn("\(file.reader.path): \(file.reader.damage.description(sampleRate: file.reader.info.sampleRate))")
        }
        for spec in loaded.players {
            guard let player = spec.unit as? FilePlayer, case let damage = player.damage, !damage.isEmpty else { continue }
            warnings.warn("node \(spec.node): \(spec.path): \(damage.description(sampleRate: player.fileInfo?.sampleRate ?? graph.sampleRate))")
        }
        var summary = warnings.summary(path: output, frames: written, sampleRate: graph.sampleRate) + (outcome.loudness == nil ? "" : "\n" + outcome.summaryLines)
        if let note = length.note { summary += "\n" + note }
        if let schedule = graph.scheduleReport { summary += "\nschedule: \(graph.engine.parallelism.threads) threads, \(schedule)" }
        FileHandle.standardError.write(Data((summary + "\n").utf8))
        if loudness.json {
            print(outcome.json(path: output, sampleRate: graph.sampleRate, channelCount: channelCount, warnings: warnings.count, logLines: warnings.logCount, notices: warnings.noticesJSON))
        }
        // Everything is written and closed: no plugin's teardown can spoil the exit status.
        ProcessEnd.keep(loaded)
    }

    /// The output must not be a file the render reads (a player's, an `--input`) or one
    /// of the session's recordings: it is truncated before the first frame is read.
    private func refuseOverwritingInputs(_ loaded: LoadedSession) throws {
        let read = loaded.players.map { ("node \($0.node) plays it", $0.path) }
            + input.compactMap { assignment in assignment.firstIndex(of: "=").map { ("--input \(assignment) reads it", String(assignment[assignment.index(after: $0)...])) } }
            + loaded.recorders.map { ("recorder \($0.name) writes it", $0.path) }
        if let (why, _) = read.first(where: { FileChecks.sameFile($0.1, output) }) {
            throw CLIError("render: -o \(output) is a file this render uses (\(why)); writing it would destroy it, so name another file")
        }
    }
}
