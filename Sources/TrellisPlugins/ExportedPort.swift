import TrellisCore

/// One port of an exported plugin. Audio ports come first (inputs bus by bus, then
/// outputs), then a control port per shown parameter, then the latency output of a
/// unit that has latency, then the event input of a unit that takes MIDI or loads
/// content. Thread: any (a value).
public struct ExportedPort: Sendable, Equatable {
    public enum Role: Sendable, Equatable {
        case audioInput(bus: Int, channel: Int)
        case audioOutput(bus: Int, channel: Int)
        /// A parameter the host sets; `index` in the unit's parameter list.
        case controlInput(index: Int)
        /// A parameter the unit writes (a meter, gain reduction).
        case controlOutput(index: Int)
        case latency
        /// An atom sequence in: MIDI, and `patch:Set` for a plugin's content.
        case events
    }

    public let role: Role
    /// An LV2 symbol: letters, digits and underscores, not starting with a digit.
    public let symbol: String
    public let name: String
    /// The parameter behind a control port.
    public let parameter: ParameterInfo?

    /// Every port of `unit`, with the parameters `shown` allows as control ports.
    static func layout(of unit: AudioUnitBase, names: [String: String], takesEvents: Bool, shown: (ParameterInfo) -> Bool) -> [ExportedPort] {
        var ports: [ExportedPort] = []
        for (scope, isInput) in [(Scope.input, true), (Scope.output, false)] {
            let buses = unit.elementCount(scope)
            for bus in 0..<buses {
                let channels = (try? unit.format(scope: scope, element: bus).channelCount) ?? 0
                for channel in 0..<channels {
                    let direction = isInput ? "in" : "out"
                    let busPart = buses > 1 ? "\(bus)_" : ""
                    let channelName = channels == 1 ? "" : channels == 2 ? (channel == 0 ? " Left" : " Right") : " \(channel + 1)"
                    let busName = buses > 1 ? " \(bus + 1)" : ""
                    ports.append(ExportedPort(
                        role: isInput ? .audioInput(bus: bus, channel: channel) : .audioOutput(bus: bus, channel: channel),
                        symbol: "\(direction)\(busPart)\(channel + 1)",
                        name: (isInput ? "Input" : "Output") + busName + channelName, parameter: nil))
                }
            }
        }
        for (index, info) in unit.parameters.enumerated() where shown(info) {
            let isOutput = info.flags.contains(.output)
            ports.append(ExportedPort(role: isOutput ? .controlOutput(index: index) : .controlInput(index: index),
                                      symbol: Self.symbol(for: info.identifier), name: names[info.identifier] ?? info.name, parameter: info))
        }
        if unit.latencyFrames > 0 || unit is LatencyReporting {
            ports.append(ExportedPort(role: .latency, symbol: "latency", name: "Latency", parameter: nil))
        }
        if takesEvents || unit.midiBusCount(.input) > 0 {
            ports.append(ExportedPort(role: .events, symbol: "control", name: "Control", parameter: nil))
        }
        return ports
    }

    /// `band3.gain` → `band3_gain`.
    static func symbol(for identifier: String) -> String {
        var symbol = String(identifier.unicodeScalars.map { scalar -> Character in
            scalar.properties.isAlphabetic && scalar.isASCII || ("0"..."9").contains(scalar) ? Character(scalar) : "_"
        })
        if let first = symbol.first, first.isNumber { symbol = "_" + symbol }
        return symbol
    }
}

/// A unit whose latency can change with its parameters, so its plugin always has a
/// latency port (the limiter's look-ahead).
public protocol LatencyReporting {}
