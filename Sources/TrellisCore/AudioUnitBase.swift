import Synchronization

/// The shared machinery of every unit: elements and their formats, the standard
/// properties, validated parameters with listeners, and standalone pulling.
///
/// Subclasses declare their parameters in `init`, make their kernel in
/// `allocateRenderResources` and return it from `renderKernel` (see
/// docs/render-contract.md). Configuration calls come from one control thread at a
/// time; the class is `@unchecked Sendable` because its audio-side state is handed
/// over by the engine's publish protocol, not by locks.
open class AudioUnitBase: AudioUnit, @unchecked Sendable {
    public let componentDescription: ComponentDescription
    public let unitID: UInt64
    public let shortName: String

    open var name: String { "\(shortName) (\(componentDescription))" }

    open var role: UnitRole { .processor }

    /// No MIDI buses unless a subclass has them. Thread: control.
    open func midiBusCount(_ scope: Scope) -> Int { 0 }
    open func midiBusNames(_ scope: Scope) -> [String] { (0..<midiBusCount(scope)).map { "midi\($0)" } }

    public private(set) var isInitialized = false
    public private(set) var maximumFramesPerSlice = 4096
    public private(set) var sampleRate: Double = 48_000

    private var formats: [Scope: [StreamFormat]] = [:]
    private let fixedScopes: Set<Scope>
    public private(set) var parameters: [ParameterInfo] = []
    private var parameterIndex: [ParameterAddress: Int] = [:]
    /// Current parameter values, readable from any thread.
    public private(set) var values = AtomicFloats(count: 0)
    private var propertyListeners: [Int: @Sendable (PropertyID, Scope, Int) -> Void] = [:]
    private var parameterListeners: [Int: @Sendable (ParameterInfo, Float) -> Void] = [:]
    private var nextListener = 0
    /// Held weakly: the engine holds the programs that hold the unit.
    private let sink = Mutex(WeakParameterSink())
    private let bypassFlag: UnsafeMutablePointer<Atomic<Bool>>
    private let flags = Arena(firstBlock: 64)
    private var pullBuffers: AudioBufferList?
    private var pullTime: Int64 = .min

    private static let nextID = Atomic<UInt64>(1)

    /// `inputs` and `outputs` give the channel count of each bus; all start canonical at
    /// 48 kHz. Element counts of the scopes in `fixedScopes` cannot change.
    public init(
        description: ComponentDescription,
        shortName: String,
        inputs: [Int],
        outputs: [Int],
        fixedScopes: Set<Scope> = [.input, .output]
    ) {
        componentDescription = description
        self.shortName = shortName
        unitID = Self.nextID.add(1, ordering: .relaxed).oldValue
        self.fixedScopes = fixedScopes
        formats[.input] = inputs.map { .canonical(sampleRate: 48_000, channelCount: $0) }
        formats[.output] = outputs.map { .canonical(sampleRate: 48_000, channelCount: $0) }
        bypassFlag = flags.takeAtomics(1, initial: false)
    }

    // MARK: - Hooks for subclasses

