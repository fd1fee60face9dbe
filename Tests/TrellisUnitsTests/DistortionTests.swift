import Glibc
import Testing
import TrellisCore
@testable import TrellisUnits

@Suite("Distortion")
struct DistortionTests {
    static func unit(_ settings: [String: Float]) throws -> Distortion {
        let unit = Distortion()
        for (name, value) in settings { try unit.setParameter(named: name, value) }
        return unit
    }

    /// Amplitude of the component at `hertz` over a whole number of its periods.
    static func amplitude(_ signal: ArraySlice<Float>, hertz: Double) -> Double {
        var re = 0.0, im = 0.0
        for (index, sample) in signal.enumerated() {
            let phase = 2 * Double.pi * hertz * Double(index) / 48_000
            re += Double(sample) * cos(phase)
            im += Double(sample) * sin(phase)
        }
        return 2 * (re * re + im * im).squareRoot() / Double(signal.count)
    }

    @Test("at zero drive and full mix every curve is transparent within 0.01 dB", arguments: DistortionCurve.allCases)
    func transparentAtZeroDrive(_ curve: DistortionCurve) throws {
        let unit = try Self.unit(["drive": 0, "wetDryMix": 100, "preGain": 0, "curve": Float(curve.rawValue)])
        let harness = try UnitHarness(unit)
        for hertz in [100.0, 1000, 10_000] {
            let signal = sine(frequency: hertz, sampleRate: 48_000, count: 24_000, amplitude: 0.9)
            let output = harness.process([signal, signal])[0]
            let latency = unit.latencyFrames
            let gain = rms(output[(4800 + latency)..<(19_200 + latency)]) / rms(signal[4800..<19_200])
            #expect(abs(decibels(gain)) < 0.01, "\(curve.name) at \(hertz) Hz: \(decibels(gain)) dB")
            let error = zip(output[(4800 + latency)..<(19_200 + latency)], signal[4800..<19_200]).map { abs($0 - $1) }.max()!
            #expect(error < 0.002, "\(curve.name) at \(hertz) Hz: sample error \(error)")
        }
    }

    @Test("a 5 kHz sine at full drive through the smooth curves aliases below −80 dB", arguments: [DistortionCurve.softClip, .tube])
    func aliasingStaysDown(_ curve: DistortionCurve) throws {
        let unit = try Self.unit(["drive": 100, "wetDryMix": 100, "preGain": 0, "curve": Float(curve.rawValue)])
        let harness = try UnitHarness(unit)
        let signal = sine(frequency: 5000, sampleRate: 48_000, count: 19_200)
        // The output repeats every 48 frames: everything it holds lies on the 1 kHz grid.
        let output = harness.process([signal, signal])[0][9600..<19_200]
        let fundamental = Self.amplitude(output, hertz: 5000)
        #expect(fundamental > 0.5)
        for kilohertz in 1...23 where kilohertz % 5 != 0 {
            let level = decibels(Self.amplitude(output, hertz: Double(kilohertz) * 1000) / fundamental)
            #expect(level < -80, "\(curve.name): \(kilohertz) kHz at \(level) dB")
        }
        // The harmonics inside the band are there: it does distort.
        #expect(decibels(Self.amplitude(output, hertz: 15_000) / fundamental) > -40)
    }

    @Test("the reported latency is the delay of both the wet and the dry path")
    func latencyIsReported() throws {
        for mix: Float in [0, 100] {
            let unit = try Self.unit(["drive": 0, "wetDryMix": mix, "preGain": 0])
            let harness = try UnitHarness(unit)
            var impulse = [Float](repeating: 0, count: 2048)
            impulse[10] = 0.5
            let output = harness.process([impulse, impulse])[0]
            let peak = output.indices.max { abs(output[$0]) < abs(output[$1]) }!
            #expect(peak - 10 == unit.latencyFrames)
            #expect(unit.latencyFrames == Oversampler.latency)
        }
    }

    @Test("the tone control tilts the wet sound: brighter raises 8 kHz against 100 Hz, darker lowers it")
    func toneTilts() throws {
        func ratio(_ tone: Float) throws -> Double {
            let harness = try UnitHarness(try Self.unit(["drive": 0, "wetDryMix": 100, "preGain": 0, "tone": tone]))
            let low = sine(frequency: 100, sampleRate: 48_000, count: 24_000, amplitude: 0.3)
            let high = sine(frequency: 8000, sampleRate: 48_000, count: 24_000, amplitude: 0.3)
            let a = rms(harness.process([low, low])[0][9600...])
            let b = rms(harness.process([high, high])[0][9600...])
            return decibels(b / a)
        }
        #expect(try ratio(100) > 10)
        #expect(try ratio(-100) < -10)
        #expect(abs(try ratio(0)) < 0.01)
    }

    @Test("the factory presets carry AVAudioUnitDistortionPreset's names")
    func presets() throws {
        let unit = Distortion()
        #expect(unit.factoryPresets.count == Distortion.presets.count)
        try unit.applyFactoryPreset(Preset(number: 11, name: "Multi Everything Is Broken"))
        #expect(unit.values[3] == Float(DistortionCurve.fold.rawValue))
        #expect(unit.values[2] == 90)
    }

    @Test("rendering allocates nothing")
    func noAllocation() throws {
        let harness = try UnitHarness(Distortion())
        harness.fillInput(channel: 0, with: sine(frequency: 300, sampleRate: 48_000, count: 512)[...])
        harness.render(frames: 512)
        let counts = countAllocations { for _ in 0..<20 { harness.render(frames: 512) } }
        #expect(counts.allocations == 0 && counts.frees == 0)
    }
}
