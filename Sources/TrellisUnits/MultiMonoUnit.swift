import TrellisCore

/// A mono effect run once per channel, as one unit with an N-channel bus: what hosts call
/// multi-mono (dual-mono for a stereo pair). An LV2 plugin with one mono input and one
/// mono output placed in a stereo chain gets two instances, each processing its own
/// channel, instead of hearing the channels' average.
///
/// The unit shows the first instance's parameters; a parameter set here (with its ramp)
/// reaches every instance, so they stay identical. State and presets go to every
/// instance; meters and latency are read from the first. In a program the compiler
/// lays the instances out as kernels of their own (`PerChannelInstances`); rendered on
/// its own, the unit runs them in turn. Thread: as `AudioUnit`.
public final class MultiMonoUnit: AudioUnitBase, StatefulUnit, PerChannelInstances, UnitMessageSource, @unchecked Sendable {
    /// The instances, one per channel, in channel order.
    public let instances: [any AudioUnit]
    /// Indexes of the parameters the first instance computes (meters), copied after each render.
    private let outputParameters: [Int]
    private let inputTable: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    private let outputTable: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    private let inputViews: UnsafeMutablePointer<AudioBuffers>
    private let outputViews: UnsafeMutablePointer<AudioBuffers>
    /// Per channel, scratch views for the instance's segments.
    private let segmentTable: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    private let segmentViews: UnsafeMutablePointer<AudioBuffers>
    private let outputIndexes: UnsafeMutablePointer<Int32>
    /// The channel tables and views above, for as long as the unit lives.
    private let memory = Arena()
    private var meterStorage: KernelStorage<MeterCopyKernel>?

    /// Whether `unit` is a mono-in, mono-out effect that cannot be made wider itself, and
    /// so is worth running once per channel. Thread: control.
    public static func canRun(_ unit: any AudioUnit) -> Bool {
        guard unit.elementCount(.input) == 1, unit.elementCount(.output) == 1,
              (try? unit.format(scope: .input, element: 0).channelCount) == 1,
              (try? unit.format(scope: .output, element: 0).channelCount) == 1,
              unit.midiBusCount(.input) == 0, unit.midiBusCount(.output) == 0,
              let base = unit as? AudioUnitBase
        else { return false }
        do {
            try base.validateFormat(.canonical(sampleRate: base.sampleRate, channelCount: 2), scope: .input, element: 0)
            return false
        } catch {
            return true
        }
    }

    /// Runs `instances` (fresh, uninitialized units of one kind, configured alike) one per
    /// channel. Thread: control.
    public init(instances: [any AudioUnit]) {
        precondition(!instances.isEmpty, "a multi-mono unit needs at least one instance")
        self.instances = instances
        let first = instances[0]
        let shortName = (first as? AudioUnitBase)?.shortName ?? first.componentDescription.subtype.description
        let channels = instances.count
        inputTable = memory.take(channels)
        outputTable = memory.take(channels)
        inputViews = memory.take(channels)
        outputViews = memory.take(channels)
        segmentTable = memory.take(2 * channels)
        segmentViews = memory.take(2 * channels)
        for channel in 0..<channels {
            (inputViews + channel).initialize(to: AudioBuffers(channelPointers: UnsafePointer(inputTable + channel), channelCount: 1))
            (outputViews + channel).initialize(to: AudioBuffers(channelPointers: UnsafePointer(outputTable + channel), channelCount: 1))
            for side in 0..<2 {
                let index = 2 * channel + side
                (segmentTable + index).initialize(to: inputTable[0])
                (segmentViews + index).initialize(to: AudioBuffers(channelPointers: UnsafePointer(segmentTable + index), channelCount: 1))
            }
        }
        let infos = first.parameters
        outputParameters = infos.indices.filter { !infos[$0].isWritable }
        outputIndexes = memory.copy(outputParameters.map { Int32($0) })
        super.init(description: first.componentDescription, shortName: shortName, inputs: [channels], outputs: [channels])
        for (index, info) in infos.enumerated() {
            declareParameter(info)
            values[index] = (try? first.parameterValue(info.address)) ?? info.defaultValue
        }
    }