    /// Allocates DSP state for `sampleRate` and `maximumFramesPerSlice`. Thread: control.
    open func allocateRenderResources() throws(AudioUnitError) {}
    /// Frees what `allocateRenderResources` made; by default, lets `kernelStorage` go.
    /// Thread: control.
    open func deallocateRenderResources() { kernelStorage = nil }
    /// The storage of the unit's kernel, set in `allocateRenderResources`: the unit's
    /// kernel, its reset and (for a `UnitKernel`) its parameter changes come from it
    /// unless the unit overrides them. Thread: control.
    public var kernelStorage: (any KernelOwning)?
    /// The kernel `kernelStorage` holds, as its own type. Thread: control.
    public func storedKernel<Kernel>(as type: Kernel.Type) -> UnsafeMutablePointer<Kernel>? {
        (kernelStorage as? KernelStorage<Kernel>)?.pointer
    }
    /// The unit's kernel while initialized: made in `allocateRenderResources`, freed in
    /// `deallocateRenderResources`. Every unit has one, even one with nothing to render:
    /// `initialize` refuses a unit without it. Thread: control.
    open var renderKernel: RenderKernel? { kernelStorage?.kernel }
    /// Renders one slice outside a program through the kernel. Thread: the one thread
    /// that renders the unit.
    public final func render(_ context: RenderContext) -> RenderStatus {
        guard let kernel = renderKernel else { return .notInitialized }
        return withUnsafePointer(to: context) { kernel.render($0) }
    }
    /// Clears DSP state. Thread: audio while rendering, else control.
    open func reset() { kernelStorage?.kernel.reset() }
    /// Takes a parameter change into the DSP state, ramping over `rampFrames`.
    /// Thread: audio while rendering, else control.
    open func parameterDidChange(index: Int, value: Float, rampFrames: Int) {
        (kernelStorage as? any UnitKernelOwning)?.setKernelParameter(index: index, value: value, rampFrames: rampFrames)
    }
    /// Vets a format before it is set; throw to refuse. Thread: control.
    open func validateFormat(_ format: StreamFormat, scope: Scope, element: Int) throws(AudioUnitError) {
        guard format.isCanonical else {
            throw .formatNotSupported(format, reason: "buses inside a graph are non-interleaved float32", unit: name)
        }
    }
    /// Checks that the buses fit together before `initialize` allocates; throw to refuse.
    /// Thread: control.
    open func validateConfiguration() throws(AudioUnitError) {}
    /// Called after an element count changed, to declare per-element parameters. Thread: control.
    open func elementCountDidChange(scope: Scope) {}
    /// After the OfflineRender property changed (`isOfflineRender`). Thread: control.
    open func offlineRenderDidChange() {}
    /// Processing delay in frames. Thread: any.
    open var latencyFrames: Int { 0 }
    /// Seconds of output after input stops. Thread: any.
    open var tailTime: Double { 0 }
    /// Names of factory presets, by number.
    open var factoryPresets: [Preset] { [] }
    /// Applies a factory preset. Thread: control.
    open func applyFactoryPreset(_ preset: Preset) throws(AudioUnitError) {
        throw .invalidPreset(preset.name, available: factoryPresets.map(\.name), unit: name)
    }
    /// Unit-specific properties: info, get and set. Return nil for "not mine".
    open func customPropertyInfo(_ id: PropertyID, scope: Scope, element: Int) -> PropertyInfo? { nil }
    open func customProperty(_ id: PropertyID, scope: Scope, element: Int) throws(AudioUnitError) -> PropertyValue? { nil }
    open func setCustomProperty(_ id: PropertyID, _ value: PropertyValue, scope: Scope, element: Int) throws(AudioUnitError) -> Bool { false }

    private var currentPreset: Preset?

    // MARK: - Parameters (declaration)

    /// Declares a parameter; its index is its position in `parameters`. Thread: control,
    /// while uninitialized.
    @discardableResult
    public func declareParameter(_ info: ParameterInfo) -> Int {
        precondition(parameterIndex[info.address] == nil, "parameter \(info.address) declared twice in \(name)")
        parameters.append(info)
        parameterIndex[info.address] = parameters.count - 1
        let old = values
        values = AtomicFloats(count: parameters.count)
        for index in 0..<parameters.count {
            values[index] = index < old.count ? old[index] : parameters[index].defaultValue
        }
        return parameters.count - 1
    }

    /// Removes every parameter in a scope, so per-element parameters can be declared
    /// again after an element count change. Thread: control, while uninitialized.
    public func removeParameters(scope: Scope) {
        let kept = parameters.enumerated().filter { $0.element.address.scope != scope }
        let oldValues = values
        parameters = kept.map(\.element)
        parameterIndex = Dictionary(uniqueKeysWithValues: parameters.enumerated().map { ($1.address, $0) })
        values = AtomicFloats(count: parameters.count)
        for (newIndex, entry) in kept.enumerated() { values[newIndex] = oldValues[entry.offset] }
    }

    /// The index of a parameter, for the audio-side tables. Thread: control.
    public func index(of address: ParameterAddress) throws(AudioUnitError) -> Int {
        guard let index = parameterIndex[address] else { throw .invalidParameter(address, unit: name) }
        return index
    }

    /// Publishes a value the unit computed (a meter). Thread: audio.
    @inline(__always)
    public func publishOutputValue(index: Int, _ value: Float) {
        values[index] = value
    }

    // MARK: - Parameters (AudioUnit)

    public func parameterValue(_ address: ParameterAddress) throws(AudioUnitError) -> Float {
        values[try index(of: address)]
    }

