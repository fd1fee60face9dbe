import Foundation
import TrellisCore
import TrellisUnits

/// A node as text describes it, before any unit exists: what a session's node, `ctl add
/// NODE UNIT name=value ...` and a `trellis chain` stage all come down to. `UnitFactory`
/// turns it into a configured unit.
///
/// Thread: any (a plain value).
public struct NodeDescription: Sendable, Equatable {
    /// A short name, a `type:subtype:manufacturer` triple, `lv2:URI` or a plugin URI.
    public var unit: String
    /// Parameter settings in the order written, values as text: they are read by the
    /// parameter's kind (see `ParameterText`) once the unit is known.
    public var parameters: [Setting] = []
    /// Bus counts and channels per bus, where the unit's defaults do not fit.
    public var inputs: Int?
    public var outputs: Int?
    /// On a mono unit (one mono bus each way), more than one runs it once per channel.
    public var channels: Int?
    public var inputChannels: Int?
    public var outputChannels: Int?
    /// Saved plugin state (see `StatefulUnit`).
    public var state: String?
    /// Files by the name the unit takes them under (see `FileTakingUnit`); `files.NAME=`
    /// in the `name=value` form. Paths are as written until the reader of the text
    /// anchors relative ones (`anchoringFiles`).
    public var files: [Setting] = []
    /// A factory preset's name or number.
    public var preset: String?
    public var bypass: Bool?
    /// Which input channel feeds each output channel (a converter's `ChannelMap`).
    public var channelMap: [Int]?
    /// Run the plugin in a process of its own (nil: as the session's `isolate:` says),
    /// its deadline as a share of the period, what it outputs after a fault, and
    /// whether it starts again by itself (see `Isolation`).
    public var isolate: Bool?
    public var deadline: Double?
    public var onFault: Isolation.FaultOutput?
    public var restart: Bool?

    /// `name=value` as written.
    public struct Setting: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The keys a node takes besides parameters, spelt as a session's node spells them.
    /// In the `name=value` form, these names set the node, never a parameter.
    public enum Key: String, Sendable, CaseIterable {
        case inputs, outputs, channels
        case inputChannels = "input-channels"
        case outputChannels = "output-channels"
        case state, preset, bypass
        case channelMap = "channel-map"
        case isolate, deadline
        case onFault = "on-fault"
        case restart
    }

    /// How the `name=value` form names a file (`files.sample=kick.wav`).
    public static let filePrefix = "files."

    /// The description with relative file paths made absolute against `folder`.
    public func anchoringFiles(in folder: String) -> NodeDescription {
        var anchored = self
        anchored.files = files.map { file in
            let path = SessionLoader.resolve(file.value, in: folder)
            return Setting(name: file.name, value: path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path)
        }
        return anchored
    }

    /// What an error is about.
    public enum Field: Sendable, Equatable {
        case unit
        case key(Key)
        /// A parameter setting's name, as written.
        case parameterName(String)
        /// A parameter setting's value, by the setting's name as written.
        case parameterValue(String)
        /// A file's path, by the name it is given under.
        case file(String)
    }

    /// Bus counts and channel widths a node may ask for; the limits keep a typo from
    /// allocating gigabytes.
    public static let busLimit = 0...128
    public static let channelLimit = 1...256

    public init(unit: String, parameters: [Setting] = []) {
        self.unit = unit
        self.parameters = parameters
    }

    /// The `UNIT name=value ...` form of `ctl add` and `trellis chain`: a node key sets
    /// the node, any other name a parameter. A name may appear once (as in a YAML
    /// mapping, names that differ in case are different names).
    public init(unit: String, settings: [(name: String, value: String)]) throws(UnitFactoryError) {
        self.unit = unit
        var seen = Set<String>()
        for (name, value) in settings {
            guard seen.insert(name).inserted else { throw .repeatedSetting(name) }
            if let key = Key(rawValue: name) {
                try set(key, from: value)
            } else if name.hasPrefix(Self.filePrefix) {
                let slot = String(name.dropFirst(Self.filePrefix.count))
                guard !slot.isEmpty, !value.isEmpty else {
                    throw .invalidSetting(key: name, text: value, expected: "files.NAME=PATH", reason: nil)
                }
                files.append(Setting(name: slot, value: value))
            } else {
                parameters.append(Setting(name: name, value: value))
            }
        }
    }

