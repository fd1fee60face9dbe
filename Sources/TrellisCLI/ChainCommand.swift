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

struct ChainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chain",
        abstract: "Run an effect chain written as a pipeline: SOURCE ! UNIT [name=value ...] ! ... ! SINK.",
        discussion: """
            A source is an audio file or `tone` (freq=, amp=, waveform=, channels=); a unit is a short name, \
            a type:subtype:manufacturer triple or lv2:URI, with settings read as `ctl add` and a session's node read them \
            (channels=, bypass=, preset=, state= set the node; other names set parameters); a sink is an audio file. \
            With files at both ends the chain renders offline, as fast as the machine allows. \
            `jack` at either end runs it live on JACK audio ports, `midi` on a JACK MIDI port (connect=PATTERN); \
            neighbouring stages connect by MIDI where one side has MIDI and no audio.
            Example: trellis chain in.wav ! eq band0.type=lowshelf band0.freq=120 band0.gain=3 ! gain gain=-6 ! out.wav
            Example: trellis chain midi connect=system:midi_capture_1 ! lv2:http://drobilla.net/plugins/mda/EPiano ! jack
            A chain runs at one rate: its source file's, or the one --sample-rate or a `converter rate=HZ` stage asks for, \
            to which the file is converted (libsoxr, high quality).
            """)

    @Option(name: .long, help: "Seconds to render (required with a tone source; default: the source file's length).")
    var duration: Double?

    @OptionGroup var file: OutputFileOptions

    @OptionGroup var loudness: LoudnessOptions

    @Option(name: .long, help: "Sample rate the chain runs at and writes (default: the source file's; 48000 for a tone). A file at another rate is converted (libsoxr, high quality).")
    var sampleRate: Double?

    @Option(name: .long, help: "Frames per render slice.")
    var blockSize: Int = 4096

    @Flag(name: .long, help: "Print the compiled program to stderr.")
    var showProgram = false

    @Option(name: .long, help: "Write the chain out as a session file (a file source becomes a player, a file sink a recorder).")
    var save: String?

    @Option(name: .long, help: "With jack at either end: the JACK server to join.")
    var server: String?

    @Flag(name: .long, help: "With jack at either end: start a private JACK server (dummy backend) when none is running.")
    var startServer = false

    @Argument(parsing: .captureForPassthrough, help: "The pipeline.")
    var pipeline: [String] = []

    func run() throws {
        let parsed = try ChainPipeline(arguments: pipeline)
        let converterRate = try parsed.converterRate()
        if let converterRate, let asked = self.sampleRate, converterRate != asked {
            throw CLIError("chain: --sample-rate \(Int(asked)) and converter rate=\(Int(converterRate)) disagree; a chain runs at one rate")
        }
        let sampleRate = self.sampleRate ?? converterRate
        if let save {
            let rate = sampleRate ?? (try? AudioFileReader(path: parsed.source.word).info.sampleRate) ?? 48_000
            let document = try ChainSession.forSaving(
                ChainSession.document(parsed, file: save, sampleRate: rate, blockSize: blockSize), registry: try Units.shared())
            do { try SessionWriter.save(document, to: save) } catch { throw CLIError("chain: \(error)") }
        }
        if !["tone", "jack", "midi"].contains(parsed.source.word), FileChecks.sameFile(parsed.source.word, parsed.sink.word) {
            throw CLIError("chain: the sink \(parsed.sink.word) is the source file; writing it would destroy it, so name another file")
        }
        if ["jack", "midi"].contains(parsed.source.word) || ["jack", "midi"].contains(parsed.sink.word) {
            try LiveChain(pipeline: parsed, server: server, startServer: startServer, duration: duration, blockSize: blockSize, sampleRate: sampleRate ?? 48_000).run()
            return
        }
        let type = try file.sampleTypeValue()
        if let sampleRate, !(sampleRate >= 1_000 && sampleRate <= 768_000) {
            throw CLIError("--sample-rate \(sampleRate): expected a rate from 1000 to 768000 Hz")
        }
        let registry = try Units.shared()
        let built = try ChainBuilder(registry: registry, blockSize: blockSize, rate: sampleRate).build(parsed)
        if showProgram { Log.logger.info("\n\(built.graph.programListing)") }
        let frames: Int
        if let duration {
            frames = Int((duration * built.graph.sampleRate).rounded())
        } else if let input = built.input {
            frames = Int((Double(input.info.frameCount) * built.graph.sampleRate / input.info.sampleRate).rounded())
        } else if let song = built.song {
            frames = Int(((song.duration + LoadedSession.midiTail) * built.graph.sampleRate).rounded(.up))
        } else {
            throw CLIError("chain: a \(parsed.source.word) source has no end; give --duration SECONDS")
        }
        let progress = ProgressBar(total: frames, label: parsed.sink.word)
        let report: ((Int, Int) -> Void)? = progress.isVisible ? { done, _ in progress.update(done) } : nil
        let warnings = RenderWarnings(engine: built.graph.engine, registry: registry)
        let edge = ConverterEdge(built.graph)
        let dither = try file.ditherValue(edge)
        let graph = built.graph, channelCount = graph.plan?.outputChannelCount ?? 0
        let measured = MeasuredRender(output: parsed.sink.word, sampleType: type, dither: dither, quality: file.quality,
                                      sampleRate: graph.sampleRate, channelCount: channelCount, options: loudness)
        let outcome = try measured.run { path, type, dither, quality, observe in
            do {
                return try OfflineRenderer(graph: graph).render(
                    frameCount: frames, to: path, sampleType: type, dither: dither, quality: quality, input: built.input,
                    conversion: edge.quality, progress: report, observeOutput: observe)
            } catch { throw CLIError("\(error)") }
        }
        progress.finish()
        if let input = built.input, !input.damage.isEmpty {
            warnings.warn("\(input.path): \(input.damage.description(sampleRate: input.info.sampleRate))")
        }
        let summary = warnings.summary(path: parsed.sink.word, frames: outcome.frames, sampleRate: graph.sampleRate) + (outcome.loudness == nil ? "" : "\n" + outcome.summaryLines)
        FileHandle.standardError.write(Data((summary + "\n").utf8))
        if loudness.json {
            print(outcome.json(path: parsed.sink.word, sampleRate: graph.sampleRate, channelCount: channelCount,
                               warnings: warnings.count, logLines: warnings.logCount, notices: warnings.noticesJSON))
        }
        // Everything is written and closed: no plugin's teardown can spoil the exit status.
        ProcessEnd.keep(graph)
    }
}
