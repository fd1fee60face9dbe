import TrellisCore
import TrellisGraph
import TrellisSession

extension ControlDispatcher {
    func set(_ name: String, _ identifier: String, _ text: String, rampMilliseconds: Double?) throws(ControlError) -> ControlReply {
        let (found, name, identifier) = try node(name, parameter: identifier)
        let info = try parameter(identifier, of: found.unit, node: name)
        guard info.isWritable else { throw ControlError(UnitFactoryError.readOnlyParameter(identifier), node: name) }
        let value = try decode(text, for: info, named: identifier, node: name)
        let frames = Int(((rampMilliseconds ?? 0) * graph.sampleRate / 1000).rounded())
        do { try found.unit.setParameter(info.address, value, rampFrames: frames) } catch { throw ControlError(error, node: name) }
        let written = ParameterText.encode(value, for: info)
        return .ok(text: written, value: .object([("node", .string(name)), ("parameter", .string(info.identifier)), ("value", .number(value)), ("text", .string(written)), ("rampFrames", .number(frames))]))
    }

    func get(_ name: String, _ identifier: String) throws(ControlError) -> ControlReply {
        let (found, name, identifier) = try node(name, parameter: identifier)
        let info = try parameter(identifier, of: found.unit, node: name)
        let value: Float
        do { value = try found.unit.parameterValue(info.address) } catch { throw ControlError(error, node: name) }
        let text = ParameterText.encode(value, for: info)
        return .ok(text: text, value: .object([("node", .string(name)), ("parameter", .string(info.identifier)), ("value", .number(value)), ("text", .string(text))]))
    }

    /// The node's parameters and their values; a subgraph node's are its inner nodes',
    /// written `inner.parameter` as a session writes them.
    func params(_ name: String) throws(ControlError) -> ControlReply {
        let found = try node(name)
        var words: [String] = []
        var values: [ControlValue] = []
        for (prefix, unit) in Self.parameterHolders(found.unit, prefix: "") {
            for info in unit.parameters {
                let value = (try? unit.parameterValue(info.address)) ?? info.defaultValue
                let text = ParameterText.encode(value, for: info)
                words.append("\(prefix)\(info.identifier)=\(CommandTokenizer.quote(text))")
                var members: [(String, ControlValue)] = [
                    ("parameter", .string(prefix + info.identifier)), ("name", .string(info.name)), ("value", .number(value)), ("text", .string(text)),
                    ("min", .number(info.range.lowerBound)), ("max", .number(info.range.upperBound)), ("default", .number(info.defaultValue)),
                    ("unit", .string(info.unit.rawValue)), ("writable", .bool(info.isWritable)),
                ]
                if !info.valueStrings.isEmpty { members.append(("values", .array(info.valueStrings.map { .string($0) }))) }
                members.append(("hints", .array(Self.hints(info.flags).map { .string($0) })))
                values.append(.object(members))
            }
        }
        return .ok(text: words.joined(separator: " "), value: .array(values))
    }

    /// How a control should present the parameter: `logarithmic`, `integer`, `toggled`,
    /// `enumeration`, `output` (a meter the unit writes).
    static func hints(_ flags: ParameterFlags) -> [String] {
        [(ParameterFlags.logarithmic, "logarithmic"), (.integer, "integer"), (.toggled, "toggled"), (.enumeration, "enumeration"), (.output, "output")]
            .filter { flags.contains($0.0) }.map(\.1)
    }

    /// The units whose parameters a node shows, each with the prefix its parameters take:
    /// the node's own unit, or every unit inside a subgraph node (`trim.`, `inner.trim.`).
    static func parameterHolders(_ unit: any AudioUnit, prefix: String) -> [(prefix: String, unit: any AudioUnit)] {
        guard let subgraph = unit as? Subgraph else { return [(prefix, unit)] }
        return subgraph.graph.nodes.flatMap { parameterHolders($0.unit, prefix: prefix + $0.name + ".") }
    }

    /// The node a parameter belongs to: `strip trim.gain` is parameter `gain` of the
    /// node `strip/trim` inside subgraph node `strip`, as a session writes it.
    func node(_ name: String, parameter identifier: String) throws(ControlError) -> (node: Node, path: String, parameter: String) {
        var found = try node(name), path = name, identifier = identifier
        while found.unit is Subgraph, let dot = identifier.firstIndex(of: ".") {
            path += "/" + identifier[..<dot]
            identifier = String(identifier[identifier.index(after: dot)...])
            found = try node(path)
        }
        if found.unit is Subgraph {
            throw ControlError(.unknownParameter, "node \(path) is a subgraph: name an inner node's parameter, as \(path)/NODE \(identifier) or \(path) NODE.\(identifier) (`params \(path)` lists them)")
        }
        return (found, path, identifier)
    }

    func bypass(_ name: String, _ on: Bool) throws(ControlError) -> ControlReply {
        let found = try node(name)
        do { try found.unit.setProperty(.bypassEffect, .bool(on), scope: .global, element: 0) } catch {
            throw ControlError(error, node: name)
        }
        // The compiler inlines a subgraph: its bypass is a program that routes around it.
        if found.unit is Subgraph {
            try locked { () throws(ControlError) in
                do throws(GraphError) { try graph.recompile() } catch {
                    try? found.unit.setProperty(.bypassEffect, .bool(!on), scope: .global, element: 0)
                    throw ControlError(error)
                }
            }
        }
        return .ok(text: on ? "on" : "off", value: .bool(on))
    }

