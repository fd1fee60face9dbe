import TrellisCore

/// The DSP shared by the parametric, graphic and iPod EQs: up to `bandCapacity` biquad
/// sections in series over any number of channels.
///
/// Frequency (on a log scale), gain and Q are smoothed and the coefficients recomputed
/// every 32 frames while they move; bypass and filter-type changes fade the band out and
/// back in. A band whose gain is 0 dB on a gain-shaped type is skipped, so a flat EQ is
/// bit-transparent. Made and freed on the control thread; everything else is audio-thread
/// work (or control-side while no program runs the kernel that holds it).
struct BiquadEQEngine {
    struct Band {
        var type = FilterType.peaking
        var pendingType = FilterType.peaking
        var logFrequency = SmoothedValue(_log2(Float(1000)))
        var gain = SmoothedValue(0)
        var q = SmoothedValue(Float(0.5).squareRoot())
        var wet = SmoothedValue(1)
        var isBypassed = false
        var coefficients = BiquadCoefficients.identity
        var needsDesign = true
        var isAtRest = true

        var isMoving: Bool {
            logFrequency.isRamping || gain.isRamping || q.isRamping || wet.isRamping || pendingType != type
        }
    }

    private enum Mode { case skip, plain, blended(start: Double, step: Double) }

    static let controlFrames = 32

    let bandCapacity: Int
    let channelCount: Int
    let sampleRate: Double
    /// How many bands, from the first, take part.
    var bandCount: Int
    var hasRendered = false
    let bands: UnsafeMutablePointer<Band>
    /// (x1, x2, y1, y2) per channel, laid out [channel pair][band][8] with the pair interleaved.
    private let states: UnsafeMutablePointer<Double>
    private let plainBands: UnsafeMutablePointer<Int>
    /// While nothing moves, every slice runs the same bands: `plainBands`' count, kept
    /// here so a slice skips the per-band bookkeeping; -1 after any setting changes.
    private let settledPlainCount: UnsafeMutablePointer<Int>
    private let blends: UnsafeMutablePointer<(band: Int, start: Double, step: Double)>

    /// Its bands and filter states in `memory` (its kernel's). Thread: control.
    init(bandCapacity: Int, channelCount: Int, sampleRate: Double, in memory: Arena) {
        self.bandCapacity = bandCapacity
        self.channelCount = channelCount
        self.sampleRate = sampleRate
        bandCount = bandCapacity
        bands = memory.take(bandCapacity, repeating: Band())
        states = memory.take((channelCount + 1) / 2 * bandCapacity * 8, repeating: 0)
        plainBands = memory.take(bandCapacity)
        settledPlainCount = memory.take(1, repeating: -1)
        blends = memory.take(bandCapacity)
    }

    @inline(__always)
    private func state(band: Int, pair: Int) -> UnsafeMutablePointer<Double> {
        states + (pair * bandCapacity + band) * 8
    }

    private func rampFrames(_ requested: Int) -> Int {
        Smoothing.frames(requested: requested, sampleRate: sampleRate, hasRendered: hasRendered)
    }

    // MARK: - Settings (audio thread while rendering, else control)

    func setFrequency(band: Int, _ hertz: Float, rampFrames requested: Int) {
        bands[band].logFrequency.set(_log2(max(1, hertz)), frames: rampFrames(requested))
        bands[band].needsDesign = true
        settledPlainCount.pointee = -1
    }

    func setGain(band: Int, _ decibels: Float, rampFrames requested: Int) {
        bands[band].gain.set(decibels, frames: rampFrames(requested))
        bands[band].needsDesign = true
        settledPlainCount.pointee = -1
    }

    func setQ(band: Int, _ q: Float, rampFrames requested: Int) {
        bands[band].q.set(q, frames: rampFrames(requested))
        bands[band].needsDesign = true
        settledPlainCount.pointee = -1
    }

    func setType(band: Int, _ type: FilterType) {
        bands[band].pendingType = type
        settledPlainCount.pointee = -1
        if !hasRendered {
            bands[band].type = type
            bands[band].needsDesign = true
        }
    }

    func setBypass(band: Int, _ bypassed: Bool, rampFrames requested: Int) {
        bands[band].isBypassed = bypassed
        bands[band].wet.set(bypassed ? 0 : 1, frames: rampFrames(requested))
        settledPlainCount.pointee = -1
    }

    /// Clears the filter memories. Thread: audio while rendering, else control.
    func reset() {
        states.update(repeating: 0, count: max(1, (channelCount + 1) / 2 * bandCapacity * 8))
    }

    // MARK: - Rendering (audio thread)

