import Foundation
import TrellisChain
import TrellisAnalysis
import TrellisAudioFile
import TrellisCore

/// An offline render whose output is measured as it is written (on the writer's
/// thread, beside the render) and, with `--normalize`, rendered first into a temporary
/// float file beside the output and then written at the target loudness.
///
/// Thread: control.
struct MeasuredRender {
    var output: String
    var sampleType: SampleType?
    var dither: Bool
    var quality: Double?
    var sampleRate: Double
    var channelCount: Int
    var options: LoudnessOptions

    /// What the output measured (nil with `--no-loudness`) and, when normalized, how.
    struct Outcome {
        var frames: Int
        var loudness: LoudnessReading?
        var normalized: (target: Double, ceiling: Double, result: LoudnessNormalizer.Result)?
    }

    /// The render itself: write to `path` as `sampleType` (dithered when `dither`, at
    /// `quality`), calling `observe` with each chunk as it is written; returns the frames.
    typealias Render = (_ path: String, _ sampleType: SampleType?, _ dither: Bool, _ quality: Double?,
                        _ observe: ((AudioBuffers, Int) -> Void)?) throws -> Int

    func run(_ render: Render) throws -> Outcome {
        if options.noLoudness {
            _ = try options.target()
            return Outcome(frames: try render(output, sampleType, dither, quality, nil), loudness: nil, normalized: nil)
        }
        let meter: LoudnessMeter
        do { meter = try LoudnessMeter(channelCount: max(1, channelCount), sampleRate: sampleRate) } catch { throw CLIError("\(error)") }
        let observe: (AudioBuffers, Int) -> Void = { buffers, frames in meter.add(buffers, frameCount: frames) }
        guard let target = try options.target() else {
            let frames = try render(output, sampleType, dither, quality, observe)
            return Outcome(frames: frames, loudness: LoudnessReading(meter), normalized: nil)
        }
        let ceiling = try options.ceiling()
        let temporary: String
        switch TemporaryFile.reserve(beside: output, extension: "caf") {
        case .success(let path): temporary = path
        case .failure(let reason): throw CLIError("--normalize: \(reason)")
        }
        defer { unlink(temporary) }
        let frames = try render(temporary, .float32, false, nil, observe)
        let measured = LoudnessReading(meter)
        let normalizer = LoudnessNormalizer(target: target, ceiling: ceiling)
        let type = sampleType ?? AudioFileContainer(path: output)?.defaultSampleType ?? .float32
        let result: LoudnessNormalizer.Result
        do {
            result = try normalizer.normalize(source: temporary, measured: measured) { () throws(AudioFileError) -> AudioFileWriter in
                try AudioFileWriter(path: output, sampleType: type, sampleRate: sampleRate, channelCount: channelCount, dither: dither, quality: quality)
            }
        } catch { throw CLIError("--normalize: \(error)") }
        return Outcome(frames: frames, loudness: result.loudness, normalized: (target, ceiling, result))
    }
}

extension MeasuredRender.Outcome {
    /// The lines after the render's own: loudness, and what normalizing did.
    var summaryLines: String {
        guard let loudness else { return "" }
        var text = "loudness: \(loudness.text)"
        if let (target, ceiling, result) = normalized {
            let gain = String(format: "%+.1f dB", result.gain)
            text += "\nnormalized to \(LoudnessReading.figure(target)) LUFS, ceiling \(LoudnessReading.figure(ceiling)) dBTP: gain \(gain)"
            if let reduction = result.limiterReduction {
                text += ", true-peak limiter \(reduction > 0.005 ? String(format: "down to -%.1f dB", reduction) : "never acting")"
            }
            if result.passes > 1 { text += " (\(result.passes) passes)" }
        }
        return text
    }

    /// The summary as one JSON object; `notices` is a JSON array of the warnings' facts.
    func json(path: String, sampleRate: Double, channelCount: Int, warnings: Int, logLines: Int, notices: String) -> String {
        let seconds = Double(frames) / max(1, sampleRate)
        var text = "{\"file\":\(JSONText.string(path)),\"frames\":\(frames),\"seconds\":\(JSONText.number(seconds)),"
            + "\"sampleRate\":\(JSONText.number(sampleRate)),\"channels\":\(channelCount),\"warnings\":\(warnings),\"notices\":\(notices),\"logLines\":\(logLines),"
            + "\"loudness\":"
        if let loudness {
            text += "{\"integrated\":\(JSONText.number(loudness.integrated)),\"range\":\(JSONText.number(loudness.range)),"
                + "\"truePeak\":\(JSONText.number(loudness.truePeak)),\"maximumMomentary\":\(JSONText.number(loudness.maximumMomentary)),"
                + "\"maximumShortTerm\":\(JSONText.number(loudness.maximumShortTerm))}"
        } else {
            text += "null"
        }
        text += ",\"normalized\":"
        if let (target, ceiling, result) = normalized {
            text += "{\"target\":\(JSONText.number(target)),\"ceiling\":\(JSONText.number(ceiling)),\"gain\":\(JSONText.number(result.gain)),"
                + "\"limiterReduction\":\(JSONText.number(result.limiterReduction)),\"passes\":\(result.passes)}"
        } else {
            text += "null"
        }
        return text + "}"
    }
}
