import CLilv
import Glibc
import Synchronization
import TrellisCore

/// An installed LV2 plugin hosted as an audio unit.
///
/// Audio ports are buses (grouped as `LV2PortLayout` says), CV ports are mono buses,
/// control inputs are parameters with the port index as id and the symbol as
/// identifier, control outputs are read-only meter parameters, the latency port sets
/// `latencyFrames`, and the atom input that takes MIDI is fed by `scheduleMIDI` and
/// `queueMIDI`. The plugin is instantiated in `initialize` (instantiation needs the
/// sample rate) and freed in `uninitialize`; its state survives the round trip.
///
/// Out-of-range parameter values are rejected (`AudioUnitBase.setParameter`); values
/// from a saved state or a preset are checked the same way, before anything changes.
/// LV2 has no reset, so `reset` leaves the plugin as it is.
public final class LV2PluginUnit: AudioUnitBase, UnitMessageSource, @unchecked Sendable {
    enum PendingState {
        case text(String)
        case preset(String)
    }

    public let world: LV2World
    /// What the plugin's data says about it.
    public internal(set) var info: LV2PluginInfo
    let plugin: OpaquePointer
    let layout: LV2PortLayout
    private var declaredSampleRate: Double = 48_000
    var instance: UnsafeMutablePointer<LilvInstance>?
    var features: LV2HostFeatures?
    var renderer: LV2Renderer?
    var worker: LV2Worker?
    /// What the finish service drains (`drainMessages`), set while the plugin runs:
    /// a lock apart from the control thread's fields, which change under it.
    private let outlet = Mutex<(renderer: LV2Renderer, features: LV2HostFeatures)?>(nil)
    /// State to apply when the plugin is next instantiated.
    var pendingState: PendingState?
    /// Files given by name (`setFile`), applied after the state at every instantiation.
    var givenFiles: [GivenFile] = []
    /// Property parameters set while no instance existed: sent to the plugin, after its
    /// state, when it is instantiated (by parameter index).
    var pendingProperties: [Int: Float] = [:]
    /// The parameter that shows the latency port, if the plugin has one.
    private var latencyParameter: Int?
    /// Set to run the plugin in a bridge process of its own. Thread: control, while
    /// uninitialized.
    public var isolation: Isolation?
    /// The bridge while the unit is initialized with an isolation.
    var bridge: LV2Bridge?
    /// What the finish service reads of the bridge (its failures), apart from the
    /// control thread's fields.
    let bridgeOutlet = Mutex<LV2Bridge?>(nil)
    /// The state a restart of the bridge starts from: the last one saved or restored.
    var lastSavedState: String?
    /// What discovery found wrong with the plugin (it crashed or hung when instantiated
    /// in a child); it then runs only isolated.
    let knownProblem: String?

    /// The plugin's URI.
    public var uri: String { info.uri }

    /// Loads the plugin's bundles (if needed) and describes it; the instance comes with
    /// `initialize`. Fails when the plugin needs a feature Trellis lacks or has a port
    /// it cannot connect. Thread: control.
    /// `knownProblem` is what discovery found wrong with the plugin (`LV2Catalog`): such
    /// a plugin is never instantiated in this process, only isolated.
    public init(world: LV2World, uri: String, description: ComponentDescription? = nil, shortName: String? = nil, knownProblem: String? = nil) throws(LV2Error) {
        let info = try world.info(uri: uri)
        let missing = info.missingFeatures
        guard missing.isEmpty else { throw .missingFeatures(missing, plugin: uri) }
        let layout = try LV2PortLayout(info: info)
        guard let plugin = world.withLilv({ world, state in LV2World.findPlugin(uri, world: world, state: &state) }) else {
            throw .unknownPlugin(uri, suggestions: [])
        }
        self.world = world
        self.info = info
        self.plugin = plugin
        self.layout = layout
        self.knownProblem = knownProblem
        let classes = world.withLilv { world, state in LV2World.classURIs(plugin, world: world, state: &state) }
        let resolved = description ?? ComponentDescription(
            type: LV2ComponentCodes.type(classURIs: classes, ports: info.ports),
            subtype: LV2ComponentCodes.subtype(uri: uri),
            manufacturer: LV2ComponentCodes.manufacturer(uri: uri))
        super.init(
            description: resolved,
            shortName: shortName ?? LV2ComponentCodes.shortName(uri: uri),
            inputs: layout.inputBuses.map(\.ports.count),
            outputs: layout.outputBuses.map(\.ports.count))
        declareParameters(sampleRate: 48_000)
        latencyParameter = layout.latencyPort.flatMap { port in parameters.firstIndex { $0.address.id == UInt32(port) } }
    }

