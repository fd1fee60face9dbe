import Foundation
import ArgumentParser
import TrellisAudioFile
import TrellisCore
import TrellisGraph
import TrellisMedia
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
                ChainSession.document(parsed, file: save, sampleRate: rate, blockSize: blockSize), registry: try Units.registry())
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
        let registry = try Units.registry()
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

/// Turns a parsed pipeline into a graph: source, units in series, generic output.
struct ChainBuilder {
    let registry: ComponentRegistry
    let blockSize: Int
    /// The rate asked for; nil for the source file's (48 kHz for a tone).
    let rate: Double?

    struct Built {
        var graph: Graph
        var input: AudioFileReader?
        /// The MIDI file a chain plays, when its source is one.
        var song: MIDIFilePlayer?
    }

    /// Whether a chain's source names a Standard MIDI File.
    static func isMIDIFile(_ word: String) -> Bool {
        ["mid", "midi", "smf", "kar"].contains((word as NSString).pathExtension.lowercased())
    }

    func build(_ pipeline: ChainPipeline) throws(CLIError) -> Built {
        let factory = UnitFactory(registry: registry)
        var input: AudioFileReader?
        var song: MIDIFilePlayer?
        let channels: Int
        let rate: Double
        let source: any AudioUnit
        if pipeline.source.word == "tone" {
            var description = try pipeline.source.description(unit: "tone")
            description.channels = description.channels ?? 2
            channels = description.channels!
            rate = self.rate ?? 48_000
            source = try pipeline.source.make(description, with: factory)
        } else if pipeline.source.word == "jack" {
            throw CLIError("chain: live chains with jack need the JACK head node, which this build does not have yet")
        } else if Self.isMIDIFile(pipeline.source.word) {
            let player = MIDIFilePlayer()
            do { try player.load(path: pipeline.source.word) } catch { throw CLIError("chain: \(error)") }
            song = player
            channels = 2
            rate = self.rate ?? 48_000
            source = player
        } else {
            do { input = try AudioFileReader(path: pipeline.source.word) } catch { throw CLIError("chain: \(error)") }
            channels = input!.info.channelCount
            rate = self.rate ?? input!.info.sampleRate
            source = GraphInput(channelCount: channels)
        }

        let graph = Graph(registry: registry, sampleRate: rate, maximumFrames: blockSize)
        do {
            var previous = try graph.addNode(source, name: pipeline.source.word == "tone" ? "tone" : song != nil ? "song" : "input")
            for stage in pipeline.units {
                let description = try stage.description(unit: stage.word)
                // A mono plugin in a wider chain runs once per channel.
                let unit = try stage.make(description, with: factory, fedWidth: channels)
                if description.channels == nil, description.inputChannels == nil, description.outputChannels == nil, !(unit is MultiMonoUnit) {
                    Self.fit(unit, channels: channels, outputs: description.channelMap?.count)
                }
                let node = try graph.addNode(unit)
                // The one rule sessions and ctl use: MIDI where only MIDI flows.
                if graph.impliesMIDI(from: previous, to: node) {
                    try graph.connectMIDI(previous, to: node)
                } else {
                    try graph.connect(previous, to: node, converting: true)
                }
                previous = node
            }
            if let last = pipeline.units.last, let unit = try? graph.unit(previous), unit.elementCount(.output) == 0, unit.midiBusCount(.output) > 0 {
                throw CLIError("chain: \(last.word) sends MIDI and no audio, so nothing reaches \(pipeline.sink.word); "
                    + "end the chain with an instrument (! lv2:URI-of-a-synth ! \(pipeline.sink.word)) or with `midi` to send it to a JACK MIDI port")
            }
            // The chain's width, unless its last stage asks for its own.
            var width = channels
            if let last = pipeline.units.last, let description = try? last.description(unit: last.word),
               description.outputChannels != nil || description.channelMap != nil,
               let asked = try? graph.unit(previous).format(scope: .output, element: 0).channelCount {
                width = asked
            }
            let output = try graph.addNode(GenericOutput(channelCount: width), name: "output")
            try graph.connect(previous, to: output, converting: true)
            try graph.initialize()
            // A render plays: the transport rolls from its first frame.
            graph.engine.changeTransport(.play)
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError("chain: \(error)")
        }
        return Built(graph: graph, input: input, song: song)
    }

    /// Gives a unit's first buses the chain's width where the unit allows it; where it
    /// does not (a mono plugin), the connections convert.
    static func fit(_ unit: any AudioUnit, channels: Int, outputs: Int? = nil) {
        for scope in [Scope.input, .output] where unit.elementCount(scope) > 0 {
            guard var format = try? unit.format(scope: scope, element: 0) else { continue }
            format.channelCount = scope == .output ? outputs ?? channels : channels
            try? unit.setFormat(format, scope: scope, element: 0)
        }
    }
}

extension ChainPipeline.Stage {
    /// The stage's settings as a node description of `unit`: the form `ctl add` takes.
    func description(unit: String) throws(CLIError) -> NodeDescription {
        do { return try NodeDescription(unit: unit, settings: settings).anchoringFiles(in: ".") } catch { throw failure(error) }
    }

    /// The unit the stage describes, made by the factory sessions and `ctl add` use.
    func make(_ description: NodeDescription, with factory: UnitFactory, fedWidth: Int? = nil) throws(CLIError) -> any AudioUnit {
        do { return try factory.make(description, fedWidth: fedWidth) } catch { throw failure(error) }
    }

    /// `chain: "WORD" (argument N): MESSAGE`.
    func failure(_ error: UnitFactoryError) -> CLIError {
        CLIError("chain: \"\(word)\" (argument \(position)): \(error)")
    }
}
