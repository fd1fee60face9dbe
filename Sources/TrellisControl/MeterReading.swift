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
            var bytes: [UInt8] = []
            append(to: &bytes)
            return String(decoding: bytes, as: UTF8.self)
        }

        /// Writes `text` into `bytes` (a watch writes sixteen of these thirty times a second).
        func append(to bytes: inout [UInt8]) {
            for (name, figure) in [("momentary=", momentary), (" short-term=", shortTerm), (" integrated=", integrated),
                                   (" range=", range), (" true-peak=", truePeak)] {
                bytes.append(contentsOf: name.utf8)
                if figure.isFinite { MeterFrame.appendTwoDecimals(Float(figure), to: &bytes) } else { bytes.append(contentsOf: "-inf".utf8) }
            }
        }

        var members: [(String, ControlValue)] { figures.map { ($0.0, $0.1.isFinite ? .number($0.1) : .null) } }
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
        var bytes: [UInt8] = []
        appendLevels(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private func appendLevels(to bytes: inout [UInt8]) {
        for (name, levels) in [("peak=", peak), (" average=", average)] {
            bytes.append(contentsOf: name.utf8)
            for (index, level) in levels.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                Self.appendTwoDecimals(level, to: &bytes)
            }
        }
    }

    /// `BUS peak=… average=…`, and a recorder's `state=… seconds=…`.
    var text: String {
        var bytes = Array(bus.utf8)
        bytes.reserveCapacity(bytes.count + 200)
        bytes.append(UInt8(ascii: " "))
        appendLevels(to: &bytes)
        if let recorder { bytes.append(contentsOf: " state=\(recorder.state) seconds=\(String(format: "%.3f", recorder.seconds))".utf8) }
        if let loudness {
            bytes.append(UInt8(ascii: " "))
            loudness.append(to: &bytes)
        }
        return String(decoding: bytes, as: UTF8.self)
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
        var bytes: [UInt8] = []
        appendTwoDecimals(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `%.2f` of `value` into `bytes`, `-inf`, `inf` or `nan` where it is not finite.
    static func appendTwoDecimals(_ value: Float, to bytes: inout [UInt8]) {
        if value.isFinite { MeterFrame.appendTwoDecimals(value, to: &bytes) } else { bytes.append(contentsOf: String(format: "%.2f", value).utf8) }
    }
}
