import Glibc
import TrellisCore

/// A feedback delay: delay time, feedback through a one-pole low-pass in the loop, and
/// a wet/dry mix. Parameter ids follow `AUDelay`.
///
/// A change of delay time glides the read position (at most half a sample per sample,
/// so the pitch bends instead of the output jumping); fractional delays read by linear
/// interpolation.
public final class Delay: AudioUnitBase, @unchecked Sendable {
    public static let componentDescription = ComponentDescription(
        type: ComponentType.effect, subtype: BuiltInSubtype.delay, manufacturer: Manufacturer.trellis)
    public static let maximumDelaySeconds: Float = 2


    /// Thread: control.
    public init() {
        super.init(description: Self.componentDescription, shortName: "delay", inputs: [2], outputs: [2])
        declareParameter(ParameterInfo(address: ParameterAddress(0), identifier: "mix", name: "Dry/Wet Mix",
                                       unit: .percent, range: 0...100, defaultValue: 50, flags: [.readable, .writable, .ramped]))
        declareParameter(ParameterInfo(address: ParameterAddress(1), identifier: "time", name: "Delay Time",
                                       unit: .seconds, range: 0...Self.maximumDelaySeconds, defaultValue: 1, flags: [.readable, .writable, .ramped]))
        declareParameter(ParameterInfo(address: ParameterAddress(2), identifier: "feedback", name: "Feedback",
                                       unit: .percent, range: -99.9...99.9, defaultValue: 50, flags: [.readable, .writable, .ramped]))
        declareParameter(ParameterInfo(address: ParameterAddress(3), identifier: "lowpass", name: "Low-pass Cutoff",
                                       unit: .hertz, range: 10...22_050, defaultValue: 15_000, flags: [.readable, .writable, .logarithmic, .ramped]))
    }

    public override var tailTime: Double {
        // Time for the echoes to fall 60 dB at the current feedback.
        let gain = Double(abs(values[2]) / 100), time = Double(values[1])
        return gain <= 0 ? time : time * (1 + 3 / max(1e-3, -log10(gain)))
    }

    public override func allocateRenderResources() throws(AudioUnitError) {
        let channels = try matchingChannelCount()
        var ringSize = 1
        while ringSize < Int(Double(Self.maximumDelaySeconds) * sampleRate) + 4 { ringSize <<= 1 }
        let rate = sampleRate
        kernelStorage = KernelStorage(render: { DelayKernel.render($0, $1) }, reset: { DelayKernel.reset($0) }) { memory in
            var kernel = DelayKernel(
                sampleRate: rate, channels: channels, lines: memory.take(ringSize * channels), ringSize: ringSize,
                lowPassStates: memory.take(channels))
            kernel.reset()
            return kernel
        }
    }
}
