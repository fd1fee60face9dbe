import TrellisCore

/// One input of the multichannel mixer, as its kernel keeps it.
struct MixerInput {
    var channels = 1
    var volume = SmoothedValue(1)
    var pan = SmoothedValue(0)
    /// 1 while enabled and not muted; ramps so a mute never clicks.
    var audible = SmoothedValue(1)
    var isEnabled = true
    var isMuted = false
    var gainLeft: Float = 0
    var gainRight: Float = 0
}

/// MultichannelMixer's real-time half. The input table is in the kernel storage's arena;
/// meters go to the unit's values. Thread: audio, or the control side while no program
/// runs it.
struct MultichannelMixerKernel: UnitKernel {
    /// Global parameters (volume, metering, output peak and average), then per input.
    static let globalCount = 4
    static let perInput = 6

    let sampleRate: Double
    let inputs: UnsafeMutablePointer<MixerInput>
    let inputCount: Int
    let values: ParameterValues
    var outputVolume = SmoothedValue(1)
    var metering = true
    var hasRendered = false

    mutating func setParameter(index: Int, value: Float, rampFrames: Int) {
        let frames = Smoothing.frames(requested: rampFrames, sampleRate: sampleRate, hasRendered: hasRendered)
        switch index {
        case 0: outputVolume.set(value, frames: frames)
        case 1: metering = value >= 0.5
        case 2, 3: break
        default:
            let element = (index - Self.globalCount) / Self.perInput
            guard element < inputCount else { return }
            let input = inputs + element
            switch (index - Self.globalCount) % Self.perInput {
            case 0: input.pointee.volume.set(value, frames: frames)
            case 1: input.pointee.isEnabled = value >= 0.5
            case 2: input.pointee.pan.set(value, frames: frames)
            case 3: input.pointee.isMuted = value >= 0.5
            default: return
            }
            let audible: Float = input.pointee.isEnabled && !input.pointee.isMuted ? 1 : 0
            if audible != input.pointee.audible.target { input.pointee.audible.set(audible, frames: frames) }
        }
        if !hasRendered {
            // Before the first slice every gain lands at once.
            let volume = outputVolume.current
            for element in 0..<inputCount {
                (inputs[element].gainLeft, inputs[element].gainRight) = gains(of: inputs[element], outputVolume: volume)
            }
        }
    }

    @inline(__always)
    private func gains(of input: MixerInput, outputVolume: Float) -> (Float, Float) {
        let level = input.volume.current * input.audible.current * outputVolume
        let (left, right) = input.channels == 1 ? PanLaw.mono(input.pan.current) : PanLaw.stereo(input.pan.current)
        return (left * level, right * level)
    }

    mutating func process(_ context: RenderContext) -> RenderStatus {
        hasRendered = true
        let frames = context.frameCount
        let output = context.outputs[0]
        let left = output[0], right = output[1]
        left.update(repeating: 0, count: frames)
        right.update(repeating: 0, count: frames)
        let volume = outputVolume.advance(by: frames)
        let inverse = 1 / Float(max(1, frames))
        // Unconnected inputs all read the graph's one silent buffer: scan it once.
        var knownSilent: UnsafeMutablePointer<Float>?
        for element in 0..<min(inputCount, context.inputs.count) {
            let input = inputs + element
            let buffers = context.inputs[element]
            if metering {
                let level = BusLevel.measure(buffers, frameCount: frames)
                let base = Self.globalCount + element * Self.perInput
                values[base + 4] = level.peakDecibels
                values[base + 5] = level.averageDecibels
            }
            _ = input.pointee.volume.advance(by: frames)
            _ = input.pointee.pan.advance(by: frames)
            _ = input.pointee.audible.advance(by: frames)
            let startLeft = input.pointee.gainLeft, startRight = input.pointee.gainRight
            let (endLeft, endRight) = gains(of: input.pointee, outputVolume: volume)
            input.pointee.gainLeft = endLeft
            input.pointee.gainRight = endRight
            var silent = true
            for channel in 0..<buffers.channelCount where buffers[channel] != knownSilent {
                if !MixKernels.isSilent(buffers[channel], count: frames) {
                    silent = false
                    break
                }
                knownSilent = buffers[channel]
            }
            if silent { continue }
            if startLeft == endLeft && startRight == endRight {
                if endLeft == 0 && endRight == 0 { continue }
                if buffers.channelCount == 1 {
                    MixKernels.addMono(buffers[0], left: left, right: right, gains: (endLeft, endRight), count: frames)
                } else {
                    MixKernels.add(buffers[0], to: left, gain: endLeft, count: frames)
                    MixKernels.add(buffers[1], to: right, gain: endRight, count: frames)
                }
            } else {
                let stepLeft = (endLeft - startLeft) * inverse, stepRight = (endRight - startRight) * inverse
                MixKernels.addRamped(buffers[0], to: left, start: startLeft, step: stepLeft, count: frames)
                MixKernels.addRamped(buffers[buffers.channelCount - 1], to: right, start: startRight, step: stepRight, count: frames)
            }
        }
        if metering {
            let level = BusLevel.measure(output, frameCount: frames)
            values[2] = level.peakDecibels
            values[3] = level.averageDecibels
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
