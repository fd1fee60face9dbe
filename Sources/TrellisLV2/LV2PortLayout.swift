import TrellisCore

/// How a plugin's ports map onto an audio unit's buses and parameters.
///
/// Buses: audio ports that share a port group (pg:group) form one bus, channels in
/// pg:left, pg:right, then port order; ungrouped audio ports of one direction form one
/// bus together (a plugin with ports `in_l`, `in_r` and no groups has one stereo input);
/// side-chain ports form their own bus; each CV port is a mono bus after the audio
/// buses. Buses are ordered by their first port.
/// Parameters: every control port, by port index (the parameter id is the port index).
struct LV2PortLayout {
    struct Bus {
        var name: String
        var ports: [Int]
        /// Every port of the bus is `lv2:isSideChain`: never the main input.
        var isSideChain = false
    }

    var inputBuses: [Bus] = []
    var outputBuses: [Bus] = []
    var controlPorts: [Int] = []
    var atomInputs: [Int] = []
    /// Atom inputs that take `time:Position`.
    var timeInputs: [Int] = []
    /// Control inputs designated with a `time:` property, which the transport sets.
    var timeControls: [(port: Int, control: LV2TimeControl)] = []
    var atomOutputs: [Int] = []
    /// The MIDI input buses: atom inputs that take MIDI, the one designated
    /// lv2:control first, then in port order.
    var midiInputs: [Int] = []
    /// The MIDI output buses: atom outputs that carry MIDI, in port order.
    var midiOutputs: [Int] = []
    /// The atom input that MIDI queued from the control side goes to (the first).
    var midiInput: Int?
    var latencyPort: Int?
    /// The atom ports that carry `patch:Message`s to and from the plugin (those
    /// designated lv2:control first), when it has numeric properties.
    var patchInput: Int?
    var patchOutput: Int?
    /// The plugin's numeric properties, in parameter order after the control ports.
    var properties: [LV2PropertyInfo] = []

    init(info: LV2PluginInfo) throws(LV2Error) {
        for port in info.ports {
            switch port.kind {
            case .control:
                controlPorts.append(port.index)
                if port.direction == .input, let control = LV2TimeControl(designation: port.designation) {
                    timeControls.append((port.index, control))
                }
            case .atom:
                if port.direction == .input {
                    atomInputs.append(port.index)
                    if port.supportsTimePosition { timeInputs.append(port.index) }
                } else {
                    atomOutputs.append(port.index)
                }
            case .audio, .cv: break
            case .event, .unknown:
                guard port.has(.connectionOptional) else {
                    throw .unsupportedPort(symbol: port.symbol, types: port.types, plugin: info.uri)
                }
            }
        }
        let midiCapable = info.ports.filter { $0.kind == .atom && $0.direction == .input && $0.supportsMIDI }
        let main = midiCapable.first { $0.designation == LV2URI.control } ?? midiCapable.first
        midiInputs = (main.map { [$0] } ?? []).map(\.index) + midiCapable.filter { $0.index != main?.index }.map(\.index)
        midiInput = main?.index
        midiOutputs = info.ports.filter { $0.kind == .atom && $0.direction == .output && $0.supportsMIDI }.map(\.index)
        latencyPort = info.latencyPort
        func patchPort(_ direction: LV2PortInfo.Direction) -> Int? {
            let candidates = info.ports.filter { $0.kind == .atom && $0.direction == direction && $0.supportsPatch }
            return (candidates.first { $0.designation == LV2URI.control } ?? candidates.first)?.index
        }
        patchInput = patchPort(.input)
        patchOutput = patchPort(.output)
        if patchInput != nil { properties = info.properties.filter(\.type.isNumeric) }
        inputBuses = Self.buses(info.ports.filter { $0.direction == .input })
        outputBuses = Self.buses(info.ports.filter { $0.direction == .output })
    }

    private static func buses(_ ports: [LV2PortInfo]) -> [Bus] {
        var buses: [Bus] = []
        var groupBus: [String: Int] = [:]
        var mainBus: Int?
        for port in ports where port.kind == .audio {
            if let group = port.group {
                if let index = groupBus[group] {
                    buses[index].ports.append(port.index)
                } else {
                    groupBus[group] = buses.count
                    let name = group.split(whereSeparator: { $0 == "/" || $0 == "#" }).last.map(String.init) ?? group
                    buses.append(Bus(name: name, ports: [port.index]))
                }
            } else if port.has(.sideChain) {
                buses.append(Bus(name: port.symbol, ports: [port.index]))
            } else if let mainBus {
                buses[mainBus].ports.append(port.index)
            } else {
                mainBus = buses.count
                buses.append(Bus(name: port.symbol, ports: [port.index]))
            }
        }
        let byIndex = Dictionary(uniqueKeysWithValues: ports.map { ($0.index, $0) })
        for index in buses.indices {
            buses[index].ports.sort { a, b in
                func rank(_ port: Int) -> Int {
                    switch byIndex[port]?.designation {
                    case LV2URI.left: 0
                    case LV2URI.right: 1
                    default: 2
                    }
                }
                return (rank(a), a) < (rank(b), b)
            }
        }
        for index in buses.indices {
            buses[index].isSideChain = buses[index].ports.allSatisfy { byIndex[$0]?.has(.sideChain) == true }
        }
        // The main audio comes first, whatever the port order: side-chains after it.
        buses = buses.filter { !$0.isSideChain } + buses.filter(\.isSideChain)
        for port in ports where port.kind == .cv { buses.append(Bus(name: port.symbol, ports: [port.index])) }
        return buses
    }

