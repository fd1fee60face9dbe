import Synchronization
import TrellisCore

/// A MIDI controller mapped to a parameter or to bypass (MIDI learn): a control change
/// from a MIDI input port sets the target at its frame, its 0...127 spread over
/// `minimum...maximum` (a bypass is on from 64).
public struct MIDIMapping: Sendable, Hashable {
    public enum Target: Sendable, Hashable {
        case parameter(Int32)
        case bypass
    }

    /// The backend's MIDI input port, or nil for any.
    public var port: Int?
    /// The channel, 0...15, or nil for any.
    public var channel: Int?
    public var controller: Int
    public var unitID: UInt64
    public var target: Target
    public var minimum: Float
    public var maximum: Float

    public init(port: Int?, channel: Int?, controller: Int, unitID: UInt64, target: Target, minimum: Float = 0, maximum: Float = 1) {
        self.port = port
        self.channel = channel
        self.controller = controller
        self.unitID = unitID
        self.target = target
        self.minimum = minimum
        self.maximum = maximum
    }
}

/// The mappings of a program in plain memory, and the parameter events a cycle's MIDI
/// input asks of them. Thread: audio for `events`, control for the rest.
struct MIDIMappingTable {
    struct Entry {
        var port: Int32
        var channel: Int32
        var controller: Int32
        var slot: Int32
        var parameter: Int32
        var bypass: UnsafePointer<Atomic<Bool>>?
        var minimum: Float
        var maximum: Float
    }

    let entries: UnsafeMutablePointer<Entry>
    let count: Int

    /// The table in `memory` (the program's). Thread: control.
    init(_ mappings: [MIDIMapping], in memory: Arena, slot: (UInt64) -> Int32, bypass: (UInt64) -> UnsafePointer<Atomic<Bool>>?) {
        let usable = mappings.filter { slot($0.unitID) >= 0 }
        entries = memory.take(usable.count)
        for (index, mapping) in usable.enumerated() {
            var parameter: Int32 = -1
            var flag: UnsafePointer<Atomic<Bool>>?
            switch mapping.target {
            case .parameter(let index): parameter = index
            case .bypass: flag = bypass(mapping.unitID)
            }
            entries[index] = Entry(
                port: Int32(mapping.port ?? -1), channel: Int32(mapping.channel ?? -1), controller: Int32(mapping.controller),
                slot: slot(mapping.unitID), parameter: parameter, bypass: flag, minimum: mapping.minimum, maximum: mapping.maximum)
        }
        count = usable.count
    }

    /// Turns the cycle's control changes into parameter events at their frames (and
    /// bypasses set at once). Thread: audio.
    @inline(__always)
    func events(_ input: MIDIInputView, into due: UnsafeMutablePointer<DueEvent>, count total: inout Int, capacity: Int) {
        guard count > 0 else { return }
        for index in 0..<input.count {
            let event = input[index]
            guard event.length == 3, event.status & 0xF0 == 0xB0 else { continue }
            let channel = Int32(event.status & 0x0F), controller = Int32(event.data1), value = event.data2
            for number in 0..<count {
                let entry = entries[number]
                guard entry.controller == controller, entry.channel < 0 || entry.channel == channel,
                      entry.port < 0 || entry.port == Int32(event.port) else { continue }
                if let flag = entry.bypass {
                    flag.pointee.store(value >= 64, ordering: .relaxed)
                    continue
                }
                guard total < capacity else { return }
                let scaled = entry.minimum + (entry.maximum - entry.minimum) * Float(value) / 127
                due[total] = DueEvent(slot: entry.slot, event: .parameter(index: entry.parameter, value: scaled, rampFrames: 32, offset: Int32(event.frame)))
                total &+= 1
            }
        }
    }
}

/// MIDI learn's meeting point, in the engine's plain memory: the control side arms it,
/// and the audio thread records the first control change it then sees (port, channel,
/// controller). Thread: any.
struct MIDILearnState: ~Copyable {
    static let armed: UInt32 = 1 << 31
    static let heard: UInt32 = 1 << 30
    let state = Atomic<UInt32>(0)

    /// Waits for the next control change from now on. Thread: control.
    func arm() { state.store(Self.armed, ordering: .releasing) }

    /// The control change heard since `arm`, if one was. Thread: control.
    var heardController: (port: Int, channel: Int, controller: Int)? {
        let value = state.load(ordering: .acquiring)
        guard value & Self.heard != 0 else { return nil }
        return (Int(value >> 16 & 0xFF), Int(value >> 8 & 0xFF), Int(value & 0xFF))
    }

    /// Stops waiting. Thread: control.
    public func disarm() { state.store(0, ordering: .releasing) }

    /// Records the first control change of `input` while armed. Thread: audio.
    @inline(__always)
    func listen(_ input: MIDIInputView) {
        guard state.load(ordering: .relaxed) & Self.armed != 0 else { return }
        for index in 0..<input.count {
            let event = input[index]
            guard event.length == 3, event.status & 0xF0 == 0xB0 else { continue }
            let value = Self.heard | UInt32(min(event.port, 255)) << 16 | UInt32(event.status & 0x0F) << 8 | UInt32(event.data1)
            state.store(value, ordering: .releasing)
            return
        }
    }
}