    deinit {
        if renderer != nil { deallocateRenderResources() }
    }

    public override var name: String { "\(info.name) <\(info.uri)>" }

    private func declareParameters(sampleRate: Double) {
        declaredSampleRate = sampleRate
        let ports = Dictionary(uniqueKeysWithValues: info.ports.map { ($0.index, $0) })
        for port in layout.controlPorts {
            declareParameter(LV2PortLayout.parameter(for: ports[port]!, sampleRate: sampleRate))
        }
        var taken = Set(info.ports.map(\.symbol))
        for (number, property) in layout.properties.enumerated() {
            let parameter = LV2PortLayout.parameter(for: property, number: number, portCount: info.ports.count, taken: taken)
            taken.insert(parameter.identifier)
            declareParameter(parameter)
        }
    }

    /// Ranges given as fractions of the sample rate are re-declared for the rate the
    /// unit is initialized at, keeping values that still fit.
    func redeclareParametersIfRateChanged() {
        guard sampleRate != declaredSampleRate, info.ports.contains(where: { $0.has(.sampleRate) }) else { return }
        let old = parameters.map { (info: $0, value: values[parameters.firstIndex(of: $0)!]) }
        removeParameters(scope: .global)
        declareParameters(sampleRate: sampleRate)
        for (index, parameter) in parameters.enumerated() {
            guard let previous = old.first(where: { $0.info.identifier == parameter.identifier }) else { continue }
            let wasDefault = previous.value == previous.info.defaultValue
            let kept = min(max(previous.value, parameter.range.lowerBound), parameter.range.upperBound)
            values[index] = wasDefault ? parameter.defaultValue : kept
        }
    }

    // MARK: - Buses

    public override func validateFormat(_ format: StreamFormat, scope: Scope, element: Int) throws(AudioUnitError) {
        try super.validateFormat(format, scope: scope, element: element)
        let buses = scope == .input ? layout.inputBuses : layout.outputBuses
        guard buses.indices.contains(element) else { return }
        let channels = buses[element].ports.count
        guard format.channelCount == channels else {
            throw .formatNotSupported(format, reason: "\(scope) bus \(element) (\(buses[element].name)) has \(channels) channel\(channels == 1 ? "" : "s")", unit: name)
        }
    }

    /// The names of the buses of a scope (group or first port symbol). Thread: any.
    public func busNames(_ scope: Scope) -> [String] {
        (scope == .input ? layout.inputBuses : layout.outputBuses).map(\.name)
    }

    /// Whether each bus of a scope is a side-chain (`lv2:isSideChain`); side-chains come
    /// after the main buses. Thread: any.
    public func sideChainBuses(_ scope: Scope) -> [Bool] {
        (scope == .input ? layout.inputBuses : layout.outputBuses).map(\.isSideChain)
    }

    // MARK: - Life cycle

    public override func allocateRenderResources() throws(AudioUnitError) {
        do throws(LV2Error) {
            if let isolation {
                try startBridge(isolation)
            } else if let knownProblem {
                throw .knownToFail(knownProblem, plugin: uri)
            } else {
                try instantiate()
            }
        } catch {
            throw .failedToInitialize(error.description, unit: name)
        }
    }

