import ArgumentParser
import TrellisCore
import TrellisGraph

/// What `render` and `chain` write: the output file's sample type, dither and (for Ogg
/// Vorbis) quality. The file's container comes from its name.
struct OutputFileOptions: ParsableArguments {
    @Option(name: .long, help: "Sample type of the output file: float32, int16, int24 or int32 (default: float32, or int24 for FLAC).")
    var sampleType: String?

    @Option(name: .long, help: "Dither when float becomes 16 or 24 bits: tpdf (the default) or none.")
    var dither: DitherChoice?

    @Option(name: .long, help: "Ogg Vorbis quality of the output, 0 (smallest) to 1 (best).")
    var quality: Double?

    /// Whether to dither: `--dither` when given, else what the graph's converters say
    /// (`dither=false` turns it off), else on. `--dither tpdf` against a converter's
    /// `dither=false` is an error, as two rates are.
    func ditherValue(_ edge: ConverterEdge) throws(CLIError) -> Bool {
        if dither == .tpdf, edge.dither == false {
            throw CLIError("--dither tpdf and a converter's dither=false disagree; give one")
        }
        return (dither ?? (edge.dither == false ? DitherChoice.none : .tpdf)) == .tpdf
    }

    /// The sample type asked for; nil for the container's own.
    func sampleTypeValue() throws(CLIError) -> SampleType? {
        guard let sampleType else { return nil }
        guard let type = SampleType(rawValue: sampleType.lowercased()) else {
            throw CLIError("--sample-type \(sampleType): expected float32, int16, int24 or int32")
        }
        return type
    }
}

/// How float is made into 16- or 24-bit samples.
enum DitherChoice: String, ExpressibleByArgument, CaseIterable {
    case tpdf, none
}
