import TrellisCore

/// How an LV2 plugin gets its `type:subtype:manufacturer` triple. The rule is stable:
/// it depends only on the plugin's URI and class, never on what else is installed,
/// except for the collision probe below, which no two installed plugins have needed.
///
/// - type: from the LV2 class. Instrument → `aumu`; generator, oscillator, constant →
///   `augn`; analyser → `auan`; mixer → `aumx`; converter → `aufc`; MIDI plugin →
///   `aumi`; every other class (amplifier, filter, delay, reverb, dynamics, ...,
///   utility) → `aufx`. A plugin of the bare `lv2:Plugin` class is typed by its ports:
///   audio in → effect; audio out and MIDI in → instrument; audio out only →
///   generator; audio in only → analyser; MIDI only → MIDI processor.
/// - manufacturer: the first four letters or digits of the URI's host name, lowercased,
///   after dropping `www.`, padded with `_` (`http://drobilla.net/...` → `drob`,
///   `http://plugin.org.uk/...` → `plug`, `urn:zam:...` → `zam_`). Built-ins own
///   `trls`; a plugin whose host would give `trls` gets `trl_`.
/// - subtype: the 32-bit FNV-1a hash of the URI's UTF-8 bytes, written as four
///   base-36 digits (`0-9a-z`, most significant first, of the hash modulo 36⁴).
///   If the triple is already taken by another plugin in the registry, the hash of
///   `URI#1`, `URI#2`, ... is used instead. `LV2Components.register` assigns codes in
///   sorted URI order, so a full scan gives the same codes on every run.
public enum LV2ComponentCodes {
    static let classTypes: [String: FourCC] = {
        var table: [String: FourCC] = [:]
        for name in ["InstrumentPlugin"] { table[LV2URI.core + name] = ComponentType.instrument }
        for name in ["GeneratorPlugin", "OscillatorPlugin", "ConstantPlugin"] { table[LV2URI.core + name] = ComponentType.generator }
        table[LV2URI.core + "AnalyserPlugin"] = ComponentType.analyser
        table[LV2URI.core + "MixerPlugin"] = ComponentType.mixer
        table[LV2URI.core + "ConverterPlugin"] = ComponentType.formatConverter
        table[LV2URI.core + "MIDIPlugin"] = ComponentType.midiProcessor
        return table
    }()

    /// The component type for a plugin's declared classes and ports.
    public static func type(classURIs: [String], ports: [LV2PortInfo]) -> FourCC {
        for uri in classURIs { if let type = classTypes[uri] { return type } }
        let specific = classURIs.contains { $0.hasPrefix(LV2URI.core) && $0 != LV2URI.core + "Plugin" }
        if specific { return ComponentType.effect }
        let audioIn = ports.contains { $0.kind == .audio && $0.direction == .input }
        let audioOut = ports.contains { $0.kind == .audio && $0.direction == .output }
        let midiIn = ports.contains { $0.kind == .atom && $0.direction == .input && $0.supportsMIDI }
        switch (audioIn, audioOut) {
        case (true, true): return ComponentType.effect
        case (false, true): return midiIn ? ComponentType.instrument : ComponentType.generator
        case (true, false): return ComponentType.analyser
        case (false, false): return midiIn ? ComponentType.midiProcessor : ComponentType.effect
        }
    }

    /// The manufacturer code from the URI's host.
    public static func manufacturer(uri: String) -> FourCC {
        var rest = Substring(uri)
        if let colon = rest.firstIndex(of: ":") {
            rest = rest[rest.index(after: colon)...]
            while rest.hasPrefix("/") { rest = rest.dropFirst() }
        }
        if rest.hasPrefix("www.") { rest = rest.dropFirst(4) }
        let letters = rest.lowercased().unicodeScalars.prefix { $0 != "/" && $0 != ":" && $0 != "#" }
            .filter { ($0 >= "a" && $0 <= "z") || ($0 >= "0" && $0 <= "9") || $0 == "." }
            .prefix { $0 != "." }
        var code = String(String.UnicodeScalarView(letters.prefix(4)))
        while code.count < 4 { code += "_" }
        if code == Manufacturer.trellis.description { code = "trl_" }
        return (try? FourCC(code)) ?? "lv2_"
    }

    /// The subtype for `uri`, probing `attempt` > 0 after a collision.
    public static func subtype(uri: String, attempt: Int = 0) -> FourCC {
        let key = attempt == 0 ? uri : "\(uri)#\(attempt)"
        var hash: UInt32 = 0x811C_9DC5
        for byte in key.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 0x0100_0193
        }
        let digits = Array("0123456789abcdefghijklmnopqrstuvwxyz".utf8)
        var value = hash % (36 * 36 * 36 * 36)
        var code = [UInt8](repeating: 0, count: 4)
        for position in stride(from: 3, through: 0, by: -1) {
            code[position] = digits[Int(value % 36)]
            value /= 36
        }
        return FourCC(rawValue: code.reduce(0) { ($0 << 8) | UInt32($1) })
    }

    /// The short name the command line may use: `lv2-` and the URI's last path
    /// segment (a `#fragment` joined with `-`), lowercased, e.g. `lv2-eg-amp`,
    /// `lv2-epiano`, `lv2-eg-scope-mono`. Sessions use the URI, which never changes.
    public static func shortName(uri: String) -> String {
        var text = Substring(uri)
        var fragment: Substring?
        if let hash = text.lastIndex(of: "#") {
            fragment = text[text.index(after: hash)...]
            text = text[..<hash]
        }
        while text.hasSuffix("/") { text = text.dropLast() }
        let leaf = text.split(whereSeparator: { $0 == "/" || $0 == ":" }).last.map(String.init) ?? uri
        let name = fragment.map { "\(leaf)-\($0)" } ?? leaf
        return "lv2-" + name.lowercased()
    }
}
