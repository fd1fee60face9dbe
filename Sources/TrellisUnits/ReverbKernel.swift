import TrellisCore

/// Reverb's real-time half: a feedback delay network of eight modulated delay lines.
///
/// The input (the channels' mean) passes a pre-delay and four series all-pass diffusers,
/// then enters every line. Each line reads its delayed sample (its length swinging a few
/// samples at its own slow rate, by linear interpolation), loses what the decay time asks
/// for that length through a one-pole low-pass (Jot's absorptive filter: the decay time at
/// 0 Hz, a shorter one at Nyquist that damping sets), and the eight results are mixed by
/// the orthogonal Hadamard matrix and written back. Left and right are two orthogonal
/// rows of the same matrix over the lines, so the tail is decorrelated. Anything smaller
/// than 1e-25 written to a line, a diffuser or a filter's state is written as 0, so a
/// dying tail never turns subnormal. The unit allocates `memory` (lines, diffusers,
/// pre-delay, scratch) and `lines`, and frees them.
/// Thread: audio, or the control side while no program runs it.
struct ReverbKernel: UnitKernel {
    static let lineCount = 8
    /// Line `index`'s length at 48 kHz and size 1: mutually prime, 25 to 53 ms.
    @inline(__always)
    static func lineLength(_ index: Int) -> Double {
        switch index { case 0: 1201; case 1: 1433; case 2: 1601; case 3: 1787; case 4: 1949; case 5: 2129; case 6: 2341; default: 2557 }
    }
    /// Diffuser `index`'s length at 48 kHz and size 1.
    @inline(__always)
    static func diffuserLength(_ index: Int) -> Double {
        switch index { case 0: 227; case 1: 173; case 2: 541; default: 401 }
    }
    static let diffuserGain: Float = 0.6
    /// The largest size factor, for the memory the lines need.
    static let largestScale = 2.8
    static let maximumPreDelay = 0.5
    /// Modulation depth in samples at 48 kHz.
    static let modulationDepth = 6.0

    let sampleRate: Double
    let channels: Int
    let values: ParameterValues
    /// Ring `line` starts at `line * lineRing`; diffuser `d` at `diffuserBase + d * diffuserRing`;
    /// the pre-delay at `preDelayBase`; eight floats of scratch for the matrix at `scratchBase`.
    let memory: UnsafeMutablePointer<Float>
    let lineRing: Int
    let diffuserRing: Int
    let preDelayRing: Int
    /// Per line: length in samples, DC gain, low-pass pole, low-pass state, oscillator.
    let lines: UnsafeMutablePointer<LineState>

    var position = 0
    var diffuserLength: (Int, Int, Int, Int) = (1, 1, 1, 1)
    var preDelayFrames = 0
    var decayTime: Double = 1
    var damping: Double = 0.5
    var scale: Double = 1
    var mix = SmoothedValue(1)
    var outputGain = SmoothedValue(1)
    /// Scales the wet output so its energy does not grow with the decay time.
    var wetScale: Float = 1
    /// Frames left in the current modulation block.
    var blockLeft = 0
    var hasRendered = false

    struct LineState {
        var length: Double = 1
        /// The DC gain a pass, times the matrix's 1/√8 (so the transform needs no scaling).
        var gain: Float = 0
        var pole: Float = 0
        var filtered: Float = 0
        var cosine: Float = 1
        var sine: Float = 0
        /// The oscillator's turn over one block of `modulationBlock` frames.
        var rotateCosine: Float = 1
        var rotateSine: Float = 0
        var depth: Float = 0
        /// This block's delay: whole frames and fraction.
        var whole = 1
        var fraction: Float = 0
    }

    /// Frames between updates of the lines' modulated delays (their slow swing moves a
    /// delay by about a fortieth of a sample in that time).
    static let modulationBlock = 32

    enum Index {
        static let wetDryMix = 0, gain = 1, decayTime = 2, preDelay = 3, damping = 4, size = 5
    }

    var diffuserBase: Int { Self.lineCount * lineRing }
    var preDelayBase: Int { diffuserBase + 4 * diffuserRing }
    var scratchBase: Int { preDelayBase + preDelayRing }
    static func memorySize(lineRing: Int, diffuserRing: Int, preDelayRing: Int) -> Int {
        lineCount * lineRing + 4 * diffuserRing + preDelayRing + lineCount
    }

