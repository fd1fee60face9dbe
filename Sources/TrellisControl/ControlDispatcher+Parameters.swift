import TrellisCore
import TrellisGraph
import TrellisSession

extension ControlDispatcher {
    func set(_ name: String, _ identifier: String, _ text: String, rampMilliseconds: Double?) throws(ControlError) -> ControlReply {
        let found = try node(name)
        let info = try parameter(identifier, of: found.unit, node: name)
        guard info.isWritable else { throw ControlErrors.map(UnitFactoryError.readOnlyParameter(identifier), node: name) }
        let value = try decode(text, for: info, named: identifier, node: name)
        let frames = Int(((rampMilliseconds ?? 0) * graph.sampleRate / 1000).rounded())
        do { try found.unit.setParameter(info.address, value, rampFrames: frames) } catch { throw ControlErrors.map(error, node: name) }
        let written = ParameterText.encode(value, for: info)
        return .ok(text: written, value: .object([("node", .string(name)), ("parameter", .string(info.identifier)), ("value", .number(value)), ("text", .string(written)), ("rampFrames", .number(frames))]))
    }

    func get(_ name: String, _ identifier: String) throws(ControlError) -> ControlReply {
        let found = try node(name)
        let info = try parameter(identifier, of: found.unit, node: name)
        let value: Float
        do { value = try found.unit.parameterValue(info.address) } catch { throw ControlErrors.map(error, node: name) }
        let text = ParameterText.encode(value, for: info)
        return .ok(text: text, value: .object([("node", .string(name)), ("parameter", .string(info.identifier)), ("value", .number(value)), ("text", .string(text))]))
    }

    func params(_ name: String) throws(ControlError) -> ControlReply {
        let found = try node(name)
        var words: [String] = []
        var values: [ControlValue] = []
        for info in found.unit.parameters {
            let value = (try? found.unit.parameterValue(info.address)) ?? info.defaultValue
            let text = ParameterText.encode(value, for: info)
            words.append("\(info.identifier)=\(CommandTokenizer.quote(text))")
            var members: [(String, ControlValue)] = [
                ("parameter", .string(info.identifier)), ("name", .string(info.name)), ("value", .number(value)), ("text", .string(text)),
                ("min", .number(info.range.lowerBound)), ("max", .number(info.range.upperBound)), ("default", .number(info.defaultValue)),
                ("unit", .string(info.unit.rawValue)), ("writable", .bool(info.isWritable)),
            ]
            if !info.valueStrings.isEmpty { members.append(("values", .array(info.valueStrings.map { .string($0) }))) }
            values.append(.object(members))
        }
        return .ok(text: words.joined(separator: " "), value: .array(values))
    }

    func bypass(_ name: String, _ on: Bool) throws(ControlError) -> ControlReply {
        let found = try node(name)
        do { try found.unit.setProperty(.bypassEffect, .bool(on), scope: .global, element: 0) } catch {
            throw ControlErrors.map(error, node: name)
        }
        return .ok(text: on ? "on" : "off", value: .bool(on))
    }

    /// Loads `preset` on the node; with none, answers the node's presets, one quoted word
    /// each. A unit without presets is UNKNOWN_PRESET saying so.
    func preset(_ name: String, _ preset: String?) throws(ControlError) -> ControlReply {
        let found = try node(name)
        var presets: [String] = []
        if case .strings(let names)? = try? found.unit.property(.factoryPresets, scope: .global, element: 0) { presets = names }
        guard let preset else {
            return .ok(text: presets.map(CommandTokenizer.quote).joined(separator: " "), value: .array(presets.map { .string($0) }))
        }
        guard !presets.isEmpty else {
            throw ControlError(.unknownPreset, "node \(name): \(found.unit.name) has no presets")
        }
        do { try found.unit.setProperty(.presentPreset, .string(preset), scope: .global, element: 0) } catch {
            throw ControlErrors.map(error, node: name)
        }
        return .ok(text: preset, value: .string(preset))
    }

    func parameter(_ identifier: String, of unit: any AudioUnit, node: String) throws(ControlError) -> ParameterInfo {
        do { return try UnitFactory(registry: target.registry).parameter(identifier, of: unit) } catch {
            throw ControlErrors.map(error, node: node)
        }
    }

    /// A value by the parameter's kind, by the rules `add` and sessions read it by.
    func decode(_ text: String, for info: ParameterInfo, named name: String, node: String) throws(ControlError) -> Float {
        do { return try ParameterText.value(text, for: info, named: name) } catch {
            throw ControlErrors.map(error, node: node)
        }
    }
}