    private func instantiate() throws(LV2Error) {
        redeclareParametersIfRateChanged()
        let worker = info.extensionData.contains(LV2URI.workerInterface) ? LV2Worker() : nil
        let atomCapacity = max(32_768, info.ports.compactMap(\.minimumBufferSize).max() ?? 0)
        let features = LV2HostFeatures(
            world: world, pluginURI: uri, unitID: unitID, sampleRate: sampleRate,
            maximumFrames: maximumFramesPerSlice, sequenceSize: atomCapacity, worker: worker)
        let rate = sampleRate
        let plugin = self.plugin
        guard let instance = world.withLilv({ _, _ in lilv_plugin_instantiate(plugin, rate, features.instantiation) }) else {
            throw diagnoseInstantiationFailure()
        }
        if let worker, let interface = lilv_instance_get_extension_data(instance, LV2URI.workerInterface) {
            worker.start(interface: interface.assumingMemoryBound(to: LV2_Worker_Interface.self), handle: instance.pointee.lv2_handle)
            worker.setSynchronous(isOfflineRender)
        }
        let renderer = LV2Renderer(
            instance: instance, layout: layout, portCount: info.ports.count, parameters: parameters,
            values: values, maximumFrames: maximumFramesPerSlice, atomCapacity: atomCapacity,
            urids: world.urids, worker: worker)
        for port in info.ports where port.kind == .event || port.kind == .unknown { renderer.connectNothing(port: port.index) }
        self.instance = instance
        self.features = features
        self.worker = worker
        self.renderer = renderer

        do throws(LV2Error) {
            // Nothing renders yet, so the gate need not be taken. The default state's
            // control values are the ports' defaults, which the parameters already hold.
            if info.requiredFeatures.contains(LV2URI.loadDefaultState) || info.optionalFeatures.contains(LV2URI.loadDefaultState) {
                try restoreInstance(from: .preset(uri))
            }
            if let pending = pendingState {
                for (symbol, value) in try restoreInstance(from: pending) {
                    if let index = parameters.firstIndex(where: { $0.identifier == symbol }) { values[index] = value }
                }
                pendingState = nil
            }
            for file in givenFiles { try restoreInstance(from: .text(file.stateText)) }
        } catch {
            pendingState = nil
            deallocateRenderResources()
            throw error
        }
        for (index, value) in pendingProperties.sorted(by: { $0.key < $1.key }) {
            renderer.setParameter(index: index, value: value, rampFrames: 0)
        }
        pendingProperties = [:]
        if latencyParameter != nil { measureLatency(from: instance, features: features) }
        LV2LibraryPin.pin(info.library)
        lilv_instance_activate(instance)
        features.running.store(true, ordering: .releasing)
        outlet.withLock { $0 = (renderer, features) }
    }

