import ArgumentParser
import TrellisCore

/// What `render` and `chain` write: the output file's sample type, dither and (for Ogg
/// Vorbis) quality. The file's container comes from its name.
struct OutputFileOptions: ParsableArguments {
    @Option(name: .long, help: "Sample type of the output file: float32, int16, int24 or int32 (default: float32, or int24 for FLAC).")
    var sampleType: String?

    @Option(name: .long, help: "Dither when float becomes 16 or 24 bits: tpdf or none.")
    var dither: DitherChoice = .tpdf

    @Option(name: .long, help: "Ogg Vorbis quality of the output, 0 (smallest) to 1 (best).")
    var quality: Double?

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
