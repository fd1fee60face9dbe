import CLilv
import Glibc
import TrellisCore

/// State and presets, through lilv's state API. A state is Turtle text (what sessions
/// carry); restoring one sets the control values it lists and hands the rest to the
/// plugin's state interface. Values are checked against the parameters' ranges before
/// anything changes; an out-of-range value rejects the whole state.
extension LV2PluginUnit {
    /// The plugin's state as Turtle text: control values and, for plugins with the
    /// state interface, their own properties. Files the plugin refers to keep their
    /// absolute paths. A unit that was never initialized returns the state it was
    /// given, if any. Thread: control.
    public func saveState() throws(LV2Error) -> String {
        if let bridge {
            // A faulted bridge's state is the one it last saved.
            guard bridge.isRunning else {
                guard let lastSavedState else { throw .bridgeFailed("saving state: the plugin's process is not running, and no state was saved", plugin: uri) }
                return lastSavedState
            }
            let text = try bridge.saveState()
            lastSavedState = text
            return text
        }
        guard let instance, let renderer else {
            switch pendingState {
            case .text(let text): return text
            case .preset, nil: throw .notInstantiated(plugin: uri, operation: "saving state")
            }
        }
        guard renderer.acquireForControl() else {
            throw .stateFailed("the audio thread did not release the plugin within 2 s", plugin: uri)
        }
        defer { renderer.releaseControl() }
        return try serializeState(instance: instance)
    }

    /// Restores a state made by `saveState` (or any lilv state of this plugin). Before
    /// `initialize`, control values apply at once and the rest when the plugin is
    /// instantiated. Thread: control.
    public func restoreState(_ text: String) throws(LV2Error) {
        try restore(.text(text))
    }

    /// The plugin's presets (label and URI). Thread: any.
    public var presets: [LV2PresetInfo] { info.presets }

    /// Applies a preset named by its label (case-insensitive) or URI. Thread: control.
    public func applyPreset(labelOrURI key: String) throws(LV2Error) {
        let lowered = key.lowercased()
        guard let preset = info.presets.first(where: { $0.uri == key || $0.label.lowercased() == lowered }) else {
            throw .unknownPreset(key, available: info.presets.map(\.label), plugin: uri)
        }
        try restore(.preset(preset.uri))
    }

    // MARK: - Internals

    func restore(_ pending: PendingState) throws(LV2Error) {
        if let bridge {
            switch pending {
            case .text(let text):
                applyReportedValues(try bridge.restore(text, preset: false))
                lastSavedState = text
            case .preset(let preset):
                applyReportedValues(try bridge.restore(preset, preset: true))
                lastSavedState = try? bridge.saveState()
            }
            return
        }
        guard instance != nil, let renderer else {
            let state = try loadState(pending)
            defer { lilv_state_free(state) }
            let values = portValues(of: state)
            try validate(values)
            apply(values)
            pendingState = pending
            return
        }
        guard renderer.acquireForControl() else {
            throw .stateFailed("the audio thread did not release the plugin within 2 s", plugin: uri)
        }
        let values: [(String, Float)]
        do {
            values = try restoreInstance(from: pending)
        } catch {
            renderer.releaseControl()
            throw error
        }
        renderer.askForPropertyValues()
        renderer.releaseControl()
        apply(values)
    }

    /// Restores into the instance; returns the control values to apply. The caller
    /// keeps the audio thread out.
    @discardableResult
    func restoreInstance(from pending: PendingState) throws(LV2Error) -> [(String, Float)] {
        guard let instance, let features else { throw .notInstantiated(plugin: uri, operation: "restoring state") }
        let state = try loadState(pending)
        defer { lilv_state_free(state) }
        let values = portValues(of: state)
        try validate(values)
        lilv_state_restore(state, instance, nil, nil, 0, features.state)
        return values
    }

    func serializeState(instance: UnsafeMutablePointer<LilvInstance>) throws(LV2Error) -> String {
        let table = PortValueTable(unit: self)
        let context = Unmanaged.passUnretained(table).toOpaque()
        let features = self.features?.state
        let urids = world.urids
        let plugin = self.plugin
        let text: String? = world.withLilv { world, _ in
            guard let state = lilv_state_new_from_instance(
                plugin, instance, urids.mapFeature, nil, nil, nil, nil,
                { symbol, context, size, type in
                    guard let symbol, let context else { return nil }
                    return Unmanaged<PortValueTable>.fromOpaque(context).takeUnretainedValue()
                        .value(symbol: String(cString: symbol), size: size, type: type)
                },
                context, UInt32(LV2_STATE_IS_POD.rawValue | LV2_STATE_IS_PORTABLE.rawValue), features)
            else { return nil }
            defer { lilv_state_free(state) }
            guard let string = lilv_state_to_string(world, urids.mapFeature, urids.unmapFeature, state, "urn:trellis:state", nil) else {
                return nil
            }
            defer { lilv_free(string) }
            return String(cString: string)
        }
        guard let text else { throw .stateFailed("lilv could not save the plugin's state", plugin: uri) }
        return text
    }

