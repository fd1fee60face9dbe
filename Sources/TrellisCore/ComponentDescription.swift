/// Identifies a kind of audio unit by type, subtype and manufacturer, as Core Audio's
/// `AudioComponentDescription` does. Written as text it is `type:subtype:manufacturer`,
/// for example `aufx:nbeq:trls`.
public struct ComponentDescription: Hashable, Sendable, CustomStringConvertible {
    public var type: FourCC
    public var subtype: FourCC
    public var manufacturer: FourCC

    public init(type: FourCC, subtype: FourCC, manufacturer: FourCC) {
        self.type = type
        self.subtype = subtype
        self.manufacturer = manufacturer
    }

    /// Parses `type:subtype:manufacturer`; `*` in a field is a wildcard.
    public init(_ text: String) throws(ComponentDescriptionError) {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 3 else { throw .wrongFieldCount(text) }
        var codes: [FourCC] = []
        for field in fields {
            if field == "*" { codes.append(.any); continue }
            do {
                codes.append(try FourCC(String(field)))
            } catch {
                throw .badCode(text, error)
            }
        }
        self.init(type: codes[0], subtype: codes[1], manufacturer: codes[2])
    }

    /// True where a zero field in `self` matches anything, as `AudioComponentFindNext` treats them.
    public func matches(_ other: ComponentDescription) -> Bool {
        (type.isWildcard || type == other.type)
            && (subtype.isWildcard || subtype == other.subtype)
            && (manufacturer.isWildcard || manufacturer == other.manufacturer)
    }

    public var hasWildcards: Bool { type.isWildcard || subtype.isWildcard || manufacturer.isWildcard }

    public var description: String {
        [type, subtype, manufacturer].map { $0.isWildcard ? "*" : $0.description }.joined(separator: ":")
    }
}

public enum ComponentDescriptionError: Error, Equatable, CustomStringConvertible {
    case wrongFieldCount(String)
    case badCode(String, FourCCError)

    public var description: String {
        switch self {
        case .wrongFieldCount(let text):
            return "component description \"\(text)\" must be type:subtype:manufacturer, e.g. aufx:nbeq:trls"
        case .badCode(let text, let error):
            return "component description \"\(text)\": \(error)"
        }
    }
}

/// Component types, with Core Audio's codes.
public enum ComponentType {
    public static let output: FourCC = "auou"
    public static let instrument: FourCC = "aumu"
    public static let musicEffect: FourCC = "aumf"
    public static let formatConverter: FourCC = "aufc"
    public static let effect: FourCC = "aufx"
    public static let mixer: FourCC = "aumx"
    public static let panner: FourCC = "aupn"
    public static let generator: FourCC = "augn"
    public static let offlineEffect: FourCC = "auol"
    /// Core Audio's MIDI processor: MIDI in, MIDI out, no audio.
    public static let midiProcessor: FourCC = "aumi"
    /// Trellis' own type for units that only observe audio (LV2 analysers).
    public static let analyser: FourCC = "auan"

    /// A readable name for a type code, for listings.
    public static func name(of type: FourCC) -> String {
        switch type {
        case output: "output"
        case instrument: "instrument"
        case musicEffect: "music effect"
        case formatConverter: "format converter"
        case effect: "effect"
        case mixer: "mixer"
        case panner: "panner"
        case generator: "generator"
        case offlineEffect: "offline effect"
        case midiProcessor: "MIDI processor"
        case analyser: "analyser"
        default: type.description
        }
    }
}

/// Subtype codes of the built-in units (Core Audio's where one exists) and Trellis'
/// manufacturer code.
public enum BuiltInSubtype {
    public static let multichannelMixer: FourCC = "mcmx"
    public static let mixer3D: FourCC = "3dem"
    public static let converter: FourCC = "conv"
    public static let nBandEQ: FourCC = "nbeq"
    public static let graphicEQ: FourCC = "greq"
    public static let iPodEQ: FourCC = "ipeq"
    public static let splitter: FourCC = "splt"
    public static let merger: FourCC = "merg"
    public static let genericOutput: FourCC = "genr"
    public static let graphInput: FourCC = "ginp"
    public static let midiInputPort: FourCC = "mdin"
    public static let midiOutputPort: FourCC = "mdot"
    public static let filePlayer: FourCC = "afpl"
    public static let midiFilePlayer: FourCC = "mfpl"
    public static let peakLimiter: FourCC = "lmtr"
    public static let delay: FourCC = "dely"
    public static let toneGenerator: FourCC = "tone"
    public static let gain: FourCC = "gain"
    public static let subgraph: FourCC = "sgrf"
    public static let dynamicsProcessor: FourCC = "dcmp"
    public static let reverb: FourCC = "rvb2"
    public static let distortion: FourCC = "dist"
    public static let varispeed: FourCC = "vari"
    public static let timePitch: FourCC = "nutp"
    public static let sampler: FourCC = "samp"
}

public enum Manufacturer {
    public static let trellis: FourCC = "trls"
}