    /// The one way a parameter changes from the control side (`ctl`, OSC, the web desk,
    /// sessions, the Swift API): checked here once, then carried by the engine to the
    /// audio thread, where the kernel applies it at `sampleTime` (the next cycle when
    /// nil) and the value store takes it. A change now reads back at once; a scheduled
    /// one once it applies. While nothing renders the unit, the change is made at once.
    public func setParameter(_ address: ParameterAddress, _ value: Float, rampFrames: Int, atSampleTime sampleTime: Int64?) throws(AudioUnitError) {
        let index = try index(of: address)
        let info = parameters[index]
        try info.checkSettable(value, unit: name)
        let previous = values[index]
        if sampleTime == nil { values[index] = value }
        let event = ParameterEvent(
            unitID: unitID, index: Int32(index), value: value, rampFrames: Int32(clamping: max(0, rampFrames)), sampleTime: sampleTime ?? .min)
        switch sink.withLock({ $0.sink?.enqueue(event) }) ?? .notRendering {
        case .queued:
            if sampleTime != nil { return }
        case .notRendering:
            values[index] = value
            parameterDidChange(index: index, value: value, rampFrames: 0)
        case .full:
            values[index] = previous
            throw .parameterQueueFull(info.identifier, unit: name)
        }
        for listener in parameterListeners.values { listener(info, value) }
    }

    /// Sets a parameter by name (`parameter(named:)`). Thread: any.
    public func setParameter(named identifier: String, _ value: Float, rampFrames: Int = 0) throws(AudioUnitError) {
        try setParameter(try parameter(named: identifier).address, value, rampFrames: rampFrames, atSampleTime: nil)
    }

    public func applyParameterEvent(index: Int, value: Float, rampFrames: Int) {
        values[index] = value
        parameterDidChange(index: index, value: value, rampFrames: rampFrames)
    }

    /// Where `setParameter` sends changes while the unit is in a published program: the
    /// graph's engine, set when it publishes one and cleared when it uninitializes; held
    /// weakly. Thread: control.
    public func routeParameterChanges(to sink: (any ParameterEventSink)?) {
        self.sink.withLock { $0.sink = sink }
    }

    @discardableResult
    public func addParameterListener(_ listener: @escaping @Sendable (ParameterInfo, Float) -> Void) -> ListenerToken {
        nextListener += 1
        parameterListeners[nextListener] = listener
        return ListenerToken(rawValue: nextListener)
    }

    @discardableResult
    public func addPropertyListener(_ listener: @escaping @Sendable (PropertyID, Scope, Int) -> Void) -> ListenerToken {
        nextListener += 1
        propertyListeners[nextListener] = listener
        return ListenerToken(rawValue: nextListener)
    }

    public func removeListener(_ token: ListenerToken) {
        propertyListeners[token.rawValue] = nil
        parameterListeners[token.rawValue] = nil
    }

    private func propertyChanged(_ id: PropertyID, scope: Scope, element: Int) {
        for listener in propertyListeners.values { listener(id, scope, element) }
    }

    // MARK: - Elements and formats

    public func elementCount(_ scope: Scope) -> Int {
        scope == .global ? 1 : formats[scope]!.count
    }

    /// Changes how many buses a scope has; new buses copy the last one's format.
    /// Thread: control, while uninitialized.
    public func setElementCount(_ count: Int, scope: Scope) throws(AudioUnitError) {
        try setProperty(.elementCount, .int(count), scope: scope, element: 0)
    }

    public func format(scope: Scope, element: Int) throws(AudioUnitError) -> StreamFormat {
        guard scope != .global else { throw .invalidScope(scope, property: .streamFormat, unit: name) }
        let list = formats[scope]!
        guard list.indices.contains(element) else {
            throw .invalidElement(element, scope: scope, elementCount: list.count, unit: name)
        }
        return list[element]
    }

    public func setFormat(_ format: StreamFormat, scope: Scope, element: Int) throws(AudioUnitError) {
        try setProperty(.streamFormat, .format(format), scope: scope, element: element)
    }

    /// Sets the sample rate of every bus at once. Thread: control, while uninitialized.
    public func setSampleRate(_ rate: Double) throws(AudioUnitError) {
        for scope in [Scope.input, .output] {
            for element in 0..<elementCount(scope) {
                var format = try format(scope: scope, element: element)
                format.sampleRate = rate
                try setFormat(format, scope: scope, element: element)
            }
        }
    }

    // MARK: - Life cycle