    /// Ring sizes (powers of two) for `sampleRate`.
    static func rings(sampleRate: Double) -> (line: Int, diffuser: Int, preDelay: Int) {
        func power(_ needed: Double) -> Int { var size = 1; while Double(size) < needed { size <<= 1 }; return size }
        let rate = sampleRate / 48_000
        return (power((lineLength(7) * largestScale + modulationDepth * 2 + 4) * rate),
                power(diffuserLength(2) * largestScale * rate + 2),
                power(maximumPreDelay * sampleRate + 2))
    }

    mutating func reset() {
        memory.update(repeating: 0, count: Self.memorySize(lineRing: lineRing, diffuserRing: diffuserRing, preDelayRing: preDelayRing))
        for line in 0..<Self.lineCount {
            lines[line].filtered = 0
            lines[line].cosine = 1
            lines[line].sine = 0
        }
        position = 0
        blockLeft = 0
    }

    /// The wet output's level against the input's, for noise, at any decay time.
    static var wetLevel: Double { 0.5 }

    /// Lengths, gains and filters for the current decay, damping and size.
    mutating func retune() {
        let rate = sampleRate / 48_000
        var growth = 0.0
        for line in 0..<Self.lineCount {
            let length = Self.lineLength(line) * scale * rate
            // Per-pass gain for 60 dB in `decayTime` at 0 Hz, and at Nyquist in the damped time.
            let dc = exp10Double(-3 * length / (sampleRate * decayTime))
            let nyquistTime = decayTime * (1 - 0.9 * damping)
            let nyquist = exp10Double(-3 * length / (sampleRate * nyquistTime))
            let ratio = nyquist / dc
            lines[line].length = length
            lines[line].gain = Float(dc * 0.35355339059327373)
            lines[line].pole = Float((1 - ratio) / (1 + ratio))
            growth += 1 / max(1e-6, 1 - dc * dc)
        }
        // wetLevel / √(mean growth).
        wetScale = Float(Self.wetLevel * _exp2(-0.5 * _log2(growth / Double(Self.lineCount))))
        func frames(_ index: Int) -> Int { max(1, Int(Self.diffuserLength(index) * scale * rate)) }
        diffuserLength = (frames(0), frames(1), frames(2), frames(3))
    }

    /// Slow sine oscillators, one rate per line (0.3 to 1.0 Hz), turned once a block.
    mutating func startOscillators() {
        for line in 0..<Self.lineCount {
            let hertz = 0.3 + 0.1 * Double(line)
            let step = 2 * Double.pi * hertz * Double(Self.modulationBlock) / sampleRate
            lines[line].rotateCosine = Float(_cos(step))
            lines[line].rotateSine = Float(_sin(step))
            lines[line].depth = Float(Self.modulationDepth * sampleRate / 48_000)
        }
    }

    mutating func setParameter(index: Int, value: Float, rampFrames: Int) {
        let frames = Smoothing.frames(requested: rampFrames, sampleRate: sampleRate, hasRendered: hasRendered)
        switch index {
        case Index.wetDryMix: mix.set(value / 100, frames: frames)
        case Index.gain: outputGain.set(Decibels.gain(value), frames: frames)
        case Index.decayTime: decayTime = Double(value); retune()
        case Index.damping: damping = Double(value) / 100; retune()
        case Index.size: scale = Self.scale(size: value); retune()
        case Index.preDelay: preDelayFrames = min(preDelayRing - 1, Int(Double(value) * sampleRate))
        default: break
        }
    }

    /// The line-length factor for a size in percent: 0.35 at 0, 1 near 50, 2.8 at 100.
    static func scale(size: Float) -> Double {
        0.35 * power(8, Double(size) / 100)
    }

    @inline(__always)
    static func flushed(_ x: Float) -> Float { x.magnitude < 1e-25 ? 0 : x }