    /// A plugin writes its latency port when it runs, so one runs once here, on silence,
    /// as Ardour does, and the first program is compiled with the latency to compensate.
    /// Not the instance that renders: a second one, made for this and freed after, with
    /// the same control values and state, so the renderer starts as other hosts start it
    /// (an oscillator's phase, a pitch shifter's buffers untouched). Its worker, if any,
    /// answers within the run. Thread: control.
    private func measureLatency(from original: UnsafeMutablePointer<LilvInstance>, features originalFeatures: LV2HostFeatures) {
        let worker = info.extensionData.contains(LV2URI.workerInterface) ? LV2Worker() : nil
        let atomCapacity = max(32_768, info.ports.compactMap(\.minimumBufferSize).max() ?? 0)
        let features = LV2HostFeatures(
            world: world, pluginURI: uri, unitID: unitID, sampleRate: sampleRate,
            maximumFrames: maximumFramesPerSlice, sequenceSize: atomCapacity, worker: worker)
        defer { features.flushLog() }
        let rate = sampleRate, plugin = self.plugin
        guard let instance = world.withLilv({ _, _ in lilv_plugin_instantiate(plugin, rate, features.instantiation) }) else { return }
        if let worker, let interface = lilv_instance_get_extension_data(instance, LV2URI.workerInterface) {
            worker.start(interface: interface.assumingMemoryBound(to: LV2_Worker_Interface.self), handle: instance.pointee.lv2_handle)
            worker.setSynchronous(true)
        }
        if info.extensionData.contains(LV2URI.stateNS + "interface") {
            let urids = world.urids
            world.withLilv { _, _ in
                guard let state = lilv_state_new_from_instance(
                    plugin, original, urids.mapFeature, nil, nil, nil, nil, nil, nil, 0, originalFeatures.state) else { return }
                lilv_state_restore(state, instance, nil, nil, 0, features.state)
                lilv_state_free(state)
            }
        }
        do {
            let renderer = LV2Renderer(
                instance: instance, layout: layout, portCount: info.ports.count, parameters: parameters,
                values: values, maximumFrames: maximumFramesPerSlice, atomCapacity: atomCapacity,
                urids: world.urids, worker: worker)
            for port in info.ports where port.kind == .event || port.kind == .unknown { renderer.connectNothing(port: port.index) }
            lilv_instance_activate(instance)
            renderer.runOnSilence(frames: maximumFramesPerSlice)
            worker?.stop()
            lilv_instance_deactivate(instance)
        }
        world.withLilv { _, _ in lilv_instance_free(instance) }
    }

