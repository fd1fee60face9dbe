/// Identifies a parameter within a unit: Core Audio's (id, scope, element) triple.
public struct ParameterAddress: Hashable, Sendable, BitwiseCopyable, CustomStringConvertible {
    public var id: UInt32
    public var scope: Scope
    public var element: Int

    public init(_ id: UInt32, scope: Scope = .global, element: Int = 0) {
        self.id = id
        self.scope = scope
        self.element = element
    }

    public var description: String {
        scope == .global ? "\(id)" : "\(id) (\(scope) \(element))"
    }
}

/// What a parameter's number means, for display and for sessions.
public enum ParameterUnit: String, Sendable, CaseIterable {
    case generic, indexed, boolean, percent, seconds, milliseconds, sampleFrames
    case hertz, cents, semitones, midiNoteNumber, decibels, linearGain
    case degrees, meters, pan, ratio, phase
}

/// Hints a host needs to present and validate a parameter.
public struct ParameterFlags: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let readable = ParameterFlags(rawValue: 1 << 0)
    public static let writable = ParameterFlags(rawValue: 1 << 1)
    /// The value moves logarithmically between its bounds (frequencies, times).
    public static let logarithmic = ParameterFlags(rawValue: 1 << 2)
    /// Only whole numbers are meaningful.
    public static let integer = ParameterFlags(rawValue: 1 << 3)
    /// Off (0) or on (1).
    public static let toggled = ParameterFlags(rawValue: 1 << 4)
    /// One of `valueStrings`, by index.
    public static let enumeration = ParameterFlags(rawValue: 1 << 5)
    /// Written by the unit as it renders (a meter or a plugin's control output).
    public static let output = ParameterFlags(rawValue: 1 << 6)
    /// Changes are smoothed by the unit, so a step never clicks.
    public static let ramped = ParameterFlags(rawValue: 1 << 7)

    public static let readWrite: ParameterFlags = [.readable, .writable]
    public static let meter: ParameterFlags = [.readable, .output]
}

/// Describes one parameter: Core Audio's `AudioUnitParameterInfo`.
public struct ParameterInfo: Hashable, Sendable {
    public var address: ParameterAddress
    /// The identifier sessions and the command line use, e.g. `freq` or `band3.gain`.
    public var identifier: String
    /// A readable name, e.g. "Frequency".
    public var name: String
    public var unit: ParameterUnit
    public var range: ClosedRange<Float>
    public var defaultValue: Float
    public var flags: ParameterFlags
    /// Names of the values of an enumeration, by index.
    public var valueStrings: [String]

    public init(
        address: ParameterAddress,
        identifier: String,
        name: String,
        unit: ParameterUnit = .generic,
        range: ClosedRange<Float>,
        defaultValue: Float,
        flags: ParameterFlags = .readWrite,
        valueStrings: [String] = []
    ) {
        self.address = address
        self.identifier = identifier
        self.name = name
        self.unit = unit
        self.range = range
        self.defaultValue = defaultValue
        self.flags = flags
        self.valueStrings = valueStrings
    }

    public var isWritable: Bool { flags.contains(.writable) && !flags.contains(.output) }
}

/// A parameter change on its way to the audio thread, applied at `sampleTime` (or at
/// the start of the next cycle when earlier) and ramped linearly over `rampFrames`.
public struct ParameterEvent: Sendable, BitwiseCopyable {
    public var unitID: UInt64
    public var index: Int32
    public var value: Float
    public var rampFrames: Int32
    public var sampleTime: Int64

    public init(unitID: UInt64, index: Int32, value: Float, rampFrames: Int32 = 0, sampleTime: Int64 = .min) {
        self.unitID = unitID
        self.index = index
        self.value = value
        self.rampFrames = rampFrames
        self.sampleTime = sampleTime
    }
}

/// Where a unit that is being rendered sends its parameter changes, so that they reach
/// the audio thread instead of racing it. The graph's engine implements it.
public protocol ParameterEventSink: AnyObject, Sendable {
    /// Queues an event for the audio thread. Thread: any but audio.
    func enqueue(_ event: ParameterEvent) -> ParameterDelivery
}

/// What became of a parameter change handed to a sink.
public enum ParameterDelivery: Sendable {
    /// On its way to the audio thread.
    case queued
    /// Nothing renders now; the caller applies the change itself.
    case notRendering
    /// The queue is full (the audio thread has stalled); the change was not made.
    case full
}

extension Float {
    /// The value as the decimal it was written as: `0.8` is 0.8, not the float nearest it
    /// widened (0.800000011920929), so a rate of 0.8 stretches by exactly 1.25, as the
    /// `rubberband` command's `-T 0.8` does. Thread: any but audio (formats text).
    public var decimal: Double { Double(description) ?? Double(self) }
}
