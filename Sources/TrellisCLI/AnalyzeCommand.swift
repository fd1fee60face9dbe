import ArgumentParser
import Foundation
import TrellisChain
import TrellisAnalysis

struct AnalyzeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze",
        abstract: "Measure audio files: loudness (EBU R128), true peak, levels, DC, clipping and spectrum.",
        discussion: """
            For each file: integrated loudness (LUFS), loudness range (LU), true peak (dBTP) and \
            the loudest momentary and short-term loudness, by ITU-R BS.1770-4 and EBU R128; then per channel the sample peak and RMS (dBFS; a full-scale sine is \
            -3.01), true peak, DC offset (the mean) and clipping: samples in runs of two or more \
            at full scale (|x| >= 32767/32768), and the runs; and the spectrum's centroid and 85 % \
            roll-off of the channels mixed. A table, or JSON with --json (null for -infinity). \
            --png or --svg draws one file's waveform (clipped runs marked red), spectrogram and \
            short-term loudness over time.
            """)

    @Argument(help: "The files to measure.")
    var files: [String]

    @Flag(help: "Print one JSON array, an object per file.")
    var json = false

    @Option(help: ArgumentHelp("Draw the file's waveform, spectrogram and loudness as a PNG picture.", valueName: "PATH"))
    var png: String?

    @Option(help: ArgumentHelp("The same picture as SVG.", valueName: "PATH"))
    var svg: String?

    @Option(name: .customLong("picture-size"), help: ArgumentHelp("The picture's size in pixels.", valueName: "WIDTHxHEIGHT"))
    var pictureSize = "1200x800"

    /// The picture asked for, checked before any file is read.
    private func picture() throws -> AnalysisPicture? {
        guard png != nil || svg != nil else { return nil }
        guard files.count == 1 else { throw CLIError("analyze: --png and --svg draw one file; \(files.count) were given") }
        let sides = pictureSize.lowercased().split(separator: "x").compactMap { Int($0) }
        guard sides.count == 2 else { throw CLIError("--picture-size \(pictureSize): give WIDTHxHEIGHT, as 1200x800") }
        do { return try AnalysisPicture(width: sides[0], height: sides[1]) } catch { throw CLIError("--picture-size \(pictureSize): \(error)") }
    }

    func run() throws {
        let picture = try picture()
        var failed = false
        var objects: [String] = []
        for file in files {
            do {
                let analysis = try FileAnalysis.analyze(path: file, picture: picture)
                if let picture, let data = analysis.picture {
                    if let png { try picture.write(analysis, data: data, to: png, format: .png) }
                    if let svg { try picture.write(analysis, data: data, to: svg, format: .svg) }
                }
                if json { objects.append(Self.json(analysis)) } else { print(Self.table(analysis)) }
            } catch {
                FileHandle.standardError.write(Data("\(error)\n".utf8))
                failed = true
            }
        }
        if json { print("[" + objects.joined(separator: ",\n") + "]") }
        if failed { throw ExitCode.failure }
    }

    static func table(_ analysis: FileAnalysis) -> String {
        let info = analysis.info, loudness = analysis.loudness
        var lines = [
            "\(analysis.path): \(info)",
            "  integrated \(number(loudness.integrated, 1)) LUFS  range \(number(loudness.range, 1)) LU  true peak \(number(loudness.truePeak, 2)) dBTP  sample peak \(number(analysis.samplePeak, 2)) dBFS",
            "  loudest momentary \(number(loudness.maximumMomentary, 1)) LUFS  short-term \(number(loudness.maximumShortTerm, 1)) LUFS",
            "  spectrum: centroid \(hertz(analysis.spectralCentroid))  85 % roll-off \(hertz(analysis.spectralRollOff))",
            "  channel  peak dBFS  true peak dBTP  RMS dBFS  DC offset   clipped samples (runs)",
        ]
        for (index, channel) in analysis.channels.enumerated() {
            let figures = channel.statistics
            lines.append("  " + [
                String(index).padding(toLength: 7, withPad: " ", startingAt: 0),
                number(figures.peakDecibels, 2).leftPadded(9), number(channel.truePeak, 2).leftPadded(15),
                number(figures.rmsDecibels, 2).leftPadded(9), String(format: "%+.6f", figures.dcOffset).leftPadded(10),
                "\(figures.clippedSamples) (\(figures.clippedRuns))".leftPadded(8),
            ].joined(separator: "  "))
        }
        return lines.joined(separator: "\n")
    }

    static func json(_ analysis: FileAnalysis) -> String {
        let loudness = analysis.loudness, info = analysis.info
        let channels = analysis.channels.map { channel in
            let figures = channel.statistics
            return "{\"peak\":\(value(figures.peakDecibels)),\"truePeak\":\(value(channel.truePeak)),\"rms\":\(value(figures.rmsDecibels)),"
                + "\"dcOffset\":\(value(figures.dcOffset)),\"clippedSamples\":\(figures.clippedSamples),\"clippedRuns\":\(figures.clippedRuns)}"
        }
        let path = JSONText.string(analysis.path)
        return "{\"file\":\(path),\"sampleRate\":\(value(info.sampleRate)),\"channels\":\(info.channelCount),\"frames\":\(info.frameCount),"
            + "\"integrated\":\(value(loudness.integrated)),\"range\":\(value(loudness.range)),\"truePeak\":\(value(loudness.truePeak)),"
            + "\"samplePeak\":\(value(analysis.samplePeak)),\"maximumMomentary\":\(value(loudness.maximumMomentary)),"
            + "\"maximumShortTerm\":\(value(loudness.maximumShortTerm)),\"spectralCentroid\":\(value(analysis.spectralCentroid)),"
            + "\"spectralRollOff\":\(value(analysis.spectralRollOff)),\"perChannel\":[\(channels.joined(separator: ","))]}"
    }

    private static func number(_ value: Double, _ decimals: Int) -> String {
        value.isFinite ? String(format: "%.\(decimals)f", value) : (value < 0 ? "-inf" : "inf")
    }

    private static func hertz(_ value: Double?) -> String { value.map { String(format: "%.0f Hz", $0) } ?? "none (silence)" }

    private static func value(_ value: Double?) -> String { JSONText.number(value) }
}

private extension String {
    func leftPadded(_ width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}