    private func diagnoseInstantiationFailure() -> LV2Error {
        if let library = info.library {
            let path = lilv_file_uri_parse(library, nil).map { pointer -> String in
                defer { lilv_free(pointer) }
                return String(cString: pointer)
            } ?? library
            if let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) {
                dlclose(handle)
            } else {
                let reason = dlerror().map { String(cString: $0) } ?? "unknown reason"
                return .libraryFailedToLoad(library: path, reason: reason, plugin: uri)
            }
        } else {
            return .libraryFailedToLoad(library: "(none)", reason: "the plugin names no lv2:binary", plugin: uri)
        }
        return .instantiationFailed(plugin: uri, sampleRate: sampleRate)
    }

    public override func deallocateRenderResources() {
        if bridge != nil { return stopBridge() }
        guard let instance else { return }
        outlet.withLock { $0 = nil }
        features?.running.store(false, ordering: .releasing)
        if pendingState == nil, let text = try? serializeState(instance: instance) { pendingState = .text(text) }
        // work() must not overlap deactivate (an instantiation-class call).
        worker?.stop()
        lilv_instance_deactivate(instance)
        // Freeing closes the plugin's library in the world's shared list, as
        // instantiating opens it; the last program using a unit may be released on the
        // engine's finish thread, so both take the world's lock.
        world.withLilv { _, _ in lilv_instance_free(instance) }
        features?.flushLog()
        self.instance = nil
        renderer = nil
        worker = nil
        features = nil
    }

    // MARK: - Rendering

    /// Offline, the worker's work runs in the render call (deterministic renders);
    /// live, on the worker thread.
    public override func offlineRenderDidChange() {
        worker?.setSynchronous(isOfflineRender)
        bridge?.setOffline(isOfflineRender)
    }

    public override var renderKernel: RenderKernel? { bridge?.renderKernel ?? renderer?.renderKernel }

    public override func parameterDidChange(index: Int, value: Float, rampFrames: Int) {
        let isProperty = parameters[index].address.id >= UInt32(info.ports.count)
        if let bridge {
            // A faulted bridge gets the value with the rest when it restarts.
            guard isInitialized || !isProperty, bridge.isRunning else { return }
            try? bridge.setParameter(index: index, value: value)
        } else if let renderer {
            // Initialization hands every value over again; a property's value is the
            // plugin's own (its state), so only those set meanwhile were sent.
            guard isInitialized || !isProperty else { return }
            renderer.setParameter(index: index, value: value, rampFrames: rampFrames)
        } else if isProperty {
            pendingProperties[index] = value
        }
    }

    /// What the latency port said after the plugin last ran. Thread: any.
    public override var latencyFrames: Int {
        guard let latencyParameter else { return 0 }
        let value = values[latencyParameter]
        return value.isFinite ? Int(min(max(value.rounded(), 0), 16_777_216)) : 0
    }

    // MARK: - Presets (the AudioUnit view)

    public override var factoryPresets: [Preset] {
        info.presets.enumerated().map { Preset(number: $0.offset, name: $0.element.label) }
    }

    public override func applyFactoryPreset(_ preset: Preset) throws(AudioUnitError) {
        do {
            try applyPreset(labelOrURI: preset.name)
        } catch {
            throw .invalidPreset(preset.name, available: factoryPresets.map(\.name), unit: name)
        }
    }

    // MARK: - MIDI

    /// Adds a MIDI message to the next render call at `frame` within it. Returns false
    /// when the plugin takes no MIDI, the unit is not initialized, or the event list is
    /// full. Thread: audio (the thread that renders), before `render`.
    @discardableResult
    public func scheduleMIDI(_ message: MIDIMessage, frame: Int) -> Bool {
        guard layout.midiInput != nil, let renderer else { return false }
        return renderer.schedule(message, frame: frame)
    }

    /// Queues a MIDI message from a control thread; it reaches the plugin at the start
    /// of the next render. One producer thread at a time. Thread: control.
    @discardableResult
    public func queueMIDI(_ message: MIDIMessage) -> Bool {
        guard layout.midiInput != nil, let renderer else { return false }
        return renderer.queuedMIDI.push(message)
    }

    /// Whether the plugin has an atom input that takes MIDI. Thread: any.
    public var acceptsMIDI: Bool { layout.midiInput != nil }

    /// Atom inputs that take MIDI and atom outputs that carry it are MIDI buses.
    public override func midiBusCount(_ scope: Scope) -> Int {
        scope == .input ? layout.midiInputs.count : (scope == .output ? layout.midiOutputs.count : 0)
    }

    /// The ports' symbols. Thread: any.
    public override func midiBusNames(_ scope: Scope) -> [String] {
        let ports = scope == .input ? layout.midiInputs : (scope == .output ? layout.midiOutputs : [])
        return ports.map { info.ports[$0].symbol }
    }

    /// Symbols of the atom output ports, in the order `forEachOutputEvent` numbers them.
    public var atomOutputSymbols: [String] {
        layout.atomOutputs.map { port in info.ports[port].symbol }
    }

    /// Calls `body` with each event atom output `port` (0 = first atom output)
    /// produced in the last render, frames relative to that render's start.
    /// Thread: the rendering thread, between renders.
    public func forEachOutputEvent(port: Int = 0, _ body: (_ frame: Int, _ type: UInt32, _ data: UnsafeRawBufferPointer) -> Void) {
        renderer?.forEachOutputEvent(slot: port, body)
    }

    /// Hands over what the plugin logged and sent on its MIDI outputs while it ran.
    /// Thread: any but audio, one caller at a time (the engine's finish service).
    public func drainMessages(_ deliver: (UnitMessage) -> Void) -> Int {
        let (late, failures, log) = bridgeOutlet.withLock { bridge in
            (bridge?.takeLateCycles() ?? 0, bridge?.takeFailures() ?? [], bridge?.takeLog() ?? (lines: [], dropped: 0))
        }
        for (level, line) in log.lines { deliver(.log(level, line)) }
        if late > 0 { deliver(.late(cycles: late)) }
        for failure in failures { deliver(.failed(failure.cause, sampleTime: failure.sampleTime)) }
        return log.dropped + outlet.withLock { outlet in
            guard let (renderer, features) = outlet else { return 0 }
            var dropped = features.drainLog { level, text in deliver(.log(level, text)) }
            while let sent = renderer.sentMIDI.pop() { deliver(.midi(sent.timed, bus: Int(sent.bus))) }
            dropped += renderer.kernel.pointee.droppedMIDI.pointee.exchange(0, ordering: .relaxed)
            return dropped
        }
    }
}