    /// One all-pass diffuser step on the ring at `base` of `length` frames.
    @inline(__always)
    func diffuse(_ x: Float, base: Int, length: Int) -> Float {
        let mask = diffuserRing - 1
        let delayed = memory[base + ((position - length) & mask)]
        let v = x + Self.diffuserGain * delayed
        memory[base + (position & mask)] = Self.flushed(v)
        return delayed - Self.diffuserGain * v
    }

    mutating func process(_ context: RenderContext) -> RenderStatus {
        hasRendered = true
        let input = context.inputs[0], output = context.outputs[0]
        let inCount = min(channels, input.channelCount), outCount = min(channels, output.channelCount)
        let lineMask = lineRing - 1, preMask = preDelayRing - 1
        let inverse = 1 / Float(max(1, inCount))
        let tap = memory + scratchBase
        for frame in 0..<context.frameCount {
            var sum: Float = 0
            for channel in 0..<inCount { sum += input[channel][frame] }
            memory[preDelayBase + (position & preMask)] = sum * inverse
            var x = memory[preDelayBase + ((position - preDelayFrames) & preMask)]
            x = diffuse(x, base: diffuserBase, length: diffuserLength.0)
            x = diffuse(x, base: diffuserBase + diffuserRing, length: diffuserLength.1)
            x = diffuse(x, base: diffuserBase + 2 * diffuserRing, length: diffuserLength.2)
            x = diffuse(x, base: diffuserBase + 3 * diffuserRing, length: diffuserLength.3)

            if blockLeft == 0 {
                blockLeft = Self.modulationBlock
                for line in 0..<Self.lineCount { Self.turn(&lines[line]) }
            }
            blockLeft -= 1
            for line in 0..<Self.lineCount {
                let state = lines + line
                let base = line * lineRing
                let a = memory[base + ((position - state.pointee.whole) & lineMask)]
                let b = memory[base + ((position - state.pointee.whole - 1) & lineMask)]
                let read = a + (b - a) * state.pointee.fraction
                let filtered = Self.flushed(state.pointee.gain * (1 - state.pointee.pole) * read + state.pointee.pole * state.pointee.filtered)
                state.pointee.filtered = filtered
                tap[line] = filtered
            }
            // The 8-point Hadamard transform (its 1/√8 is in the lines' gains).
            Self.hadamard8(tap)
            for line in 0..<Self.lineCount {
                memory[line * lineRing + (position & lineMask)] = Self.flushed(tap[line] + x)
            }
            // Two orthogonal rows of the matrix over the lines' (mixed) outputs.
            let left = (tap[0] + tap[1] + tap[2] + tap[3] - tap[4] - tap[5] - tap[6] - tap[7]) * wetScale
            let right = (tap[0] - tap[1] + tap[2] - tap[3] + tap[4] - tap[5] + tap[6] - tap[7]) * wetScale
            let wet = mix.next(), gain = outputGain.next()
            for channel in 0..<outCount {
                let dry = channel < inCount ? input[channel][frame] : input[0][frame]
                output[channel][frame] = (dry * (1 - wet) + (channel == 0 ? left : right) * wet) * gain
            }
            position = (position &+ 1) & Int.max
        }
        return .ok
    }

    @inline(__always)
    static func hadamard8(_ v: UnsafeMutablePointer<Float>) {
        var h = 1
        while h < 8 {
            var i = 0
            while i < 8 {
                for j in i..<(i + h) {
                    let a = v[j], b = v[j + h]
                    v[j] = a + b
                    v[j + h] = a - b
                }
                i += h * 2
            }
            h *= 2
        }
    }

    /// Turns a line's oscillator by one block and sets the block's delay.
    @inline(__always)
    static func turn(_ state: inout LineState) {
        let c = state.cosine * state.rotateCosine - state.sine * state.rotateSine
        let s = state.sine * state.rotateCosine + state.cosine * state.rotateSine
        // Keeps the oscillator on the unit circle (first-order correction).
        let norm = 1.5 - 0.5 * (c * c + s * s)
        state.cosine = c * norm
        state.sine = s * norm
        let delay = Float(state.length) + state.depth * state.sine
        state.whole = Int(delay)
        state.fraction = delay - Float(state.whole)
    }

    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func render(_ state: UnsafeMutableRawPointer, _ context: UnsafeRawPointer) -> UInt8 {
        renderInSegments(state, context)
    }
}
