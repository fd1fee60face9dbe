/// Identifies a property, with Core Audio's numbers where Core Audio has one.
public struct PropertyID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32
    public let name: String
    /// What messages call it, in words for people who never used Core Audio ("preset",
    /// not "PresentPreset (36)").
    public let spokenName: String

    /// `spokenName` defaults to `name` in lower-case words.
    public init(rawValue: UInt32, name: String, spokenName: String? = nil) {
        self.rawValue = rawValue
        self.name = name
        self.spokenName = spokenName ?? Self.words(name)
    }

    /// `MaximumFramesPerSlice` as `maximum frames per slice`.
    static func words(_ name: String) -> String {
        var result = ""
        for character in name {
            if character.isUppercase, !result.isEmpty { result.append(" ") }
            result.append(Character(character.lowercased()))
        }
        return result
    }

    public static let parameterList = PropertyID(rawValue: 3, name: "ParameterList")
    public static let streamFormat = PropertyID(rawValue: 8, name: "StreamFormat")
    public static let elementCount = PropertyID(rawValue: 11, name: "ElementCount", spokenName: "bus count")
    public static let latency = PropertyID(rawValue: 12, name: "Latency")
    public static let maximumFramesPerSlice = PropertyID(rawValue: 14, name: "MaximumFramesPerSlice")
    public static let tailTime = PropertyID(rawValue: 20, name: "TailTime")
    public static let bypassEffect = PropertyID(rawValue: 21, name: "BypassEffect", spokenName: "bypass")
    public static let lastRenderError = PropertyID(rawValue: 22, name: "LastRenderError")
    public static let factoryPresets = PropertyID(rawValue: 24, name: "FactoryPresets")
    public static let presentPreset = PropertyID(rawValue: 36, name: "PresentPreset", spokenName: "preset")
    public static let elementName = PropertyID(rawValue: 30, name: "ElementName", spokenName: "bus name")
    /// The unit renders offline, faster than real time: work it would do on another
    /// thread live (an LV2 worker) it may do in the render call, so a render does not
    /// depend on thread timing.
    public static let offlineRender = PropertyID(rawValue: 37, name: "OfflineRender")

    public static let standard: [PropertyID] = [
        .parameterList, .streamFormat, .elementCount, .latency, .maximumFramesPerSlice,
        .tailTime, .bypassEffect, .lastRenderError, .factoryPresets, .presentPreset, .elementName, .offlineRender,
    ]

    public var description: String { spokenName }

    public static func == (lhs: PropertyID, rhs: PropertyID) -> Bool { lhs.rawValue == rhs.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}

/// A property's value. Each property has one kind of value; setting another kind is
/// an `invalidPropertyValue` error.
public enum PropertyValue: Hashable, Sendable {
    case int(Int)
    case double(Double)
    case bool(Bool)
    case string(String)
    case strings([String])
    case format(StreamFormat)
    case parameters([ParameterInfo])
    case channelMap([Int])

    public var kindName: String {
        switch self {
        case .int: "integer"
        case .double: "number"
        case .bool: "boolean"
        case .string: "string"
        case .strings: "list of strings"
        case .format: "stream format"
        case .parameters: "parameter list"
        case .channelMap: "channel map"
        }
    }
}

/// What `propertyInfo` reports: whether a property exists in a scope, and whether it
/// can be written now.
public struct PropertyInfo: Hashable, Sendable {
    public var isWritable: Bool
    public var kindName: String

    public init(isWritable: Bool, kindName: String) {
        self.isWritable = isWritable
        self.kindName = kindName
    }
}

/// A factory preset of a unit: Core Audio's `AUPreset`.
public struct Preset: Hashable, Sendable {
    public var number: Int
    public var name: String

    public init(number: Int, name: String) {
        self.number = number
        self.name = name
    }
}