    /// Sets a node key from its text, by the key's type; a session's reader and the
    /// `name=value` form both come through here.
    public mutating func set(_ key: Key, from text: String) throws(UnitFactoryError) {
        switch key {
        case .inputs: inputs = try Self.count(text, key: key, in: Self.busLimit)
        case .outputs: outputs = try Self.count(text, key: key, in: Self.busLimit)
        case .channels: channels = try Self.count(text, key: key, in: Self.channelLimit)
        case .inputChannels: inputChannels = try Self.count(text, key: key, in: Self.channelLimit)
        case .outputChannels: outputChannels = try Self.count(text, key: key, in: Self.channelLimit)
        case .state: state = text
        case .preset: preset = text
        case .bypass: bypass = try Self.boolean(text, key: key)
        case .channelMap:
            guard let map = ChannelMap(text: text) else {
                throw .invalidSetting(key: key.rawValue, text: text,
                                      expected: "input channel numbers, silence or mix, separated by commas (1,0 swaps a pair)", reason: nil)
            }
            channelMap = map.entries
        // The issue and Carla's users say `isolate=yes`; a yes or no here can mean
        // nothing but the boolean it spells.
        case .isolate:
            guard let value = StrictScalar.boolean(text) ?? ["yes": true, "no": false][text] else {
                throw .invalidSetting(key: key.rawValue, text: text, expected: "true, false, yes or no", reason: nil)
            }
            isolate = value
        case .deadline:
            let range = Isolation.deadlineRange
            guard let value = Double(text), range.contains(value) else {
                throw .invalidSetting(key: key.rawValue, text: text, expected: "a share of the period from \(range.lowerBound) to \(range.upperBound)", reason: nil)
            }
            deadline = value
        case .onFault:
            guard let output = Isolation.FaultOutput(rawValue: text) else {
                throw .invalidSetting(key: key.rawValue, text: text, expected: "silence or input", reason: nil)
            }
            onFault = output
        case .restart:
            switch text {
            case "auto": restart = true
            case "manual": restart = false
            default: throw .invalidSetting(key: key.rawValue, text: text, expected: "auto or manual", reason: nil)
            }
        }
    }

    /// How the node runs in a process of its own, when it does: as it says, or as the
    /// session's default (`isolatesByDefault`) says for a unit that can.
    public func isolation(isolatesByDefault: Bool, unitCanIsolate: Bool) -> Isolation? {
        guard isolate ?? (isolatesByDefault && unitCanIsolate) else { return nil }
        return Isolation(deadline: deadline ?? 0.5, onFault: onFault ?? .silence, restartsAutomatically: restart ?? false)
    }

    /// A whole decimal number in `range`, refusing what YAML 1.1 would read otherwise.
    public static func count(_ text: String, key: Key, in range: ClosedRange<Int>) throws(UnitFactoryError) -> Int {
        let expected = "a whole number in \(range.lowerBound)...\(range.upperBound)"
        switch StrictScalar.integer(text) {
        case .success(let value) where range.contains(value): return value
        case .success: throw .invalidSetting(key: key.rawValue, text: text, expected: expected, reason: nil)
        case .failure(.ambiguous(_, let reason)): throw .invalidSetting(key: key.rawValue, text: text, expected: expected, reason: reason)
        case .failure: throw .invalidSetting(key: key.rawValue, text: text, expected: expected, reason: nil)
        }
    }

    /// `true` or `false`, exactly: a typed boolean, not YAML 1.1's `yes`/`no`/`on`/`off`.
    public static func boolean(_ text: String, key: Key) throws(UnitFactoryError) -> Bool {
        if let value = StrictScalar.boolean(text) { return value }
        let reason = StrictScalar.yaml11Booleans.contains(text.lowercased()) ? "YAML 1.1 spellings are not accepted" : nil
        throw .invalidSetting(key: key.rawValue, text: text, expected: "true or false", reason: reason)
    }

    /// Whether the unit is an LV2 plugin named by URI, which a session keeps as a
    /// placeholder when it is not installed.
    public var namesPlugin: Bool {
        unit.hasPrefix("lv2:") || unit.contains("://") || unit.hasPrefix("urn:")
    }
}