    /// Makes the instances for `width` channels: `first`, then as many from `another`.
    /// Thread: control.
    public convenience init<Failure: Error>(
        width: Int, first: any AudioUnit, another: () throws(Failure) -> any AudioUnit
    ) throws(Failure) {
        var instances = [first]
        while instances.count < width { instances.append(try another()) }
        self.init(instances: instances)
    }

    deinit {
        deallocateRenderResources()
    }

    public override var name: String { "\(instances[0].name) ×\(instances.count)" }

    public override func validateFormat(_ format: StreamFormat, scope: Scope, element: Int) throws(AudioUnitError) {
        try super.validateFormat(format, scope: scope, element: element)
        guard format.channelCount == instances.count else {
            throw .formatNotSupported(format, reason: "one instance per channel: \(instances.count) channels", unit: name)
        }
    }

    public override func allocateRenderResources() throws(AudioUnitError) {
        for instance in instances {
            instance.uninitialize()
            for scope in [Scope.input, .output] {
                var format = try instance.format(scope: scope, element: 0)
                format.sampleRate = sampleRate
                try instance.setFormat(format, scope: scope, element: 0)
            }
            try instance.setProperty(.maximumFramesPerSlice, .int(maximumFramesPerSlice), scope: .global, element: 0)
            try instance.initialize()
        }
        let kernels = instances.map(\.realtime.kernel), firstValues = instances[0].realtime.values, view = values.view
        let (inputTable, outputTable, inputViews, outputViews, segmentViews) = (inputTable, outputTable, inputViews, outputViews, segmentViews)
        let (outputIndexes, outputCount) = (outputIndexes, outputParameters.count)
        kernelStorage = KernelStorage(render: { MultiMonoKernel.render($0, $1) }, reset: { MultiMonoKernel.reset($0) }) { memory in
            MultiMonoKernel(
                instances: memory.copy(kernels), count: kernels.count, inputTable: inputTable, outputTable: outputTable,
                inputViews: inputViews, outputViews: outputViews, segmentViews: segmentViews,
                firstValues: firstValues, values: view, outputIndexes: outputIndexes, outputCount: outputCount)
        }
        meterStorage = KernelStorage(MeterCopyKernel(
            from: instances[0].realtime.values, to: values.view, indexes: outputIndexes, count: outputParameters.count),
            render: { MeterCopyKernel.render($0, $1) }, reset: { _ in })
    }

    public var instanceRealtimes: [UnitRealtime] { instances.map(\.realtime) }

    public var afterInstancesKernel: RenderKernel? { meterStorage?.kernel }

    public override func offlineRenderDidChange() {
        for instance in instances { try? instance.setProperty(.offlineRender, .bool(isOfflineRender), scope: .global, element: 0) }
    }

    /// The instances' messages, one instance after another. Thread: as the protocol says.
    public func drainMessages(_ deliver: (UnitMessage) -> Void) -> Int {
        var dropped = 0
        for case let source as any UnitMessageSource in instances { dropped += source.drainMessages(deliver) }
        return dropped
    }

    public override func deallocateRenderResources() {
        kernelStorage = nil
        meterStorage = nil
        for instance in instances { instance.uninitialize() }
    }

    public override func parameterDidChange(index: Int, value: Float, rampFrames: Int) {
        for channel in 0..<instances.count { instances[channel].applyParameterEvent(index: index, value: value, rampFrames: rampFrames) }
    }

    public override func reset() {
        for channel in 0..<instances.count { instances[channel].reset() }
    }

    public override var latencyFrames: Int { instances[0].latencyFrames }

    public override var tailTime: Double { instances[0].tailTime }

    public override var factoryPresets: [Preset] { (instances[0] as? AudioUnitBase)?.factoryPresets ?? [] }

