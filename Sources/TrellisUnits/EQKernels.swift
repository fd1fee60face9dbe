import TrellisCore

/// The real-time halves of the parametric, graphic and iPod EQs: a `BiquadEQEngine`
/// whose memory is in the kernel storage's arena, and the little state each adds. Thread:
/// audio, or the control side while no program runs the kernel.

/// ParametricEQ's kernel: parameter 0 is the output gain, then five per band (type,
/// frequency, gain, Q, bypass).
struct ParametricEQKernel: UnitKernel {
    var engine: BiquadEQEngine
    var outputGain = SmoothedValue(1)

    mutating func setParameter(index: Int, value: Float, rampFrames: Int) {
        if index == 0 {
            let frames = Smoothing.frames(requested: rampFrames, sampleRate: engine.sampleRate, hasRendered: engine.hasRendered)
            outputGain.set(Decibels.gain(value), frames: frames)
            return
        }
        let band = (index - 1) / 5
        switch (index - 1) % 5 {
        case 0: engine.setType(band: band, FilterType(rawValue: roundedToInt(value)) ?? .peaking)
        case 1: engine.setFrequency(band: band, value, rampFrames: rampFrames)
        case 2: engine.setGain(band: band, value, rampFrames: rampFrames)
        case 3: engine.setQ(band: band, value, rampFrames: rampFrames)
        default: engine.setBypass(band: band, value >= 0.5, rampFrames: rampFrames)
        }
    }

    mutating func process(_ context: RenderContext) -> RenderStatus {
        let output = context.outputs[0]
        engine.process(input: context.inputs[0], output: output, frameCount: context.frameCount)
        let start = outputGain.current
        MixKernels.applyGain(output, from: start, to: outputGain.advance(by: context.frameCount), count: context.frameCount)
        return .ok
    }

    mutating func reset() { engine.reset() }

    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func render(_ state: UnsafeMutableRawPointer, _ context: UnsafeRawPointer) -> UInt8 {
        renderInSegments(state, context)
    }
}

/// GraphicEQ's kernel: parameter 0 picks 10 or 31 bands, 1...31 are the sliders.
struct GraphicEQKernel: UnitKernel {
    var engine: BiquadEQEngine
    var isThirdOctave: Bool
    /// The slider values as the events delivered them (31).
    let sliders: UnsafeMutablePointer<Float>
    /// Band centres: 31 for the 10-band layout (octaves, then the unused bands), then 31
    /// third-octave ones.
    let centres: UnsafePointer<Float>
    let octaveQ: Float
    let thirdOctaveQ: Float

    /// Places every band for the current mode.
    mutating func layBands(rampFrames: Int) {
        let layout = isThirdOctave ? centres + 31 : centres
        let q = isThirdOctave ? thirdOctaveQ : octaveQ
        for band in 0..<31 {
            engine.setFrequency(band: band, layout[band], rampFrames: rampFrames)
            engine.setQ(band: band, q, rampFrames: rampFrames)
            engine.setGain(band: band, isThirdOctave || band < 10 ? sliders[band] : 0, rampFrames: rampFrames)
        }
    }

    mutating func setParameter(index: Int, value: Float, rampFrames: Int) {
        if index == 0 {
            let thirdOctave = value >= 0.5
            guard thirdOctave != isThirdOctave else { return }
            isThirdOctave = thirdOctave
            layBands(rampFrames: rampFrames)
            return
        }
        let band = index - 1
        sliders[band] = value
        guard isThirdOctave || band < 10 else { return }
        engine.setGain(band: band, value, rampFrames: rampFrames)
    }

    mutating func process(_ context: RenderContext) -> RenderStatus {
        engine.process(input: context.inputs[0], output: context.outputs[0], frameCount: context.frameCount)
        return .ok
    }

    mutating func reset() { engine.reset() }

    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func render(_ state: UnsafeMutableRawPointer, _ context: UnsafeRawPointer) -> UInt8 {
        renderInSegments(state, context)
    }
}

/// IPodEQ's kernel: parameter 0 picks a curve, whose ten gains the bands glide to.
struct IPodEQKernel: UnitKernel {
    var engine: BiquadEQEngine
    /// The curves' gains, [curve][band]; owned by the unit.
    let gainTable: UnsafePointer<Float>
    let curveCount: Int

    mutating func setParameter(index: Int, value: Float, rampFrames: Int) {
        let curve = min(curveCount - 1, max(0, roundedToInt(value)))
        for band in 0..<10 { engine.setGain(band: band, gainTable[curve * 10 + band], rampFrames: rampFrames) }
    }

    mutating func process(_ context: RenderContext) -> RenderStatus {
        engine.process(input: context.inputs[0], output: context.outputs[0], frameCount: context.frameCount)
        return .ok
    }

    mutating func reset() { engine.reset() }

    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func render(_ state: UnsafeMutableRawPointer, _ context: UnsafeRawPointer) -> UInt8 {
        renderInSegments(state, context)
    }
}