    /// Starts the node's plugin process again; the node plays from the next cycle its
    /// process answers. A node that is not isolated is refused.
    func restart(_ name: String) throws(ControlError) -> ControlReply {
        let found = try node(name)
        guard let isolated = found.unit as? any IsolatableUnit, isolated.isolation != nil else {
            throw ControlError(.unsupported, "\(name) does not run in a process of its own (isolate: true)")
        }
        let cause = isolated.isolationFailure
        do { try isolated.restartIsolated() } catch { throw ControlError(error, node: name) }
        return .ok(text: "restarted" + (cause.map { " (it had \($0))" } ?? ""), value: .object([("node", .string(name)), ("after", cause.map(ControlValue.string) ?? .null)]))
    }

    /// Loads `preset` on the node; with none, answers the node's presets, one quoted word
    /// each: the unit's own and the user's. An absent preset is UNKNOWN_PRESET naming the
    /// choices, or saying there are none.
    /// `file NODE NAME PATH`: the node's plugin takes the file under NAME now (a
    /// plugin that reads it inside its state restore holds this thread that long); `save`
    /// writes it in the node's `files:`.
    func giveFile(_ name: String, _ slot: String, _ path: String) throws(ControlError) -> ControlReply {
        let found = try node(name)
        guard let taker = found.unit as? any FileTakingUnit else {
            throw ControlError(.unsupported, "node \(name): \(found.unit.name) takes no files (only LV2 plugins do)")
        }
        let resolved = try resolve(path)
        guard FileChecks.isRegularFile(resolved) else {
            throw ControlError(.badValue, "node \(name): file \(resolved) for \"\(slot)\": \(FileChecks.problem(resolved))")
        }
        do { try taker.setFile(resolved, for: slot) } catch { throw ControlError(error, node: name) }
        return .ok(text: resolved, value: .object([("node", .string(name)), ("name", .string(slot)), ("path", .string(resolved))]))
    }

    func preset(_ name: String, _ preset: String?) throws(ControlError) -> ControlReply {
        let found = try node(name)
        var factory: [String] = []
        if case .strings(let names)? = try? found.unit.property(.factoryPresets, scope: .global, element: 0) { factory = names }
        let user = found.unit is UserPresetUnit ? [] : BuiltInPresets().names(for: found.unit)
        let presets = factory + user.filter { !factory.contains($0) }
        guard let preset else {
            return .ok(text: presets.map(CommandTokenizer.quote).joined(separator: " "), value: .array(presets.map { .string($0) }))
        }
        let lowered = preset.lowercased()
        if factory.contains(where: { $0.lowercased() == lowered }) || (Int(preset) != nil && !factory.isEmpty) {
            do { try found.unit.setProperty(.presentPreset, .string(preset), scope: .global, element: 0) } catch {
                throw ControlError(error, node: name)
            }
            return .ok(text: preset, value: .string(preset))
        }
        do {
            if try BuiltInPresets().apply(preset, to: found.unit) { return .ok(text: preset, value: .string(preset)) }
        } catch { throw ControlError(error, node: name) }
        guard !presets.isEmpty else {
            throw ControlError(.unknownPreset, "node \(name): \(found.unit.name) has no presets; `preset save \(name) NAME` saves one")
        }
        throw ControlError(.unknownPreset, "node \(name): no preset \(CommandTokenizer.quote(preset)); its presets are \(presets.map(CommandTokenizer.quote).joined(separator: ", "))")
    }

    /// Saves the node's state as a user preset: a plugin's where its format keeps them
    /// (LV2: a bundle in ~/.lv2), a built-in unit's as a Trellis preset file.
    func savePreset(_ name: String, _ label: String) throws(ControlError) -> ControlReply {
        let found = try node(name)
        guard (1...100).contains(label.unicodeScalars.count), !label.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ControlError(.badValue, "preset save: a preset name has 1 to 100 characters and no control characters")
        }
        guard !(found.unit is Subgraph) else {
            throw ControlError(.unsupported, "preset save: \(name) is a subgraph node; save presets of the nodes inside it (\(name)/NODE)")
        }
        let path: String
        if let unit = found.unit as? UserPresetUnit {
            do { path = try unit.saveUserPreset(label: label) } catch { throw ControlError(error, node: name) }
        } else {
            do { path = try BuiltInPresets().save(found.unit, label: label) } catch { throw ControlError(.session, "\(error)") }
        }
        return .ok(text: "\(CommandTokenizer.quote(label)) \(path)", value: .object([("node", .string(name)), ("preset", .string(label)), ("file", .string(path))]))
    }

    func parameter(_ identifier: String, of unit: any AudioUnit, node: String) throws(ControlError) -> ParameterInfo {
        do { return try UnitFactory(registry: target.registry).parameter(identifier, of: unit) } catch {
            throw ControlError(error, node: node)
        }
    }

    /// A value by the parameter's kind, by the rules `add` and sessions read it by.
    func decode(_ text: String, for info: ParameterInfo, named name: String, node: String) throws(ControlError) -> Float {
        do { return try ParameterText.value(text, for: info, named: name) } catch {
            throw ControlError(error, node: node)
        }
    }
}