    public override func applyFactoryPreset(_ preset: Preset) throws(AudioUnitError) {
        for instance in instances { try instance.setProperty(.presentPreset, .string(preset.name), scope: .global, element: 0) }
        copyValues()
    }

    public func stateText() throws(AudioUnitError) -> String {
        guard let stateful = instances[0] as? any StatefulUnit else { throw .invalidState("the unit keeps no state", unit: name) }
        return try stateful.stateText()
    }

    public func restore(stateText text: String) throws(AudioUnitError) {
        for instance in instances {
            guard let stateful = instance as? any StatefulUnit else { throw .invalidState("the unit keeps no state", unit: name) }
            try stateful.restore(stateText: text)
        }
        copyValues()
    }

    /// Takes the first instance's parameter values after it changed them itself.
    private func copyValues() {
        for (index, info) in parameters.enumerated() {
            if let value = try? instances[0].parameterValue(info.address) { values[index] = value }
        }
    }
}

/// Publishes the meters (parameters the instance computes) of the first instance as the
/// multi-mono unit's: what runs after the instances in a program. Thread: audio.
struct MeterCopyKernel {
    let from: ParameterValues
    let to: ParameterValues
    let indexes: UnsafeMutablePointer<Int32>
    let count: Int

    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func render(_ state: UnsafeMutableRawPointer, _ context: UnsafeRawPointer) -> UInt8 {
        let kernel = state.assumingMemoryBound(to: MeterCopyKernel.self).pointee
        for position in 0..<kernel.count {
            let index = Int(kernel.indexes[position])
            kernel.to[index] = kernel.from[index]
        }
        return RenderStatus.ok.rawValue
    }
}

/// Runs the instances' kernels, one per channel, each on its channel of the bus with
/// the call's events (the instances share the parameter list, so every event means the
/// same to each), when the unit renders outside a program. Meters come from the first
/// instance. Thread: audio.
struct MultiMonoKernel: CallKernel {
    let instances: UnsafeMutablePointer<RenderKernel>
    let count: Int
    let inputTable: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let outputTable: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let inputViews: UnsafeMutablePointer<AudioBuffers>
    let outputViews: UnsafeMutablePointer<AudioBuffers>
    let segmentViews: UnsafeMutablePointer<AudioBuffers>
    let firstValues: ParameterValues
    let values: ParameterValues
    let outputIndexes: UnsafeMutablePointer<Int32>
    let outputCount: Int

    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func render(_ state: UnsafeMutableRawPointer, _ context: UnsafeRawPointer) -> UInt8 {
        renderCall(state, context)
    }

    static func reset(_ state: UnsafeMutableRawPointer) {
        let kernel = state.assumingMemoryBound(to: MultiMonoKernel.self).pointee
        for channel in 0..<kernel.count { kernel.instances[channel].reset() }
    }

    @inline(__always)
    func render(_ context: RenderContext) -> RenderStatus {
        let input = context.inputs[0], output = context.outputs[0]
        for channel in 0..<count {
            inputTable[channel] = input[channel]
            outputTable[channel] = output[channel]
            var part = context
            part.inputs = BusBuffers(buses: UnsafePointer(inputViews + channel), count: 1)
            part.outputs = BusBuffers(buses: UnsafePointer(outputViews + channel), count: 1)
            part.segmentInputs = BusBuffers(buses: UnsafePointer(segmentViews + 2 * channel), count: 1)
            part.segmentOutputs = BusBuffers(buses: UnsafePointer(segmentViews + (2 * channel + 1)), count: 1)
            // Each instance's entry is a kernel checked on its own (see RenderProgram).
            let status = _unsafePerformance { instances[channel].render(&part) }
            if status != .ok { return status }
        }
        for position in 0..<outputCount {
            let index = Int(outputIndexes[position])
            values[index] = firstValues[index]
        }
        return .ok
    }
}
