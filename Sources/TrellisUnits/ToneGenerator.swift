import Glibc
import TrellisCore

/// A test-signal generator: sine, band-limited square and saw, or white noise, at a
/// frequency and linear amplitude, on every channel of its one output bus.
public final class ToneGenerator: AudioUnitBase, @unchecked Sendable {
    public enum Waveform: Int, CaseIterable, Sendable {
        case sine, square, saw, noise
        public var name: String { ["sine", "square", "saw", "noise"][rawValue] }
    }

    public static let description = ComponentDescription(
        type: ComponentType.generator, subtype: BuiltInSubtype.toneGenerator, manufacturer: Manufacturer.trellis)

    public enum Parameter {
        public static let waveform = ParameterAddress(0)
        public static let frequency = ParameterAddress(1)
        public static let amplitude = ParameterAddress(2)
    }

    private var waveform = Waveform.sine
    private var phase: Double = 0
    private var increment: Double = 0
    private var frequency: Double = 440
    private var amplitude = SmoothedValue(0.5)
    private var noiseState: UInt64 = 0x9E37_79B9_7F4A_7C15

    public init(channelCount: Int = 2) {
        super.init(description: Self.description, shortName: "tone", inputs: [], outputs: [channelCount], fixedScopes: [.input, .output])
        declareParameter(ParameterInfo(
            address: Parameter.waveform, identifier: "waveform", name: "Waveform", unit: .indexed,
            range: 0...3, defaultValue: 0, flags: [.readable, .writable, .enumeration, .integer],
            valueStrings: Waveform.allCases.map(\.name)))
        declareParameter(ParameterInfo(
            address: Parameter.frequency, identifier: "freq", name: "Frequency", unit: .hertz,
            range: 0.01...100_000, defaultValue: 440, flags: [.readable, .writable, .logarithmic]))
        declareParameter(ParameterInfo(
            address: Parameter.amplitude, identifier: "amp", name: "Amplitude", unit: .linearGain,
            range: 0...1, defaultValue: 0.5, flags: [.readable, .writable, .ramped]))
    }

    public override func allocateRenderResources() throws(AudioUnitError) {
        phase = 0
        increment = frequency / sampleRate
    }

    public override func reset() {
        phase = 0
    }

    public override func parameterDidChange(index: Int, value: Float, rampFrames: Int) {
        switch index {
        case 0: waveform = Waveform(rawValue: Int(value)) ?? .sine
        case 1:
            frequency = Double(value)
            increment = frequency / sampleRate
        case 2: amplitude.set(value, frames: isInitialized ? (rampFrames > 0 ? rampFrames : 64) : 0)
        default: break
        }
    }

    public override func render(_ context: RenderContext) -> RenderStatus {
        let output = context.outputs[0]
        let first = output[0]
        let frames = context.frameCount
        switch waveform {
        case .sine:
            for frame in 0..<frames {
                first[frame] = amplitude.next() * Float(sin(2 * Double.pi * phase))
                advancePhase()
            }
        case .square:
            for frame in 0..<frames {
                var value: Double = phase < 0.5 ? 1 : -1
                value += polyBLEP(phase)
                value -= polyBLEP(phase < 0.5 ? phase + 0.5 : phase - 0.5)
                first[frame] = amplitude.next() * Float(value)
                advancePhase()
            }
        case .saw:
            for frame in 0..<frames {
                let value = 2 * phase - 1 - polyBLEP(phase)
                first[frame] = amplitude.next() * Float(value)
                advancePhase()
            }
        case .noise:
            for frame in 0..<frames {
                // xorshift64*: fast, allocation-free, uniform in [-1, 1).
                noiseState ^= noiseState >> 12
                noiseState ^= noiseState << 25
                noiseState ^= noiseState >> 27
                let bits = (noiseState &* 0x2545_F491_4F6C_DD1D) >> 40
                first[frame] = amplitude.next() * (Float(bits) / Float(1 << 23) - 1)
            }
        }
        for channel in 1..<max(1, output.channelCount) {
            output[channel].update(from: first, count: frames)
        }
        return .ok
    }

    @inline(__always)
    private func advancePhase() {
        phase += increment
        if phase >= 1 { phase -= phase.rounded(.down) }
    }

    /// The polynomial band-limited step correction around a discontinuity at phase 0.
    @inline(__always)
    private func polyBLEP(_ t: Double) -> Double {
        let dt = increment
        guard dt > 0 else { return 0 }
        if t < dt {
            let x = t / dt
            return x + x - x * x - 1
        }
        if t > 1 - dt {
            let x = (t - 1) / dt
            return x * x + x + x + 1
        }
        return 0
    }
}