    public func initialize() throws(AudioUnitError) {
        guard !isInitialized else { return }
        let all = (formats[.input]! + formats[.output]!)
        if let first = all.first, all.contains(where: { $0.sampleRate != first.sampleRate }) {
            throw .failedToInitialize("its buses disagree on the sample rate", unit: name)
        }
        sampleRate = all.first?.sampleRate ?? sampleRate
        try validateConfiguration()
        try allocateRenderResources()
        guard renderKernel != nil else {
            deallocateRenderResources()
            throw .failedToInitialize("it made no render kernel: a unit makes one in allocateRenderResources (docs/render-contract.md)", unit: name)
        }
        for index in parameters.indices where !parameters[index].flags.contains(.output) {
            parameterDidChange(index: index, value: values[index], rampFrames: 0)
        }
        isInitialized = true
    }

    public func uninitialize() {
        guard isInitialized else { return }
        deallocateRenderResources()
        pullBuffers = nil
        isInitialized = false
    }

    /// Sets the largest slice. Thread: control, while uninitialized.
    public func setMaximumFramesPerSlice(_ frames: Int) throws(AudioUnitError) {
        try setProperty(.maximumFramesPerSlice, .int(frames), scope: .global, element: 0)
    }

    public var isBypassed: Bool { bypassFlag.pointee.load(ordering: .relaxed) }

    /// The OfflineRender property. Thread: control.
    public private(set) var isOfflineRender = false

    public var realtime: UnitRealtime {
        precondition(isInitialized, "\(name) has no kernel before initialize")
        return UnitRealtime(unitID: unitID, kernel: renderKernel!, values: values.view, bypass: bypassFlag)
    }

    // MARK: - Properties

    public func propertyInfo(_ id: PropertyID, scope: Scope, element: Int) throws(AudioUnitError) -> PropertyInfo {
        if let info = customPropertyInfo(id, scope: scope, element: element) { return info }
        switch id {
        case .streamFormat:
            _ = try format(scope: scope, element: element)
            return PropertyInfo(isWritable: !isInitialized, kindName: "stream format")
        case .elementCount:
            guard scope != .global else { throw .invalidScope(scope, property: id, unit: name) }
            return PropertyInfo(isWritable: !isInitialized && !fixedScopes.contains(scope), kindName: "integer")
        case .maximumFramesPerSlice:
            try requireGlobal(id, scope)
            return PropertyInfo(isWritable: !isInitialized, kindName: "integer")
        case .latency, .tailTime:
            try requireGlobal(id, scope)
            return PropertyInfo(isWritable: false, kindName: "number")
        case .parameterList:
            return PropertyInfo(isWritable: false, kindName: "parameter list")
        case .bypassEffect, .offlineRender:
            try requireGlobal(id, scope)
            return PropertyInfo(isWritable: true, kindName: "boolean")
        case .factoryPresets:
            try requireGlobal(id, scope)
            return PropertyInfo(isWritable: false, kindName: "list of strings")
        case .presentPreset:
            try requireGlobal(id, scope)
            return PropertyInfo(isWritable: !factoryPresets.isEmpty, kindName: "string")
        default:
            throw .invalidProperty(id, unit: name)
        }
    }

    public func property(_ id: PropertyID, scope: Scope, element: Int) throws(AudioUnitError) -> PropertyValue {
        if let value = try customProperty(id, scope: scope, element: element) { return value }
        _ = try propertyInfo(id, scope: scope, element: element)
        switch id {
        case .streamFormat: return .format(try format(scope: scope, element: element))
        case .elementCount: return .int(elementCount(scope))
        case .maximumFramesPerSlice: return .int(maximumFramesPerSlice)
        case .latency: return .double(Double(latencyFrames) / sampleRate)
        case .tailTime: return .double(tailTime)
        case .parameterList: return .parameters(parameters.filter { $0.address.scope == scope })
        case .bypassEffect: return .bool(isBypassed)
        case .offlineRender: return .bool(isOfflineRender)
        case .factoryPresets: return .strings(factoryPresets.map(\.name))
        case .presentPreset: return .string(currentPreset?.name ?? "")
        default: throw .invalidProperty(id, unit: name)
        }
    }

