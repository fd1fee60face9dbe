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
/// dying tail never turns subnormal.
///
/// The work goes in runs of up to `longestRun` frames, none longer than the shortest
/// delay, so a run reads only what earlier runs wrote: the input through the pre-delay and
/// the diffusers for the whole run, then the lines four frames at a time (`mixLines`),
/// then the output. `memory` (lines, diffusers, pre-delay, scratch) and `lines` come from
/// the kernel storage's arena.
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
    /// Line `line`'s ring at `lineStart(line)`; diffuser `d` at `diffuserBase + d * diffuserRing`;
    /// the pre-delay at `preDelayBase`; a run's scratch at `scratchBase` (`diffused` and after).
    let memory: UnsafeMutablePointer<Float>
    let lineRing: Int
    let diffuserRing: Int
    let preDelayRing: Int
    /// Per line: DC gain, low-pass pole, low-pass state.
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
    /// The lines' slow sine oscillators, a lane a line: their state, their turn over one
    /// block of `modulationBlock` frames, and the delays they swing (length ± depth).
    var cosine = SIMD8<Float>(repeating: 1), sine = SIMD8<Float>()
    var turnCosine = SIMD8<Float>(repeating: 1), turnSine = SIMD8<Float>()
    var lengths = SIMD8<Float>(repeating: 1), depths = SIMD8<Float>()
    /// This block's delays, a lane a line: whole frames and fraction.
    var wholes = SIMD8<Float>(repeating: 1), fractions = SIMD8<Float>()
    /// Frames left in the current modulation block.
    var blockLeft = 0
    var hasRendered = false

    struct LineState {
        /// The DC gain a pass, times the matrix's 1/√8 (so the transform needs no scaling).
        var gain: Float = 0
        var pole: Float = 0
        var filtered: Float = 0
    }

    /// Frames between updates of the lines' modulated delays (their slow swing moves a
    /// delay by about a fortieth of a sample in that time).
    static let modulationBlock = 32

    enum Index {
        static let wetDryMix = 0, gain = 1, decayTime = 2, preDelay = 3, damping = 4, size = 5
    }

    /// A line's ring has a guard on each side, so a run reads and writes it in one piece:
    /// before it a copy of its last sample, after it `guardSize` more, copies of its first.
    static var guardSize: Int { longestRun + 4 }
    static func lineStride(lineRing: Int) -> Int { 1 + lineRing + guardSize }
    var diffuserBase: Int { Self.lineCount * Self.lineStride(lineRing: lineRing) }
    var preDelayBase: Int { diffuserBase + 4 * diffuserRing }
    var scratchBase: Int { preDelayBase + preDelayRing }
    static func memorySize(lineRing: Int, diffuserRing: Int, preDelayRing: Int) -> Int {
        lineCount * lineStride(lineRing: lineRing) + 4 * diffuserRing + preDelayRing + scratchSize
    }

    /// Sample 0 of line `line`'s ring.
    @inline(__always)
    func lineStart(_ line: Int) -> UnsafeMutablePointer<Float> {
        memory + line * Self.lineStride(lineRing: lineRing) + 1
    }

    /// Ring sizes (powers of two) for `sampleRate`: the longest delay and a run more, so a
    /// run never writes where it has yet to read.
    static func rings(sampleRate: Double) -> (line: Int, diffuser: Int, preDelay: Int) {
        func power(_ needed: Double) -> Int { var size = 1; while Double(size) < needed { size <<= 1 }; return size }
        let rate = sampleRate / 48_000, run = Double(longestRun + 4)
        return (power((lineLength(7) * largestScale + modulationDepth * 2 + 4) * rate + run),
                power(diffuserLength(2) * largestScale * rate + 2),
                power(maximumPreDelay * sampleRate + 2 + run))
    }

    mutating func reset() {
        memory.update(repeating: 0, count: Self.memorySize(lineRing: lineRing, diffuserRing: diffuserRing, preDelayRing: preDelayRing))
        for line in 0..<Self.lineCount { lines[line].filtered = 0 }
        cosine = SIMD8(repeating: 1)
        sine = SIMD8()
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
            lengths[line] = Float(length)
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
            turnCosine[line] = Float(_cos(step))
            turnSine[line] = Float(_sin(step))
            depths[line] = Float(Self.modulationDepth * sampleRate / 48_000)
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

    @inline(__always)
    static func flushed(_ x: SIMD4<Float>) -> SIMD4<Float> {
        let magnitude = unsafeBitCast(unsafeBitCast(x, to: SIMD4<UInt32>.self) & 0x7FFF_FFFF, to: SIMD4<Float>.self)
        return x.replacing(with: 0, where: magnitude .< 1e-25)
    }

    mutating func process(_ context: RenderContext) -> RenderStatus {
        hasRendered = true
        var done = 0
        while done < context.frameCount {
            // A run reads only what earlier runs wrote: it is no longer than the shortest delay.
            let count = min(context.frameCount - done, min(Self.longestRun, shortestDelay))
            takeInput(context, from: done, count: count)
            for index in 0..<4 { diffuse(index, count: count) }
            mixLines(count: count)
            writeOutput(context, from: done, count: count)
            position = (position &+ count) & Int.max
            done += count
        }
        return .ok
    }

    /// The most frames the stages take at a time (the fewer the runs, the less each one's
    /// setting up costs).
    static var longestRun: Int { 4 * modulationBlock }

    /// The scratch after the rings, for one run (and three frames more): the diffused input,
    /// the wet left and right, the dry/wet mix and the output gain.
    static var scratchRow: Int { longestRun + 4 }
    static var scratchSize: Int { 5 * scratchRow }
    var diffused: UnsafeMutablePointer<Float> { memory + scratchBase }
    var wetLeft: UnsafeMutablePointer<Float> { diffused + Self.scratchRow }
    var wetRight: UnsafeMutablePointer<Float> { wetLeft + Self.scratchRow }
    var mixes: UnsafeMutablePointer<Float> { wetRight + Self.scratchRow }
    var gains: UnsafeMutablePointer<Float> { mixes + Self.scratchRow }

    /// The fewest frames from a ring's write to its read: the diffusers', the lines' at the
    /// bottom of their swing.
    var shortestDelay: Int {
        let diffusers = min(min(diffuserLength.0, diffuserLength.1), min(diffuserLength.2, diffuserLength.3))
        return max(1, min(diffusers, Int((lengths - depths).min()) - 1))
    }

    /// The frames from ring index `a` (and `b`), at most `count`, before either reaches the
    /// end of a ring of `size`.
    @inline(__always)
    static func span(_ count: Int, _ a: Int, _ b: Int, size: Int) -> Int {
        min(count, size - max(a, b))
    }

    /// The channels' mean into the pre-delay, and the pre-delayed input into `diffused`.
    func takeInput(_ context: RenderContext, from start: Int, count: Int) {
        let input = context.inputs[0], x = diffused
        let inCount = min(channels, input.channelCount)
        let inverse = 1 / Float(max(1, inCount))
        x.update(repeating: 0, count: count)
        for channel in 0..<inCount {
            let samples = input[channel] + start
            for k in 0..<count { x[k] += samples[k] }
        }
        for k in 0..<count { x[k] *= inverse }
        let ring = memory + preDelayBase, mask = preDelayRing - 1
        var k = 0
        while k < count {
            let write = (position + k) & mask
            let frames = Self.span(count - k, write, write, size: preDelayRing)
            copySamples(from: x + k, to: ring + write, count: frames)
            k += frames
        }
        k = 0
        while k < count {
            let read = (position + k - preDelayFrames) & mask
            let frames = Self.span(count - k, read, read, size: preDelayRing)
            copySamples(from: ring + read, to: x + k, count: frames)
            k += frames
        }
    }

    /// All-pass diffuser `index` over `diffused`.
    func diffuse(_ index: Int, count: Int) {
        let length: Int
        switch index { case 0: length = diffuserLength.0; case 1: length = diffuserLength.1; case 2: length = diffuserLength.2; default: length = diffuserLength.3 }
        let ring = memory + diffuserBase + index * diffuserRing, mask = diffuserRing - 1, g = Self.diffuserGain
        var k = 0
        while k < count {
            let write = (position + k) & mask, read = (position + k - length) & mask
            let frames = Self.span(count - k, write, read, size: diffuserRing)
            let x = diffused + k, into = ring + write, from = ring + read
            for j in 0..<frames {
                let delayed = from[j]
                let v = x[j] + g * delayed
                into[j] = Self.flushed(v)
                x[j] = delayed - g * v
            }
            k += frames
        }
    }

    /// Makes a line's guards agree with its ring after `count` frames were written from
    /// `index` on, which may have run past the ring's end into the guard after it.
    static func mirror(_ ring: UnsafeMutablePointer<Float>, size: Int, index: Int, count: Int) {
        let end = index + count
        if end > size { copySamples(from: ring + size, to: ring, count: end - size) }
        if index < guardSize { copySamples(from: ring + index, to: ring + size + index, count: min(end, guardSize) - index) }
        if index < size && end >= size { ring[-1] = ring[size - 1] }
    }

    /// One frame of four lines: their delayed samples `a`, interpolated toward the ones a
    /// frame older by `fraction`, through their one-pole low-passes, whose last outputs
    /// were `previous`.
    @inline(__always)
    static func filter(_ a: SIMD4<Float>, _ older: SIMD4<Float>, _ fraction: SIMD4<Float>,
                       _ feed: SIMD4<Float>, _ pole: SIMD4<Float>, _ previous: SIMD4<Float>) -> SIMD4<Float> {
        let read = a + (older - a) * fraction
        return flushed(feed * read + pole * previous)
    }

    /// Rows `a`, `b`, `c`, `d` as columns.
    @inline(__always)
    static func transpose(_ a: SIMD4<Float>, _ b: SIMD4<Float>, _ c: SIMD4<Float>, _ d: SIMD4<Float>)
        -> (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) {
        (SIMD4(a[0], b[0], c[0], d[0]), SIMD4(a[1], b[1], c[1], d[1]), SIMD4(a[2], b[2], c[2], d[2]), SIMD4(a[3], b[3], c[3], d[3]))
    }

    /// The lines over a run, four frames at a time: their reads, filters, matrix, wet
    /// outputs and writes. A line's four frames (a row) turn into columns (a frame's lines,
    /// two vectors for eight) for the filters, which run frame by frame, and back into rows
    /// for the matrix, which then adds and subtracts whole rows. Where a modulation block
    /// ends on a frame that is not a multiple of four, the last four compute up to three
    /// frames more, which the next four compute again before anything reads them.
    mutating func mixLines(count: Int) {
        let x = diffused, left = wetLeft, right = wetRight, scale = wetScale, mask = lineRing - 1
        var feedLow = SIMD4<Float>(), feedHigh = SIMD4<Float>(), poleLow = SIMD4<Float>(), poleHigh = SIMD4<Float>()
        var low = SIMD4<Float>(), high = SIMD4<Float>()
        for line in 0..<4 {
            let a = lines[line], b = lines[line + 4]
            feedLow[line] = a.gain * (1 - a.pole)
            feedHigh[line] = b.gain * (1 - b.pole)
            poleLow[line] = a.pole
            poleHigh[line] = b.pole
            low[line] = a.filtered
            high[line] = b.filtered
        }
        let index = position & mask
        let write = (lineStart(0) + index, lineStart(1) + index, lineStart(2) + index, lineStart(3) + index,
                     lineStart(4) + index, lineStart(5) + index, lineStart(6) + index, lineStart(7) + index)
        var start = 0
        while start < count {
            if blockLeft == 0 {
                blockLeft = Self.modulationBlock
                turn()
            }
            let end = min(count, start + blockLeft)
            blockLeft -= end - start
            let at = position + start
            // Where frame k of the run reads each line.
            let whole = wholes
            let read = (lineStart(0) + ((at - Int(whole[0])) & mask) - start, lineStart(1) + ((at - Int(whole[1])) & mask) - start,
                        lineStart(2) + ((at - Int(whole[2])) & mask) - start, lineStart(3) + ((at - Int(whole[3])) & mask) - start,
                        lineStart(4) + ((at - Int(whole[4])) & mask) - start, lineStart(5) + ((at - Int(whole[5])) & mask) - start,
                        lineStart(6) + ((at - Int(whole[6])) & mask) - start, lineStart(7) + ((at - Int(whole[7])) & mask) - start)
            let fractionLow = fractions.lowHalf, fractionHigh = fractions.highHalf
            // The sample one older than each frame's is the frame before's.
            var olderLow = SIMD4(read.0[start - 1], read.1[start - 1], read.2[start - 1], read.3[start - 1])
            var olderHigh = SIMD4(read.4[start - 1], read.5[start - 1], read.6[start - 1], read.7[start - 1])
            var k = start
            while k < end {
                let (a0, a1, a2, a3) = Self.transpose(SIMDSamples.load(read.0 + k), SIMDSamples.load(read.1 + k), SIMDSamples.load(read.2 + k), SIMDSamples.load(read.3 + k))
                let (b0, b1, b2, b3) = Self.transpose(SIMDSamples.load(read.4 + k), SIMDSamples.load(read.5 + k), SIMDSamples.load(read.6 + k), SIMDSamples.load(read.7 + k))
                let low0 = Self.filter(a0, olderLow, fractionLow, feedLow, poleLow, low)
                let high0 = Self.filter(b0, olderHigh, fractionHigh, feedHigh, poleHigh, high)
                let low1 = Self.filter(a1, a0, fractionLow, feedLow, poleLow, low0)
                let high1 = Self.filter(b1, b0, fractionHigh, feedHigh, poleHigh, high0)
                let low2 = Self.filter(a2, a1, fractionLow, feedLow, poleLow, low1)
                let high2 = Self.filter(b2, b1, fractionHigh, feedHigh, poleHigh, high1)
                let low3 = Self.filter(a3, a2, fractionLow, feedLow, poleLow, low2)
                let high3 = Self.filter(b3, b2, fractionHigh, feedHigh, poleHigh, high2)
                (olderLow, olderHigh) = (a3, b3)
                // The filters' state after the block's last frame.
                switch end - k {
                case 1: (low, high) = (low0, high0)
                case 2: (low, high) = (low1, high1)
                case 3: (low, high) = (low2, high2)
                default: (low, high) = (low3, high3)
                }
                var (t0, t1, t2, t3) = Self.transpose(low0, low1, low2, low3)
                var (t4, t5, t6, t7) = Self.transpose(high0, high1, high2, high3)
                // The 8-point Hadamard transform (its 1/√8 is in the lines' gains): lines 1, 2, 4 apart.
                (t0, t1, t2, t3, t4, t5, t6, t7) = (t0 + t1, t0 - t1, t2 + t3, t2 - t3, t4 + t5, t4 - t5, t6 + t7, t6 - t7)
                (t0, t1, t2, t3, t4, t5, t6, t7) = (t0 + t2, t1 + t3, t0 - t2, t1 - t3, t4 + t6, t5 + t7, t4 - t6, t5 - t7)
                (t0, t1, t2, t3, t4, t5, t6, t7) = (t0 + t4, t1 + t5, t2 + t6, t3 + t7, t0 - t4, t1 - t5, t2 - t6, t3 - t7)
                // Two orthogonal rows of the matrix over the lines' (mixed) outputs.
                var sum = t0 + t1 + t2 + t3
                sum = sum - t4 - t5 - t6 - t7
                SIMDSamples.store(sum * scale, to: left + k)
                sum = t0 - t1 + t2 - t3
                sum = sum + t4 - t5 + t6 - t7
                SIMDSamples.store(sum * scale, to: right + k)
                let input = SIMDSamples.load(x + k)
                SIMDSamples.store(Self.flushed(t0 + input), to: write.0 + k)
                SIMDSamples.store(Self.flushed(t1 + input), to: write.1 + k)
                SIMDSamples.store(Self.flushed(t2 + input), to: write.2 + k)
                SIMDSamples.store(Self.flushed(t3 + input), to: write.3 + k)
                SIMDSamples.store(Self.flushed(t4 + input), to: write.4 + k)
                SIMDSamples.store(Self.flushed(t5 + input), to: write.5 + k)
                SIMDSamples.store(Self.flushed(t6 + input), to: write.6 + k)
                SIMDSamples.store(Self.flushed(t7 + input), to: write.7 + k)
                k += 4
            }
            start = end
        }
        for line in 0..<4 {
            lines[line].filtered = low[line]
            lines[line + 4].filtered = high[line]
        }
        for line in 0..<Self.lineCount { Self.mirror(lineStart(line), size: lineRing, index: index, count: count) }
    }

    /// The dry input and the wet outputs, mixed, into the output.
    mutating func writeOutput(_ context: RenderContext, from start: Int, count: Int) {
        let input = context.inputs[0], output = context.outputs[0]
        let inCount = min(channels, input.channelCount), outCount = min(channels, output.channelCount)
        let ramping = mix.isRamping || outputGain.isRamping, mixes = mixes, gains = gains
        if ramping {
            var mix = mix, gain = outputGain
            for k in 0..<count {
                mixes[k] = mix.next()
                gains[k] = gain.next()
            }
            self.mix = mix
            outputGain = gain
        }
        let wetShare = mix.current, gain = outputGain.current
        for channel in 0..<outCount {
            let dry = (channel < inCount ? input[channel] : input[0]) + start
            let wet = channel == 0 ? wetLeft : wetRight, out = output[channel] + start
            if ramping {
                for k in 0..<count { out[k] = (dry[k] * (1 - mixes[k]) + wet[k] * mixes[k]) * gains[k] }
            } else {
                for k in 0..<count { out[k] = (dry[k] * (1 - wetShare) + wet[k] * wetShare) * gain }
            }
        }
    }

    /// Turns the oscillators by one block and sets the block's delays.
    mutating func turn() {
        let c = cosine * turnCosine - sine * turnSine
        let s = sine * turnCosine + cosine * turnSine
        // Keeps the oscillators on the unit circle (first-order correction).
        let norm = 1.5 - 0.5 * (c * c + s * s)
        cosine = c * norm
        sine = s * norm
        let delays = lengths + depths * sine
        // Whole frames: adding 2^23 rounds to them; where that rounded up, one less.
        let magic: Float = 8_388_608
        let rounded = delays + magic - magic
        wholes = rounded.replacing(with: rounded - 1, where: rounded .> delays)
        fractions = delays - wholes
    }

    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func render(_ state: UnsafeMutableRawPointer, _ context: UnsafeRawPointer) -> UInt8 {
        renderInSegments(state, context)
    }
}
