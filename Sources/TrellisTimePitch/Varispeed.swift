import TrellisCore

/// AUVarispeed: `rate` (0.25 to 4) and `cents` (±2400) move speed and pitch together.
/// Fed directly by a file player, it hands them to the player, which reads the file
/// through libsoxr at the rate times 2^(cents/1200); fed by another source that can be
/// read at any pace (TrellisAV's player node), that source reads at it; the unit passes
/// audio through. Fed
/// by anything else (a live stream cannot be read faster than it arrives) its rate must
/// be 1 and its cents 0.
public final class Varispeed: AudioUnitBase, RateFollowing, @unchecked Sendable {
    public static let componentDescription = ComponentDescription(
        type: ComponentType.formatConverter, subtype: BuiltInSubtype.varispeed, manufacturer: Manufacturer.trellis)

    private weak var source: (any RateSource)?

    /// Thread: control.
    public init() {
        super.init(description: Self.componentDescription, shortName: "varispeed", inputs: [2], outputs: [2])
        declareParameter(ParameterInfo(address: ParameterAddress(0), identifier: "rate", name: "Playback Rate", unit: .ratio,
                                       range: 0.25...4, defaultValue: 1, flags: [.readable, .writable, .logarithmic]))
        declareParameter(ParameterInfo(address: ParameterAddress(1), identifier: "cents", name: "Playback Cents", unit: .cents,
                                       range: -2400...2400, defaultValue: 0))
        addParameterListener { [weak self] _, _ in self?.tellSource() }
    }

    var request: RateRequest { RateRequest(rate: values[0].decimal, cents: values[1].decimal, keepsPitch: false) }

    public func link(to source: (any RateSource)?) throws(AudioUnitError) {
        if let old = self.source, source.map({ $0 !== old }) ?? true { old.follow(nil) }
        self.source = source
        if let source {
            source.follow(request)
        } else if values[0] != 1 || values[1] != 0 {
            throw .invalidState("rate \(values[0]) and cents \(values[1]) need a file player (or a player node) feeding the unit directly (a live "
                                + "stream cannot be read faster or slower than it arrives)", unit: name)
        }
    }

    private func tellSource() { source?.follow(request) }

    public override func parameterDidChange(index: Int, value: Float, rampFrames: Int) { tellSource() }

    public override func allocateRenderResources() throws(AudioUnitError) {
        kernelStorage = KernelStorage(PassThroughKernel(), render: { PassThroughKernel.render($0, $1) }, reset: { PassThroughKernel.reset($0) })
    }
}

/// Copies input 0 to output 0. Thread: audio.
struct PassThroughKernel: UnitKernel {
    mutating func process(_ context: RenderContext) -> RenderStatus {
        let input = context.inputs[0], output = context.outputs[0]
        for channel in 0..<output.channelCount {
            let destination = output[channel]
            if channel < input.channelCount {
                let source = input[channel]
                for frame in 0..<context.frameCount { destination[frame] = source[frame] }
            } else {
                for frame in 0..<context.frameCount { destination[frame] = 0 }
            }
        }
        return .ok
    }

    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func render(_ state: UnsafeMutableRawPointer, _ context: UnsafeRawPointer) -> UInt8 {
        renderInSegments(state, context)
    }
}
