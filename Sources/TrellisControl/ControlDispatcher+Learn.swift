import Foundation
import TrellisCore
import TrellisGraph
import TrellisSession

/// MIDI learn: `learn NODE PARAM` waits (off the session's queue, like a file job) for
/// the next control change on any of the session's MIDI inputs, and maps that
/// controller, on that port and channel, to the parameter (or to the node's bypass).
extension ControlDispatcher {
    func learnJob(_ name: String, _ target: String, _ minimum: String?, _ maximum: String?) throws(ControlError) -> FileJob {
        let found = try topNode(name)
        var identifier: String?
        var low: Float?, high: Float?
        if target.lowercased() != "bypass" {
            let info = try parameter(target, of: found.unit, node: name)
            guard info.isWritable else { throw ControlError(UnitFactoryError.readOnlyParameter(target), node: name) }
            identifier = info.identifier
            low = try minimum.map { text throws(ControlError) in try decode(text, for: info, named: info.identifier, node: name) }
            high = try maximum.map { text throws(ControlError) in try decode(text, for: info, named: info.identifier, node: name) }
        } else if minimum != nil {
            throw ControlError(.syntax, "learn: bypass takes no range (a controller at 64 or more bypasses)")
        }
        let engine = graph.engine
        let id = found.id
        engine.armMIDILearn()
        return FileJob(summary: "learn \(name) \(target)", onTimeout: "no controller moved, and nothing was mapped") { [self, identifier, low, high] token in
            var heard: (port: Int, channel: Int, controller: Int)?
            while heard == nil && !token.isAbandoned {
                usleep(5_000)
                heard = engine.heardController
            }
            engine.disarmMIDILearn()
            return { [self, heard] in
                guard let heard else { return .error(ControlError(.timeout, "learn: no controller moved")) }
                let mapping = ControllerMapping(port: heard.port, channel: heard.channel, controller: heard.controller, node: id,
                                                parameter: identifier, minimum: low, maximum: high)
                do throws(ControlError) {
                    try locked { () throws(ControlError) in
                        do throws(GraphError) { try graph.map(mapping) } catch { throw ControlError(error) }
                    }
                } catch { return .error(error) }
                countEdit()
                return .ok(text: describe(mapping), value: .object([
                    ("node", .string(name)), ("target", .string(identifier ?? "bypass")), ("controller", .number(heard.controller)),
                    ("channel", .number(heard.channel + 1)), ("port", .string(portName(heard.port))),
                ]))
            }
        }
    }

    func unlearn(_ name: String?, _ target: String?) throws(ControlError) -> ControlReply {
        let id = try name.map { word throws(ControlError) in try topNode(word).id }
        try locked { () throws(ControlError) in
            do throws(GraphError) { try graph.unmap(node: id, parameter: target) } catch { throw ControlError(error) }
        }
        return .done
    }

    func mappings() -> ControlReply {
        let lines = graph.controllerMappings.map(describe)
        return .ok(text: lines.joined(separator: "; "), value: .array(lines.map { .string($0) }))
    }

    /// `trim.gain cc=7 channel=1 port=keys`.
    func describe(_ mapping: ControllerMapping) -> String {
        let node = (try? graph.node(mapping.node).name) ?? "?"
        var words = ["\(node).\(mapping.parameter ?? "bypass")", "cc=\(mapping.controller)"]
        if let channel = mapping.channel { words.append("channel=\(channel + 1)") }
        if let port = mapping.port { words.append("port=\(portName(port))") }
        return words.joined(separator: " ")
    }

    private func portName(_ port: Int) -> String {
        let names = target.session.loadedDocument.jack?.midiInputs ?? []
        return port < names.count ? names[port] : "\(port + 1)"
    }
}
