import CRubberBand
import CTrellisRubberBand
import Synchronization
import TrellisCore

/// AUNewTimePitch on Rubber Band: `rate` (1/32 to 32) and `pitch` (±2400 cents)
/// independent, formants kept or not. Fed directly by a file player, it hands both to the
/// player, which renders them from the file (in an offline render exactly as the
/// `rubberband` command does); fed by another source that can be read at any pace
/// (TrellisAV's player node), that source stretches as it plays; the unit passes audio
/// through. Fed by anything else it
/// shifts pitch in real time (Rubber Band's R2 engine, with the latency it reports) and
/// its rate must be 1.
public final class TimePitch: AudioUnitBase, RateFollowing, @unchecked Sendable {
    public static let componentDescription = ComponentDescription(
        type: ComponentType.formatConverter, subtype: BuiltInSubtype.timePitch, manufacturer: Manufacturer.trellis)

    /// The real-time pitch shift (which holds its stretcher), the thread that moves its
    /// pitch, and the arena the shift's memory comes from, made and dropped with it.
    private var shifter: (core: UnsafeMutablePointer<PitchShifterCore>, mover: PitchMover?, memory: Arena)?
    private let linked: UnsafeMutablePointer<Atomic<Bool>>
    private let memory = Arena(firstBlock: 64)
    private weak var source: (any RateSource)?
    private var kernelLatency = 0

    /// Pitch moves made on the rendering thread itself, not handed to a mover thread:
    /// for hosts that may render faster than real time (an LV2 plugin's). Offline renders
    /// always do. Set before `initialize`. Thread: control.
    public var movesPitchInPlace = false

    /// Thread: control.
    public init() {
        linked = memory.takeAtomics(1, initial: false)
        super.init(description: Self.componentDescription, shortName: "timepitch", inputs: [2], outputs: [2])
        for info in [
            ParameterInfo(address: ParameterAddress(0), identifier: "rate", name: "Rate", unit: .ratio, range: 0.03125...32, defaultValue: 1, flags: [.readable, .writable, .logarithmic]),
            ParameterInfo(address: ParameterAddress(1), identifier: "pitch", name: "Pitch", unit: .cents, range: -2400...2400, defaultValue: 0),
            ParameterInfo(address: ParameterAddress(100), identifier: "formants", name: "Preserve Formants", unit: .boolean, range: 0...1, defaultValue: 0, flags: [.readable, .writable, .toggled]),
        ] { declareParameter(info) }
        addParameterListener { [weak self] _, _ in self?.tellSource() }
    }

    deinit {
        deallocateRenderResources()
    }

    var request: RateRequest {
        RateRequest(rate: values[0].decimal, cents: values[1].decimal, keepsPitch: true, preservesFormants: values[2] >= 0.5)
    }

    public func link(to source: (any RateSource)?) throws(AudioUnitError) {
        if let old = self.source, source.map({ $0 !== old }) ?? true { old.follow(nil) }
        self.source = source
        linked.pointee.store(source != nil, ordering: .relaxed)
        if let source {
            source.follow(request)
        } else if values[0] != 1 {
            throw .invalidState("rate \(values[0]) needs a file player (or a player node) feeding the unit directly (a live stream cannot be "
                                + "read faster or slower than it arrives); set rate 1 here, or the player's own rate", unit: name)
        }
    }

    private func tellSource() { source?.follow(request) }

    public override func parameterDidChange(index: Int, value: Float, rampFrames: Int) {
        tellSource()
        super.parameterDidChange(index: index, value: value, rampFrames: rampFrames)
    }

    /// Linked, none; else the real-time pitch shift's FIFO.
    public override var latencyFrames: Int { source != nil ? 0 : kernelLatency }

    public override func allocateRenderResources() throws(AudioUnitError) {
        let channels = try { () throws(AudioUnitError) -> Int in
            let input = try format(scope: .input, element: 0).channelCount, output = try format(scope: .output, element: 0).channelCount
            guard input == output else { throw .failedToInitialize("its input has \(input) channels but its output has \(output)", unit: name) }
            return input
        }()
        // Live, the R2 ("faster") engine at its high-speed pitch mode: R3 costs several
        // times as much a cycle, and R2's other pitch modes split a pure tone in two.
        var options = Int32(RubberBandOptionProcessRealTime.rawValue) | Int32(RubberBandOptionEngineFaster.rawValue)
            | Int32(RubberBandOptionThreadingNever.rawValue)
        if values[2] >= 0.5 { options |= Int32(RubberBandOptionFormantPreserved.rawValue) }
        rubberband_set_default_debug_level(0)
        let pitch = _exp2(Double(values[1]) / 1200)
        guard let made = trellis_rubberband_new_quiet(UInt32(sampleRate), UInt32(channels), options, 1, pitch) else {
            throw .failedToInitialize("Rubber Band could not make a stretcher", unit: name)
        }
        rubberband_set_max_process_size(made, UInt32(maximumFramesPerSlice))
        // Every pitch once, lowest to highest, ending at the unit's: the stretcher makes
        // a window for each size it meets (an allocation it would otherwise make on the
        // audio thread), and its look-ahead is longest at the lowest pitch.
        var startDelay = 0
        for cents in [-2400.0, -1200, 1200, 2400, Double(values[1])] {
            rubberband_set_pitch_scale(made, _exp2(cents / 1200))
            startDelay = max(startDelay, Int(rubberband_get_start_delay(made)))
        }
        // The longest look-ahead, a cycle, and a hop's worth of slack.
        kernelLatency = startDelay + maximumFramesPerSlice + 2048
        let arena = Arena()
        let core = arena.place(PitchShifterCore(
            stretcher: made, channels: channels, maximumFrames: maximumFramesPerSlice, latency: kernelLatency,
            pitch: pitch, formants: values[2] >= 0.5, memory: arena))
        core.pointee.movesInPlace.store(movesPitchInPlace || isOfflineRender, ordering: .relaxed)
        let mover = movesPitchInPlace ? nil : PitchMover(core: core)
        shifter = (core, mover, arena)
        var kernel = PitchShiftKernel(core: core, mover: mover?.isRunning == true ? mover?.semaphore : nil, linked: UnsafePointer(linked))
        kernel.reset()
        kernelStorage = KernelStorage(kernel, render: { PitchShiftKernel.render($0, $1) }, reset: { PitchShiftKernel.reset($0) })
    }

    public override func deallocateRenderResources() {
        kernelStorage = nil
        guard let shifter else { return }
        shifter.mover?.stop()
        rubberband_delete(shifter.core.pointee.stretcher)
        self.shifter = nil
    }

    public override func offlineRenderDidChange() {
        shifter?.core.pointee.movesInPlace.store(movesPitchInPlace || isOfflineRender, ordering: .relaxed)
    }
}

