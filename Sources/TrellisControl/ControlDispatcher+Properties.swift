import TrellisChain
import TrellisCore
import TrellisEngine
import TrellisGraph

/// Core Audio's AudioUnitGetProperty / SetProperty and property listeners, through the
/// protocol: `property NODE`, `property get|set`, and `property` events for watchers.
extension ControlDispatcher {
    /// Where a property is read when the command does not say: bus 0 of the output
    /// scope for the per-bus ones, the global scope for the rest.
    static func place(of id: PropertyID, _ place: PropertyPlace) -> (scope: Scope, element: Int) {
        let perBus: Set<PropertyID> = [.streamFormat, .elementCount, .elementName]
        return (place.scope ?? (perBus.contains(id) ? .output : .global), place.element ?? 0)
    }

    func propertyID(_ word: String, node: String) throws(ControlError) -> PropertyID {
        guard let id = PropertyText.find(word) else {
            let names = PropertyText.known.map(PropertyText.keyword)
            let hint = Suggestions.didYouMean(Suggestions.closest(to: word.lowercased(), among: names))
            throw ControlError(.unknownProperty, "node \(node): no property \(CommandTokenizer.quote(word))\(hint); `property \(node)` lists the node's")
        }
        return id
    }

    func propertyGet(_ name: String, _ word: String, _ place: PropertyPlace) throws(ControlError) -> ControlReply {
        let found = try node(name)
        let id = try propertyID(word, node: name)
        let (scope, element) = Self.place(of: id, place)
        let value: PropertyValue
        do { value = try found.unit.property(id, scope: scope, element: element) } catch { throw ControlError(error, node: name) }
        let event = Self.propertyEvent(name, id, scope, element, value)
        return .ok(text: PropertyText.text(value), value: event.data)
    }

    /// Sets a property from text read as the kind of value it holds. Bypass and preset
    /// go the way their own commands go (a subgraph's bypass compiles anew).
    func propertySet(_ name: String, _ word: String, _ text: String, _ place: PropertyPlace) throws(ControlError) -> ControlReply {
        let found = try node(name)
        let id = try propertyID(word, node: name)
        let (scope, element) = Self.place(of: id, place)
        let current: PropertyValue
        do { current = try found.unit.property(id, scope: scope, element: element) } catch { throw ControlError(error, node: name) }
        let value = try PropertyText.value(text, like: current, for: id)
        switch (id, value) {
        case (.bypassEffect, .bool(let on)) where scope == .global: _ = try bypass(name, on)
        case (.presentPreset, .string(let preset)) where scope == .global: _ = try self.preset(name, preset)
        default:
            do { try found.unit.setProperty(id, value, scope: scope, element: element) } catch { throw ControlError(error, node: name) }
        }
        let now = (try? found.unit.property(id, scope: scope, element: element)) ?? value
        return .ok(text: PropertyText.text(now), value: Self.propertyEvent(name, id, scope, element, now).data)
    }

    /// Every property the node's unit has, in every scope and bus it has it, with its
    /// value: `latency=0.005 stream-format:input:0="48000 Hz, 2 ch, float32" ...`.
    /// The parameter list is left to `params`.
    func properties(_ name: String) throws(ControlError) -> ControlReply {
        let unit = try node(name).unit
        var words: [String] = []
        var values: [ControlValue] = []
        for id in PropertyText.known where id != .parameterList {
            for scope in Scope.allCases {
                for element in PropertyText.elements(of: id, scope: scope, on: unit) {
                    guard let info = try? unit.propertyInfo(id, scope: scope, element: element),
                          let value = try? unit.property(id, scope: scope, element: element) else { continue }
                    let key = PropertyText.keyword(id) + (scope == .global ? "" : ":\(scope):\(element)")
                    words.append("\(key)=\(CommandTokenizer.quote(PropertyText.text(value)))")
                    var members = Self.propertyEvent(name, id, scope, element, value).members
                    members.append(("writable", .bool(info.isWritable)))
                    values.append(.object(members))
                }
            }
        }
        return .ok(text: words.joined(separator: " "), value: .array(values))
    }

    /// `NODE NAME[:SCOPE:ELEMENT] VALUE`, and its JSON.
    static func propertyEvent(_ node: String, _ id: PropertyID, _ scope: Scope, _ element: Int, _ value: PropertyValue) -> ControlEvent {
        let place = scope == .global ? "" : ":\(scope):\(element)"
        return ControlEvent(
            kind: .property, text: "\(node) \(PropertyText.keyword(id))\(place) \(CommandTokenizer.quote(PropertyText.text(value)))",
            data: .object([("node", .string(node)), ("property", .string(PropertyText.keyword(id))), ("scope", .string(scope.rawValue)),
                           ("element", .number(element)), ("value", PropertyText.json(value)), ("text", .string(PropertyText.text(value)))]))
    }

    /// A latency the engine found changed (a plugin's latency port, a limiter's attack)
    /// as a property event: seconds, as `property get` answers, and frames in JSON.
    static func latencyEvent(_ notice: EngineNotice) -> ControlEvent? {
        guard notice.kind == .latencyChanged, let change = notice.latencyChange, let unit = notice.unit, unit.sampleRate > 0 else { return nil }
        var event = propertyEvent(unit.node, .latency, .global, 0, .double(Double(change.to) / unit.sampleRate))
        if case .object(var members) = event.data {
            members.append(("frames", .number(change.to)))
            event.data = .object(members)
        }
        return event
    }

    /// Listens to the properties of every unit of the graph, inside subgraphs too, and
    /// lets go of units no longer in it. Latency comes from the engine instead
    /// (`latencyEvent`): that is where a change running units make is noticed.
    /// Thread: the dispatcher's queue.
    func listenToProperties() {
        var live = Set<ObjectIdentifier>()
        func walk(_ graph: Graph, prefix: String) {
            for node in graph.nodes {
                let unit = node.unit, path = prefix + node.name
                if let subgraph = unit as? Subgraph { walk(subgraph.graph, prefix: path + "/") }
                let key = ObjectIdentifier(unit)
                live.insert(key)
                guard propertyListeners[key] == nil else { continue }
                let token = unit.addPropertyListener { [weak self, weak unit] id, scope, element in
                    guard id != .latency, let self, let unit, let value = try? unit.property(id, scope: scope, element: element) else { return }
                    broadcast(Self.propertyEvent(path, id, scope, element, value))
                }
                propertyListeners[key] = (unit, token)
            }
        }
        walk(graph, prefix: "")
        for (key, entry) in propertyListeners where !live.contains(key) {
            entry.unit.removeListener(entry.token)
            propertyListeners[key] = nil
        }
    }
}

extension ControlEvent {
    var members: [(String, ControlValue)] {
        if case .object(let members) = data { return members }
        return []
    }
}
