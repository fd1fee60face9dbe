import Foundation
import TrellisMedia

/// One closed window of a metered bus, as a `meter` reply or a watch's `meter` event
/// reports it: peak and average power per channel in dBFS and, for a recorder, how far
/// its take has come.
///
/// A watch of fifty buses at 30 Hz makes 1,500 readings a second, so both forms are
/// written here directly, with levels to two decimals.
struct MeterReading {
    var bus: String
    var peak: [Float]
    var average: [Float]
    var recorder: (state: String, seconds: Double)?

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
        if let recorder = meter as? FileRecorder {
            self.recorder = (recorder.recorderState.rawValue, Double(recorder.framesWritten) / recorder.sampleRate)
        }
    }

    /// `peak=… average=…`, channels separated by commas.
    var levelsText: String {
        "peak=" + peak.map(Self.twoDecimals).joined(separator: ",") + " average=" + average.map(Self.twoDecimals).joined(separator: ",")
    }

    /// `BUS peak=… average=…`, and a recorder's `state=… seconds=…`.
    var text: String {
        var text = bus + " " + levelsText
        if let recorder { text += " state=\(recorder.state) seconds=\(String(format: "%.3f", recorder.seconds))" }
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
        return .object(members)
    }

    /// The `meter` event's JSON line for a watch whose id is `id` (already JSON), its
    /// levels to two decimals.
    func eventJSON(id: String) -> String {
        var bytes: [UInt8] = []
        appendEventJSON(id: Array(id.utf8), to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the `meter` event's JSON line to `bytes`, written byte by byte: a frame
    /// of fifty readings is one buffer.
    func appendEventJSON(id: [UInt8], to bytes: inout [UInt8]) {
        bytes.append(contentsOf: #"{"id":"#.utf8)
        bytes.append(contentsOf: id)
        bytes.append(contentsOf: #","event":"meter","data":{"bus":"#.utf8)
        var quoted = ""
        ControlValue.quote(bus, into: &quoted)
        bytes.append(contentsOf: quoted.utf8)
        bytes.append(contentsOf: #","peak":["#.utf8)
        Self.append(peak, to: &bytes)
        bytes.append(contentsOf: #"],"average":["#.utf8)
        Self.append(average, to: &bytes)
        bytes.append(UInt8(ascii: "]"))
        if let recorder {
            quoted = ""
            ControlValue.quote(recorder.state, into: &quoted)
            bytes.append(contentsOf: #","state":"#.utf8)
            bytes.append(contentsOf: quoted.utf8)
            bytes.append(contentsOf: #","seconds":"#.utf8)
            bytes.append(contentsOf: ControlValue.format(recorder.seconds).utf8)
        }
        bytes.append(contentsOf: "}}".utf8)
    }

    /// Levels to two decimals, separated by commas; `null` for one not finite.
    private static func append(_ levels: [Float], to bytes: inout [UInt8]) {
        for (index, level) in levels.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            guard level.isFinite, abs(level) < 1e9 else {
                bytes.append(contentsOf: (level.isFinite ? twoDecimals(level) : "null").utf8)
                continue
            }
            let hundredths = Int((Double(level).magnitude * 100).rounded(.toNearestOrEven))
            if level < 0 { bytes.append(UInt8(ascii: "-")) }
            appendDigits(hundredths / 100, to: &bytes)
            bytes.append(UInt8(ascii: "."))
            bytes.append(UInt8(ascii: "0") + UInt8(hundredths % 100 / 10))
            bytes.append(UInt8(ascii: "0") + UInt8(hundredths % 10))
        }
    }

    private static func appendDigits(_ value: Int, to bytes: inout [UInt8]) {
        if value >= 10 { appendDigits(value / 10, to: &bytes) }
        bytes.append(UInt8(ascii: "0") + UInt8(value % 10))
    }

    /// `%.2f` without Foundation's formatter: the same text for every finite level.
    static func twoDecimals(_ value: Float) -> String {
        guard value.isFinite, abs(value) < 1e9 else { return String(format: "%.2f", value) }
        let hundredths = Int((Double(value).magnitude * 100).rounded(.toNearestOrEven))
        let fraction = hundredths % 100
        return (value < 0 ? "-" : "") + "\(hundredths / 100)." + (fraction < 10 ? "0" : "") + "\(fraction)"
    }
}