    private func loadState(_ pending: PendingState) throws(LV2Error) -> OpaquePointer {
        if case .text(let text) = pending, let error = LV2StateText.syntaxError(text, plugin: uri) {
            throw .stateFailed("not Turtle: \(error)", plugin: uri)
        }
        let urids = world.urids
        let state: OpaquePointer? = world.withLilv { world, state in
            switch pending {
            case .text(let text):
                return lilv_state_new_from_string(world, urids.mapFeature, LV2StateText.document(text, plugin: uri))
            case .preset(let presetURI):
                let node = LV2World.node(presetURI, world: world, state: &state)
                lilv_world_load_resource(world, node)
                return lilv_state_new_from_world(world, urids.mapFeature, node)
            }
        }
        guard let state else {
            switch pending {
            case .text(let text) where LV2StateText.isFullForm(text):
                throw .stateFailed("the text is not a state lilv can read", plugin: uri)
            case .text:
                throw .stateFailed(
                    "the text is not a list of the plugin's properties in Turtle (`<property> value ;` ..., after any @prefix lines)",
                    plugin: uri)
            case .preset(let presetURI): throw .stateFailed("preset <\(presetURI)> could not be read", plugin: uri)
            }
        }
        if let node = lilv_state_get_plugin_uri(state) {
            let owner = String(cString: lilv_node_as_uri(node))
            if owner != uri, case .text = pending {
                lilv_state_free(state)
                throw .stateFailed("the state belongs to <\(owner)>", plugin: uri)
            }
        }
        return state
    }

    private func portValues(of state: OpaquePointer) -> [(String, Float)] {
        let collector = PortValueCollector(urids: world.urids)
        lilv_state_emit_port_values(state, { symbol, context, value, size, type in
            guard let symbol, let context, let value else { return }
            Unmanaged<PortValueCollector>.fromOpaque(context).takeUnretainedValue()
                .collect(symbol: String(cString: symbol), value: value, size: size, type: type)
        }, Unmanaged.passUnretained(collector).toOpaque())
        return collector.values
    }

    private func validate(_ values: [(String, Float)]) throws(LV2Error) {
        for (symbol, value) in values {
            guard let parameter = parameters.first(where: { $0.identifier == symbol }), parameter.isWritable else { continue }
            guard value.isFinite, parameter.range.contains(value) else {
                throw .stateFailed(
                    "value \(value) for \(symbol) is outside its range \(parameter.range.lowerBound)...\(parameter.range.upperBound)",
                    plugin: uri)
            }
        }
    }

    private func apply(_ values: [(String, Float)]) {
        for (symbol, value) in values {
            guard let index = parameters.firstIndex(where: { $0.identifier == symbol }), parameters[index].isWritable else { continue }
            if isInitialized {
                try? setParameter(parameters[index].address, value)
            } else {
                self.values[index] = value
            }
        }
    }
}

/// Hands lilv the current control values while it saves a state.
final class PortValueTable {
    private let memory = Arena()
    private let storage: UnsafeMutablePointer<Float>
    private let indices: [String: Int]
    private let floatType: UInt32

    init(unit: LV2PluginUnit) {
        let writable = unit.parameters.enumerated().filter { $0.element.isWritable }
        storage = memory.take(writable.count)
        var indices: [String: Int] = [:]
        for (slot, entry) in writable.enumerated() {
            storage[slot] = unit.values[entry.offset]
            indices[entry.element.identifier] = slot
        }
        self.indices = indices
        floatType = unit.world.urids.map(LV2URI.atomFloat)
    }

    func value(symbol: String, size: UnsafeMutablePointer<UInt32>?, type: UnsafeMutablePointer<UInt32>?) -> UnsafeRawPointer? {
        guard let slot = indices[symbol] else { return nil }
        size?.pointee = 4
        type?.pointee = floatType
        return UnsafeRawPointer(storage + slot)
    }
}

/// Gathers the control values a state lists, converting lilv's atom types to Float.
private final class PortValueCollector {
    var values: [(String, Float)] = []
    private let floatType, doubleType, intType, longType, boolType: UInt32

    init(urids: URIDMap) {
        floatType = urids.map(LV2URI.atomFloat)
        doubleType = urids.map(LV2URI.atomDouble)
        intType = urids.map(LV2URI.atomInt)
        longType = urids.map("http://lv2plug.in/ns/ext/atom#Long")
        boolType = urids.map(LV2URI.atomBool)
    }

    func collect(symbol: String, value: UnsafeRawPointer, size: UInt32, type: UInt32) {
        let number: Float?
        switch (type, size) {
        case (floatType, 4): number = value.loadUnaligned(as: Float.self)
        case (doubleType, 8): number = Float(value.loadUnaligned(as: Double.self))
        case (intType, 4), (boolType, 4): number = Float(value.loadUnaligned(as: Int32.self))
        case (longType, 8): number = Float(value.loadUnaligned(as: Int64.self))
        default: number = nil
        }
        if let number { values.append((symbol, number)) }
    }
}

extension LV2PluginUnit: StatefulUnit {
    /// The plugin's state as lilv writes it, for sessions. Thread: control.
    public func stateText() throws(AudioUnitError) -> String {
        do { return try saveState() } catch { throw .invalidState("cannot save: \(error)", unit: name) }
    }

    /// Restores a state `stateText` produced. Thread: control.
    public func restore(stateText text: String) throws(AudioUnitError) {
        do { try restoreState(text) } catch { throw .invalidState("cannot restore: \(error)", unit: name) }
    }
}