    /// Filters `input` into `output` (which may be the same buffers).
    mutating func process(input: AudioBuffers, output: AudioBuffers, frameCount: Int) {
        hasRendered = true
        let channels = min(channelCount, min(input.channelCount, output.channelCount))
        for channel in 0..<channels where input[channel] != output[channel] {
            copySamples(from: input[channel], to: output[channel], count: frameCount)
        }
        var start = 0
        while start < frameCount {
            let frames: Int
            var plainCount = 0, blendCount = 0
            if settledPlainCount.pointee >= 0 {
                frames = frameCount - start
                plainCount = settledPlainCount.pointee
            } else {
                var moving = false
                for band in 0..<bandCount where bands[band].isMoving { moving = true; break }
                frames = moving ? min(Self.controlFrames, frameCount - start) : frameCount - start
                for band in 0..<bandCount {
                    switch prepare(band: band, frames: frames) {
                    case .skip: continue
                    case .plain: plainBands[plainCount] = band; plainCount += 1
                    case .blended(let begin, let step): blends[blendCount] = (band, begin, step); blendCount += 1
                    }
                }
                // With nothing moving, the next slices would classify the bands the same way.
                var settled = !moving && blendCount == 0
                for band in 0..<bandCount where bands[band].isMoving { settled = false; break }
                if settled { settledPlainCount.pointee = plainCount }
            }
            var channel = 0
            while channel < channels {
                let pair = channel / 2
                if channel + 1 < channels {
                    let left = output[channel] + start, right = output[channel + 1] + start
                    var index = 0
                    while index + 3 <= plainCount {
                        let (p, q, r) = (plainBands[index], plainBands[index + 1], plainBands[index + 2])
                        BiquadKernels.runPair3(
                            bands[p].coefficients, bands[q].coefficients, bands[r].coefficients,
                            states: (state(band: p, pair: pair), state(band: q, pair: pair), state(band: r, pair: pair)),
                            left: left, right: right, count: frames)
                        index += 3
                    }
                    while index < plainCount {
                        let band = plainBands[index]
                        BiquadKernels.runPair(bands[band].coefficients, state: state(band: band, pair: pair), left: left, right: right, count: frames)
                        index += 1
                    }
                    for blend in 0..<blendCount {
                        let (band, begin, step) = blends[blend]
                        let memory = state(band: band, pair: pair)
                        BiquadKernels.runBlended(bands[band].coefficients, state: memory, stride: 2, samples: left, count: frames, start: begin, step: step)
                        BiquadKernels.runBlended(bands[band].coefficients, state: memory + 1, stride: 2, samples: right, count: frames, start: begin, step: step)
                    }
                    channel += 2
                } else {
                    let samples = output[channel] + start
                    var index = 0
                    while index + 3 <= plainCount {
                        let (p, q, r) = (plainBands[index], plainBands[index + 1], plainBands[index + 2])
                        BiquadKernels.run3(
                            bands[p].coefficients, bands[q].coefficients, bands[r].coefficients,
                            states: (state(band: p, pair: pair), state(band: q, pair: pair), state(band: r, pair: pair)),
                            stride: 2, samples: samples, count: frames)
                        index += 3
                    }
                    if index + 2 == plainCount {
                        let (p, q) = (plainBands[index], plainBands[index + 1])
                        BiquadKernels.run2(bands[p].coefficients, bands[q].coefficients,
                                           states: (state(band: p, pair: pair), state(band: q, pair: pair)),
                                           stride: 2, samples: samples, count: frames)
                    } else if index < plainCount {
                        let band = plainBands[index]
                        BiquadKernels.run(bands[band].coefficients, state: state(band: band, pair: pair), stride: 2, samples: samples, count: frames)
                    }
                    for blend in 0..<blendCount {
                        let (band, begin, step) = blends[blend]
                        let memory = state(band: band, pair: pair)
                        BiquadKernels.runBlended(bands[band].coefficients, state: memory, stride: 2, samples: samples, count: frames, start: begin, step: step)
                    }
                    channel += 1
                }
            }
            start += frames
        }
    }

    /// Advances one band's smoothing by `frames`, redesigns it when it moved, and says how to run it.
    private func prepare(band index: Int, frames: Int) -> Mode {
        let band = bands + index
        let fade = Int(Smoothing.defaultSeconds * sampleRate)
        if band.pointee.pendingType != band.pointee.type {
            if band.pointee.wet.current == 0 {
                band.pointee.type = band.pointee.pendingType
                band.pointee.needsDesign = true
                clearState(band: index)
                band.pointee.wet.set(band.pointee.isBypassed ? 0 : 1, frames: fade)
            } else if band.pointee.wet.target != 0 || !band.pointee.wet.isRamping {
                band.pointee.wet.set(0, frames: fade)
            }
        }
        if band.pointee.logFrequency.isRamping || band.pointee.gain.isRamping || band.pointee.q.isRamping {
            _ = band.pointee.logFrequency.advance(by: frames)
            _ = band.pointee.gain.advance(by: frames)
            _ = band.pointee.q.advance(by: frames)
            band.pointee.needsDesign = true
        }
        let wetStart = band.pointee.wet.current
        let wetEnd = band.pointee.wet.advance(by: frames)
        let isIdentity = band.pointee.type.usesGain
            && ((band.pointee.gain.current == 0 && !band.pointee.gain.isRamping) || Double(_exp2(band.pointee.logFrequency.current)) >= 0.49 * sampleRate)
        if (wetStart == 0 && wetEnd == 0) || isIdentity {
            if !band.pointee.isAtRest { clearState(band: index) }
            return .skip
        }
        band.pointee.isAtRest = false
        if band.pointee.needsDesign {
            band.pointee.coefficients = BiquadCoefficients.design(
                band.pointee.type, frequency: Double(_exp2(band.pointee.logFrequency.current)),
                gain: Double(band.pointee.gain.current), q: Double(band.pointee.q.current), sampleRate: sampleRate)
            band.pointee.needsDesign = false
        }
        if wetStart == 1 && wetEnd == 1 { return .plain }
        return .blended(start: Double(wetStart), step: Double(wetEnd - wetStart) / Double(frames))
    }

    private func clearState(band: Int) {
        for pair in 0..<(channelCount + 1) / 2 { state(band: band, pair: pair).update(repeating: 0, count: 8) }
        bands[band].isAtRest = true
    }
}