    public func setProperty(_ id: PropertyID, _ value: PropertyValue, scope: Scope, element: Int) throws(AudioUnitError) {
        if try setCustomProperty(id, value, scope: scope, element: element) {
            propertyChanged(id, scope: scope, element: element)
            return
        }
        let info = try propertyInfo(id, scope: scope, element: element)
        if !info.isWritable {
            let changesOnlyWhenUninitialized: Set<PropertyID> = [.streamFormat, .maximumFramesPerSlice, .elementCount]
            if isInitialized && changesOnlyWhenUninitialized.contains(id) {
                throw .cannotChangeWhileInitialized(id, unit: name)
            }
            if id == .elementCount { throw .elementCountNotChangeable(scope, unit: name) }
            throw .readOnlyProperty(id, unit: name)
        }
        switch (id, value) {
        case (.streamFormat, .format(let format)):
            do { try format.validate() } catch { throw .invalidFormat(error, unit: name) }
            try validateFormat(format, scope: scope, element: element)
            formats[scope]![element] = format
        case (.elementCount, .int(let count)):
            guard (0...1024).contains(count) else {
                throw .invalidPropertyValue(id, expected: "count in 0...1024", got: "\(count)", unit: name)
            }
            var list = formats[scope]!
            let template = list.last ?? .canonical(sampleRate: sampleRate, channelCount: 2)
            if count < list.count { list.removeLast(list.count - count) }
            while list.count < count { list.append(template) }
            formats[scope] = list
            elementCountDidChange(scope: scope)
        case (.maximumFramesPerSlice, .int(let frames)):
            guard (1...65_536).contains(frames) else {
                throw .invalidPropertyValue(id, expected: "frame count in 1...65536", got: "\(frames)", unit: name)
            }
            maximumFramesPerSlice = frames
        case (.bypassEffect, .bool(let on)):
            bypassFlag.pointee.store(on, ordering: .relaxed)
        case (.offlineRender, .bool(let on)):
            guard on != isOfflineRender else { break }
            isOfflineRender = on
            offlineRenderDidChange()
        case (.presentPreset, .string(let presetName)):
            guard let preset = factoryPresets.first(where: { $0.name.lowercased() == presetName.lowercased() })
                ?? Int(presetName).flatMap({ number in factoryPresets.first { $0.number == number } })
            else {
                throw .invalidPreset(presetName, available: factoryPresets.map(\.name), unit: name)
            }
            try applyFactoryPreset(preset)
            currentPreset = preset
        default:
            throw .invalidPropertyValue(id, expected: info.kindName, got: value.kindName, unit: name)
        }
        propertyChanged(id, scope: scope, element: element)
    }

    private func requireGlobal(_ id: PropertyID, _ scope: Scope) throws(AudioUnitError) {
        guard scope == .global else { throw .invalidScope(scope, property: id, unit: name) }
    }

    // MARK: - Standalone pull

    /// Renders `frameCount` frames of output `bus` into `output`, pulling each input bus
    /// from `source` first, the way `AudioUnitRender` pulls a render callback. Pulling
    /// several buses at the same time stamp renders once. Thread: audio.
    public func render(
        frameCount: Int,
        timeStamp: AudioTimeStamp,
        outputBus bus: Int,
        into output: AudioBuffers,
        pullingFrom source: some InputSource
    ) -> RenderStatus {
        guard isInitialized, let buffers = pullBuffers else { return .notInitialized }
        guard frameCount <= maximumFramesPerSlice else { return .tooManyFrames }
        let inputCount = elementCount(.input)
        if pullTime != timeStamp.sampleTime {
            for input in 0..<inputCount {
                let status = source.pullInput(bus: input, frameCount: frameCount, timeStamp: timeStamp, into: buffers[input])
                if status != .ok { return status }
            }
            let all = buffers.buses
            let context = RenderContext(
                frameCount: frameCount, timeStamp: timeStamp,
                inputs: BusBuffers(buses: all.buses, count: inputCount),
                outputs: BusBuffers(buses: all.buses.map { $0 + inputCount }, count: elementCount(.output)))
            let status = render(context)
            if status != .ok { return status }
            pullTime = timeStamp.sampleTime
        }
        output.copy(from: buffers[inputCount + bus], frameCount: frameCount)
        return .ok
    }

    /// Prepares the buffers `render(frameCount:timeStamp:outputBus:into:pullingFrom:)`
    /// needs. Thread: control, after `initialize`.
    public func preparePulling() {
        let counts = formats[.input]!.map(\.channelCount) + formats[.output]!.map(\.channelCount)
        pullBuffers = AudioBufferList(channelCounts: counts, frameCapacity: maximumFramesPerSlice)
        pullTime = .min
    }
}

struct WeakParameterSink {
    weak var sink: (any ParameterEventSink)?
}

