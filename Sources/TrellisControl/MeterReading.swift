import Foundation
import TrellisAnalysis
import TrellisMedia

/// One closed window of a metered bus, as a `meter` reply or a watch's `meter` event
/// reports it: peak and average power per channel in dBFS and, for a recorder, how far
/// its take has come.
///
/// Levels are written to two decimals (a watch's frames: `MeterFrame`).
struct MeterReading {
    var bus: String
    var peak: [Float]
    var average: [Float]
    var recorder: (state: String, seconds: Double)?
    /// The bus's loudness, when asked for.
    var loudness: Loudness?

    /// A bus's EBU R128 figures, written to two decimals (null for -infinity).
    struct Loudness {
        var momentary, shortTerm, integrated, range, truePeak: Double

        init(_ reading: LoudnessReading) {
            momentary = reading.momentary
            shortTerm = reading.shortTerm
            integrated = reading.integrated
            range = reading.range
            truePeak = reading.truePeak
        }

        /// JSON names and values, in the order replies and frames give them.
        var figures: [(String, Double)] {
            [("momentary", momentary), ("shortTerm", shortTerm), ("integrated", integrated), ("range", range), ("truePeak", truePeak)]
        }

        /// `momentary=-14.20 short-term=... integrated=... range=... true-peak=...`.
        var text: String {
            let names = ["momentary", "short-term", "integrated", "range", "true-peak"]
            return zip(names, figures).map { "\($0)=\(value($1.1))" }.joined(separator: " ")
        }

        var members: [(String, ControlValue)] { figures.map { ($0.0, $0.1.isFinite ? .number($0.1) : .null) } }

        private func value(_ figure: Double) -> String { figure.isFinite ? MeterReading.twoDecimals(Float(figure)) : "-inf" }
    }

    init(bus: String, peak: [Float], average: [Float], recorder: (state: String, seconds: Double)? = nil) {
        self.bus = bus
        self.peak = peak
        self.average = average
        self.recorder = recorder
    }

    /// Closes `meter`'s window. Thread: the dispatcher's queue.
    init(bus: String, closing meter: any LevelMeter) {
        self.bus = bus
        meter.updateMeters()
        let channels = 0..<meter.meteredChannelCount
        peak = channels.map { meter.peakPower(forChannel: $0) }
        average = channels.map { meter.averagePower(forChannel: $0) }
        recorder = Self.take(of: meter)
    }

    /// A recorder's state and how far its take has come; nil for a bus' meter.
    static func take(of meter: any LevelMeter) -> (state: String, seconds: Double)? {
        guard let recorder = meter as? FileRecorder else { return nil }
        return (recorder.recorderState.rawValue, Double(recorder.framesWritten) / recorder.sampleRate)
    }

    /// `peak=… average=…`, channels separated by commas.
    var levelsText: String {
        "peak=" + peak.map(Self.twoDecimals).joined(separator: ",") + " average=" + average.map(Self.twoDecimals).joined(separator: ",")
    }

    /// `BUS peak=… average=…`, and a recorder's `state=… seconds=…`.
    var text: String {
        var text = bus + " " + levelsText
        if let recorder { text += " state=\(recorder.state) seconds=\(String(format: "%.3f", recorder.seconds))" }
        if let loudness { text += " " + loudness.text }
        return text
    }

    /// The levels as JSON members.
    var levelMembers: [(String, ControlValue)] {
        [("peak", .array(peak.map { .number(Double($0)) })), ("average", .array(average.map { .number(Double($0)) }))]
    }

    /// What a `meter` reply and event carry.
    var value: ControlValue {
        var members: [(String, ControlValue)] = [("bus", .string(bus))] + levelMembers
        if let recorder { members += [("state", .string(recorder.state)), ("seconds", .number(recorder.seconds))] }
        if let loudness { members.append(("loudness", .object(loudness.members))) }
        return .object(members)
    }

    /// The `meter` event's JSON line for a watch whose id is `id` (already JSON), its
    /// levels to two decimals.
    func eventJSON(id: String) -> String {
        var frame = MeterFrame(id: id.utf8)
        frame.append(bus: MeterFrame.quoted(bus), channels: peak.count, peak: { peak[$0] }, average: { average[$0] }, recorder: recorder,
                     loudness: loudness)
        return String(decoding: frame.bytes, as: UTF8.self)
    }

    /// `%.2f` without Foundation's formatter: the same text for every finite level.
    static func twoDecimals(_ value: Float) -> String {
        guard value.isFinite else { return String(format: "%.2f", value) }
        var bytes: [UInt8] = []
        MeterFrame.appendTwoDecimals(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
