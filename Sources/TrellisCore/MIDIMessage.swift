/// A short MIDI message (one to three bytes): what travels through a plugin's atom
/// MIDI ports. System-exclusive messages are not carried.
public struct MIDIMessage: Sendable, BitwiseCopyable, Equatable, CustomStringConvertible {
    public var length: UInt8
    public var status: UInt8
    public var data1: UInt8
    public var data2: UInt8

    public init(status: UInt8, data1: UInt8 = 0, data2: UInt8 = 0, length: UInt8 = 3) {
        self.status = status
        self.data1 = data1
        self.data2 = data2
        self.length = min(max(length, 1), 3)
    }

    public static func noteOn(channel: UInt8 = 0, note: UInt8, velocity: UInt8) -> MIDIMessage {
        MIDIMessage(status: 0x90 | (channel & 0x0F), data1: note & 0x7F, data2: velocity & 0x7F)
    }

    public static func noteOff(channel: UInt8 = 0, note: UInt8, velocity: UInt8 = 0) -> MIDIMessage {
        MIDIMessage(status: 0x80 | (channel & 0x0F), data1: note & 0x7F, data2: velocity & 0x7F)
    }

    public static func controlChange(channel: UInt8 = 0, controller: UInt8, value: UInt8) -> MIDIMessage {
        MIDIMessage(status: 0xB0 | (channel & 0x0F), data1: controller & 0x7F, data2: value & 0x7F)
    }

    /// The bytes, `length` of them. Thread: any (allocates an array).
    public var bytes: [UInt8] { Array([status, data1, data2].prefix(Int(length))) }

    /// The bytes in hex, e.g. `90 3c 64`.
    public var description: String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined(separator: " ")
    }
}

/// A MIDI message at a frame within one render call, or at an absolute sample time.
public struct TimedMIDIMessage: Sendable, BitwiseCopyable, Equatable {
    /// Sample time on the graph's clock (the render's time stamp plus the frame).
    public var sampleTime: Int64
    public var message: MIDIMessage

    public init(sampleTime: Int64, message: MIDIMessage) {
        self.sampleTime = sampleTime
        self.message = message
    }
}
