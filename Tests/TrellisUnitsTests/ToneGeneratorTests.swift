import Foundation
import Testing
import TrellisCore
import TrellisUnits

/// Renders a tone generator standalone into one long mono array.
private func renderTone(_ tone: ToneGenerator, frames: Int, slice: Int = 512) throws -> [Float] {
    try tone.initialize()
    let out = AudioBufferList(channelCount: tone.elementCount(.output) > 0 ? try tone.format(scope: .output, element: 0).channelCount : 1, frameCapacity: slice)
    var samples: [Float] = []
    samples.reserveCapacity(frames)
    var done = 0
    while done < frames {
        let count = min(slice, frames - done)
        _ = tone.render(RenderContext(frameCount: count, timeStamp: AudioTimeStamp(sampleTime: Int64(done)), inputs: .none, outputs: out.buses))
        samples += out.samples(channel: 0, frameCount: count)
        done += count
    }
    return samples
}

/// The frequency of a sine from its upward zero crossings, interpolated between samples.
private func measuredFrequency(_ samples: [Float], sampleRate: Double) -> Double {
    var crossings: [Double] = []
    for index in 1..<samples.count where samples[index - 1] < 0 && samples[index] >= 0 {
        let a = Double(samples[index - 1]), b = Double(samples[index])
        crossings.append(Double(index - 1) + (-a) / (b - a))
    }
    return Double(crossings.count - 1) * sampleRate / (crossings.last! - crossings.first!)
}

@Suite("Tone generator")
struct ToneGeneratorTests {
    @Test("a sine's measured frequency is within 0.01 % of the set one", arguments: [55.0, 440.0, 1000.0, 9876.5])
    func sineFrequency(frequency: Double) throws {
        let tone = ToneGenerator(channelCount: 1)
        try tone.setParameter(named: "freq", Float(frequency))
        let samples = try renderTone(tone, frames: 96_000)
        let measured = measuredFrequency(samples, sampleRate: 48_000)
        #expect(abs(measured - frequency) / frequency < 1e-4, "measured \(measured) Hz")
    }

    @Test("a sine's RMS amplitude is within 0.01 dB of the set amplitude", arguments: [1.0, 0.5, 0.1])
    func sineAmplitude(amplitude: Double) throws {
        let tone = ToneGenerator(channelCount: 1)
        try tone.setParameter(named: "freq", 1000)
        try tone.setParameter(named: "amp", Float(amplitude))
        // 48 whole periods of 1 kHz at 48 kHz, after the generator has settled.
        let samples = Array(try renderTone(tone, frames: 4_800).suffix(2_400))
        let rms = sqrt(samples.reduce(0) { $0 + Double($1) * Double($1) } / Double(samples.count))
        let errorDecibels = 20 * log10(rms * 2.squareRoot() / amplitude)
        #expect(abs(errorDecibels) < 0.01, "off by \(errorDecibels) dB")
    }

    @Test("every output channel carries the same signal")
    func channelsMatch() throws {
        let tone = ToneGenerator(channelCount: 3)
        try tone.initialize()
        let out = AudioBufferList(channelCount: 3, frameCapacity: 256)
        _ = tone.render(RenderContext(frameCount: 256, timeStamp: .zero, inputs: .none, outputs: out.buses))
        #expect(out.samples(channel: 0) == out.samples(channel: 1))
        #expect(out.samples(channel: 0) == out.samples(channel: 2))
    }

    @Test("white noise is uniform in [-amp, amp) with mean near zero and the uniform variance")
    func noiseStatistics() throws {
        let tone = ToneGenerator(channelCount: 1)
        try tone.setParameter(named: "waveform", 3)
        try tone.setParameter(named: "amp", 1)
        let samples = try renderTone(tone, frames: 200_000)
        let mean = samples.reduce(0) { $0 + Double($1) } / Double(samples.count)
        let variance = samples.reduce(0) { $0 + (Double($1) - mean) * (Double($1) - mean) } / Double(samples.count)
        #expect(samples.allSatisfy { $0 >= -1 && $0 < 1 })
        #expect(abs(mean) < 0.01)
        #expect(abs(variance - 1.0 / 3.0) < 0.01)
    }

    @Test("square and saw keep the set frequency")
    func squareAndSawFrequency() throws {
        for waveform: Float in [1, 2] {
            let tone = ToneGenerator(channelCount: 1)
            try tone.setParameter(named: "waveform", waveform)
            try tone.setParameter(named: "freq", 500)
            let samples = try renderTone(tone, frames: 48_000)
            // A saw crosses zero upward mid-ramp once a period, as a square does.
            let measured = measuredFrequency(samples, sampleRate: 48_000)
            #expect(abs(measured - 500) / 500 < 1e-3, "waveform \(waveform): \(measured) Hz")
        }
    }
}
