import Foundation
import TrellisMedia

/// A frame of `meter` events as JSON lines, one reading a line, written byte by byte
/// into one buffer the watch keeps: thirty frames a second of fifty buses allocate
/// nothing once it has grown. Levels are written to two decimals.
///
/// Thread: the dispatcher's queue.
struct MeterFrame {
    private(set) var bytes: [UInt8] = []
    /// `{"id":ID,"event":"meter","data":{"bus":`
    private let head: [UInt8]

    /// `id` is the watch's id, already JSON.
    init(id: some Sequence<UInt8>) {
        head = Array(#"{"id":"#.utf8) + id + Array(#","event":"meter","data":{"bus":"#.utf8)
    }

    var isEmpty: Bool { bytes.isEmpty }

    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
    }

    /// Closes `meter`'s window and appends its reading; `bus` is the bus' name, quoted.
    mutating func append(bus: [UInt8], closing meter: any LevelMeter, loudness: MeterReading.Loudness? = nil) {
        meter.updateMeters()
        append(bus: bus, channels: meter.meteredChannelCount, peak: meter.peakPower(forChannel:),
               average: meter.averagePower(forChannel:), recorder: MeterReading.take(of: meter), loudness: loudness)
    }

    /// Appends one reading: `channels` levels of each kind, and a recorder's state.
    mutating func append(bus: [UInt8], channels: Int, peak: (Int) -> Float, average: (Int) -> Float,
                         recorder: (state: String, seconds: Double)?, loudness: MeterReading.Loudness? = nil) {
        if !bytes.isEmpty { bytes.append(UInt8(ascii: "\n")) }
        bytes.append(contentsOf: head)
        bytes.append(contentsOf: bus)
        bytes.append(contentsOf: #","peak":["#.utf8)
        appendLevels(channels, peak)
        bytes.append(contentsOf: #"],"average":["#.utf8)
        appendLevels(channels, average)
        bytes.append(UInt8(ascii: "]"))
        if let recorder {
            bytes.append(contentsOf: #","state":"#.utf8)
            bytes.append(contentsOf: Self.quoted(recorder.state))
            bytes.append(contentsOf: #","seconds":"#.utf8)
            bytes.append(contentsOf: ControlValue.format(recorder.seconds).utf8)
        }
        if let loudness {
            bytes.append(contentsOf: #","loudness":{"#.utf8)
            for (index, (name, value)) in loudness.figures.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                bytes.append(contentsOf: "\"\(name)\":".utf8)
                if value.isFinite { Self.appendTwoDecimals(Float(value), to: &bytes) } else { bytes.append(contentsOf: "null".utf8) }
            }
            bytes.append(UInt8(ascii: "}"))
        }
        bytes.append(contentsOf: "}}".utf8)
    }

    /// A string as JSON.
    static func quoted(_ string: String) -> [UInt8] {
        var text = ""
        ControlValue.quote(string, into: &text)
        return Array(text.utf8)
    }

    /// Levels to two decimals, separated by commas; `null` for one not finite.
    private mutating func appendLevels(_ count: Int, _ level: (Int) -> Float) {
        for channel in 0..<count {
            if channel > 0 { bytes.append(UInt8(ascii: ",")) }
            let value = level(channel)
            if value.isFinite { Self.appendTwoDecimals(value, to: &bytes) } else { bytes.append(contentsOf: "null".utf8) }
        }
    }

    /// `%.2f` of a finite level, written without Foundation's formatter below 1e9.
    static func appendTwoDecimals(_ value: Float, to bytes: inout [UInt8]) {
        guard abs(value) < 1e9 else {
            bytes.append(contentsOf: String(format: "%.2f", value).utf8)
            return
        }
        let hundredths = Int((Double(value).magnitude * 100).rounded(.toNearestOrEven))
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        appendDigits(hundredths / 100, to: &bytes)
        bytes.append(UInt8(ascii: "."))
        bytes.append(UInt8(ascii: "0") + UInt8(hundredths % 100 / 10))
        bytes.append(UInt8(ascii: "0") + UInt8(hundredths % 10))
    }

    private static func appendDigits(_ value: Int, to bytes: inout [UInt8]) {
        if value >= 10 { appendDigits(value / 10, to: &bytes) }
        bytes.append(UInt8(ascii: "0") + UInt8(value % 10))
    }
}