    /// The parameter for a control port, with LV2's hints in Trellis' terms.
    static func parameter(for port: LV2PortInfo, sampleRate: Double) -> ParameterInfo {
        let scale: Float = port.has(.sampleRate) ? Float(sampleRate) : 1
        let unscaledLow = port.minimum ?? 0
        let unscaledHigh = port.maximum ?? (port.has(.toggled) ? 1 : max(1, port.defaultValue ?? 1))
        var low = unscaledLow * scale, high = unscaledHigh * scale
        if port.has(.toggled) { low = 0; high = 1 }
        if low > high { swap(&low, &high) }
        let defaultValue: Float
        if port.direction == .output {
            // What a host shows before the first run: the port's default, else 0 (lilv
            // hosts do the same; some plugins read their own outputs).
            defaultValue = port.defaultValue ?? 0
        } else if let given = port.defaultValue, port.has(.sampleRate) {
            // The spec scales the bounds only. A default inside the unscaled bounds is a
            // fraction of the rate; one outside them was written in Hz.
            let inside = given >= min(unscaledLow, unscaledHigh) && given <= max(unscaledLow, unscaledHigh)
            defaultValue = min(max(inside ? given * scale : given, low), high)
        } else {
            defaultValue = min(max((port.defaultValue ?? low) * scale, low), high)
        }
        var flags: ParameterFlags = port.direction == .output ? .meter : .readWrite
        if port.has(.toggled) { flags.insert(.toggled) }
        if port.has(.integer) { flags.insert(.integer) }
        if port.has(.enumeration) { flags.insert(.enumeration) }
        if port.has(.logarithmic) { flags.insert(.logarithmic) }
        var unit = parameterUnit(port.unit)
        if port.has(.toggled) { unit = .boolean } else if port.has(.enumeration) { unit = .indexed }
        // Value names by index only make sense when the points are 0, 1, 2, ...
        let points = port.scalePoints
        let indexed = !points.isEmpty && points.enumerated().allSatisfy { Float($0.offset) == $0.element.value }
        return ParameterInfo(
            address: ParameterAddress(UInt32(port.index)),
            identifier: port.symbol,
            name: port.name,
            unit: unit,
            range: low...high,
            defaultValue: defaultValue,
            flags: flags,
            valueStrings: indexed ? points.map(\.label) : [])
    }

    /// The parameter for numeric property `number` (0-based) of a plugin with
    /// `portCount` ports: its id follows the port indices; its identifier is the URI's
    /// last part (`eg-params#int` is `int`) unless a port symbol or another property
    /// has it, then the whole URI. Unbounded numbers get a range wide enough for any
    /// setting a person types.
    static func parameter(for property: LV2PropertyInfo, number: Int, portCount: Int, taken: Set<String>) -> ParameterInfo {
        let tail = String(property.uri.split(whereSeparator: { $0 == "#" || $0 == "/" }).last ?? Substring(property.uri))
        let identifier = taken.contains(tail) ? property.uri : tail
        var low: Float, high: Float
        var flags: ParameterFlags = property.isWritable ? .readWrite : .meter
        var unit = parameterUnit(property.unit)
        switch property.type {
        case .bool:
            (low, high) = (0, 1)
            flags.insert(.toggled)
            unit = .boolean
        case .int, .long:
            (low, high) = (property.minimum ?? -16_777_216, property.maximum ?? 16_777_216)
            flags.insert(.integer)
        default:
            (low, high) = (property.minimum ?? -1e9, property.maximum ?? 1e9)
        }
        if low > high { swap(&low, &high) }
        return ParameterInfo(
            address: ParameterAddress(UInt32(portCount + number)),
            identifier: identifier,
            name: property.label,
            unit: unit,
            range: low...high,
            defaultValue: min(max(property.defaultValue ?? min(max(0, low), high), low), high),
            flags: flags)
    }

    static func parameterUnit(_ uri: String?) -> ParameterUnit {
        guard let uri, uri.hasPrefix(LV2URI.unitsNS) else { return .generic }
        switch String(uri.dropFirst(LV2URI.unitsNS.count)) {
        case "db": return .decibels
        case "hz", "khz", "mhz": return .hertz
        case "ms": return .milliseconds
        case "s": return .seconds
        case "pc": return .percent
        case "midiNote": return .midiNoteNumber
        case "semitone12TET": return .semitones
        case "cent": return .cents
        case "degree": return .degrees
        case "m", "cm", "mm", "km": return .meters
        case "coef": return .linearGain
        case "frame": return .sampleFrames
        default: return .generic
        }
    }
}
