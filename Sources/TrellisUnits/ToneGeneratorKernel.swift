import TrellisCore

/// ToneGenerator's real-time half: one oscillator, written to the first channel and
/// copied to the others. Thread: audio, or the control side while no program runs it.
struct ToneGeneratorKernel: UnitKernel {
    /// The ramp an amplitude change takes when it asks for none.
    static let defaultRampFrames = 64

    let sampleRate: Double
    var waveform = ToneGenerator.Waveform.sine
    var phase: Double = 0
    var increment: Double
    var amplitude = SmoothedValue(0.5)
    var noiseState: UInt64

    init(sampleRate: Double, frequency: Double, noiseState: UInt64) {
        self.sampleRate = sampleRate
        increment = frequency / sampleRate
        self.noiseState = noiseState
    }

    /// Takes a change; an amplitude change ramps over exactly `frames` frames.
    mutating func set(index: Int, value: Float, frames: Int) {
        switch index {
        case 0: waveform = ToneGenerator.Waveform(rawValue: Int(value)) ?? .sine
        case 1: increment = Double(value) / sampleRate
        case 2: amplitude.set(value, frames: frames)
        default: break
        }
    }

    mutating func setParameter(index: Int, value: Float, rampFrames: Int) {
        set(index: index, value: value, frames: rampFrames > 0 ? rampFrames : Self.defaultRampFrames)
    }

    mutating func reset() { phase = 0 }

    mutating func process(_ context: RenderContext) -> RenderStatus {
        let output = context.outputs[0]
        let first = output[0]
        let frames = context.frameCount
        switch waveform {
        case .sine:
            for frame in 0..<frames {
                first[frame] = amplitude.next() * Float(_sin(2 * Double.pi * phase))
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
            copySamples(from: first, to: output[channel], count: frames)
        }
        return .ok
    }

    @inline(__always)
    private mutating func advancePhase() {
        phase += increment
        // The phase is positive, so truncating is rounding down.
        if phase >= 1 { phase -= Double(Int64(phase)) }
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

    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func render(_ state: UnsafeMutableRawPointer, _ context: UnsafeRawPointer) -> UInt8 {
        renderInSegments(state, context)
    }
}
