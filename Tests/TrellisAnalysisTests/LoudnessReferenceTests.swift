import CEBUR128
import Foundation
import Testing
import TrellisAnalysis
import TrellisCore

/// Program-like material: noise through a slow random envelope, each channel its own,
/// with a quiet passage and a loud one, so that both gates and the range have work.
func programMaterial(channels: Int, seconds: Double, rate: Double, seed: UInt64) -> [[Float]] {
    var generator = SeededGenerator(seed: seed)
    let frames = Int(seconds * rate)
    return (0..<channels).map { channel in
        var low: Float = 0
        return (0..<frames).map { frame in
            let t = Double(frame) / rate
            let envelope = 0.05 + 0.3 * (0.5 + 0.5 * sin(t * 0.7 + Double(channel))) * (t > seconds * 0.6 ? 2.5 : 1) * (t < seconds * 0.2 ? 0.02 : 1)
            let white = Float.random(in: -1...1, using: &generator)
            low = 0.97 * low + 0.03 * white
            return Float(envelope) * (0.6 * white + 4 * low)
        }
    }
}

struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return state ^ (state >> 29)
    }
}

/// What libebur128 (Debian's libebur128-dev, the library ffmpeg's and many scanners'
/// figures come from) reads of the same frames, fed in the same 100 ms steps.
struct ReferenceReading {
    var integrated, range, maximumMomentary, maximumShortTerm: Double
    var truePeak: [Double]

    init(_ channels: [[Float]], rate: Double) {
        let count = channels.count, frames = channels[0].count
        let mode = Int32(EBUR128_MODE_I.rawValue | EBUR128_MODE_LRA.rawValue | EBUR128_MODE_TRUE_PEAK.rawValue)
        var state = ebur128_init(UInt32(count), UInt(rate), mode)
        defer { ebur128_destroy(&state) }
        let step = (Int(rate) + 5) / 10
        var interleaved = [Float](repeating: 0, count: step * count)
        maximumMomentary = -.infinity
        maximumShortTerm = -.infinity
        var start = 0
        while start < frames {
            let take = min(step, frames - start)
            for frame in 0..<take { for channel in 0..<count { interleaved[frame * count + channel] = channels[channel][start + frame] } }
            _ = ebur128_add_frames_float(state, interleaved, take)
            var value = 0.0
            if take == step {
                if ebur128_loudness_momentary(state, &value) == 0 { maximumMomentary = max(maximumMomentary, value) }
                if ebur128_loudness_shortterm(state, &value) == 0 { maximumShortTerm = max(maximumShortTerm, value) }
            }
            start += take
        }
        var value = 0.0
        integrated = ebur128_loudness_global(state, &value) == 0 ? value : -.infinity
        range = ebur128_loudness_range(state, &value) == 0 ? value : 0
        truePeak = (0..<count).map { channel in
            var peak = 0.0
            _ = ebur128_true_peak(state, UInt32(channel), &peak)
            return 20 * log10(peak)
        }
    }
}

@Suite("Loudness against libebur128 on program material")
struct LoudnessReferenceTests {
    @Test("integrated, range, loudest momentary and short-term within 0.02 LU, true peak within 0.05 dB",
          arguments: [(1, 48_000.0), (2, 44_100.0), (2, 48_000.0), (2, 96_000.0), (5, 48_000.0), (6, 48_000.0)])
    func matchesLibebur128(_ channelCount: Int, _ rate: Double) throws {
        let channels = programMaterial(channels: channelCount, seconds: 12, rate: rate, seed: UInt64(channelCount) &* 977 &+ UInt64(rate))
        let reference = ReferenceReading(channels, rate: rate)
        let meter = try LoudnessMeter(channelCount: channelCount, sampleRate: rate)
        let list = AudioBufferList(channelCount: channelCount, frameCapacity: 1000)
        // Odd-sized slices: the meter's steps do not depend on how frames arrive.
        var start = 0
        while start < channels[0].count {
            let take = min(997, channels[0].count - start)
            for channel in 0..<channelCount {
                channels[channel].withUnsafeBufferPointer { list[0][channel].update(from: $0.baseAddress! + start, count: take) }
            }
            meter.add(list[0], frameCount: take)
            start += take
        }
        #expect(abs(meter.integrated - reference.integrated) <= 0.02, "integrated \(meter.integrated) vs \(reference.integrated)")
        #expect(abs(meter.range - reference.range) <= 0.02, "range \(meter.range) vs \(reference.range)")
        #expect(abs(meter.maximumMomentary - reference.maximumMomentary) <= 0.02, "momentary \(meter.maximumMomentary) vs \(reference.maximumMomentary)")
        #expect(abs(meter.maximumShortTerm - reference.maximumShortTerm) <= 0.02, "short-term \(meter.maximumShortTerm) vs \(reference.maximumShortTerm)")
        for channel in 0..<channelCount {
            #expect(abs(meter.truePeak(channel: channel) - reference.truePeak[channel]) <= 0.05, "true peak \(channel): \(meter.truePeak(channel: channel)) vs \(reference.truePeak[channel])")
        }
    }

    @Test("reset starts again: a loud minute then reset then a quiet one reads the quiet one alone")
    func resetForgets() throws {
        let meter = try LoudnessMeter(channelCount: 2, sampleRate: 48_000)
        let loud = sine(-10, seconds: 5), quiet = sine(-30, seconds: 5)
        let list = AudioBufferList(channelCount: 2, frameCapacity: loud.count)
        for signal in [loud, quiet] {
            for channel in 0..<2 { signal.withUnsafeBufferPointer { list[0][channel].update(from: $0.baseAddress!, count: signal.count) } }
            meter.add(list[0], frameCount: signal.count)
            if signal == loud { meter.reset() }
        }
        #expect(abs(meter.integrated - (-30)) <= 0.1)
        #expect(abs(meter.truePeak - (-30)) <= 0.1)
        #expect(abs(meter.maximumMomentary - (-30)) <= 0.1)
    }
}
