import TrellisCore

/// A smoothed gain in decibels on every channel of one bus: the smallest effect, and
/// the unit that benchmarks and tests chain by the dozen.
public final class Gain: AudioUnitBase, @unchecked Sendable {
    public static let description = ComponentDescription(
        type: ComponentType.effect, subtype: BuiltInSubtype.gain, manufacturer: Manufacturer.trellis)

    public static let gainParameter = ParameterAddress(0)

    private var gain = SmoothedValue(1)

    public init(channelCount: Int = 2) {
        super.init(description: Self.description, shortName: "gain", inputs: [channelCount], outputs: [channelCount])
        declareParameter(ParameterInfo(
            address: Self.gainParameter, identifier: "gain", name: "Gain", unit: .decibels,
            range: -120...24, defaultValue: 0, flags: [.readable, .writable, .ramped]))
    }

    public override func validateConfiguration() throws(AudioUnitError) {
        let input = try format(scope: .input, element: 0), output = try format(scope: .output, element: 0)
        guard input.channelCount == output.channelCount else {
            throw .failedToInitialize("input has \(input.channelCount) channels, output \(output.channelCount)", unit: name)
        }
    }

    public override func parameterDidChange(index: Int, value: Float, rampFrames: Int) {
        let linear = value <= -120 ? 0 : decibelsToGain(value)
        gain.set(linear, frames: isInitialized ? (rampFrames > 0 ? rampFrames : 64) : 0)
    }

    public override func render(_ context: RenderContext) -> RenderStatus {
        let input = context.inputs[0], output = context.outputs[0]
        let frames = context.frameCount
        if !gain.isRamping {
            let g = gain.current
            for channel in 0..<output.channelCount {
                let source = input[channel], destination = output[channel]
                for frame in 0..<frames { destination[frame] = source[frame] * g }
            }
            return .ok
        }
        var ramp = gain
        for channel in 0..<output.channelCount {
            ramp = gain
            let source = input[channel], destination = output[channel]
            for frame in 0..<frames { destination[frame] = source[frame] * ramp.next() }
        }
        gain = ramp
        return .ok
    }
}

/// 10^(dB/20). Thread: any.
@inline(__always)
public func decibelsToGain(_ decibels: Float) -> Float {
    Float(exp10Double(Double(decibels) / 20))
}

@inline(__always)
func exp10Double(_ x: Double) -> Double {
    _exp(x * 2.302585092994046)
}
