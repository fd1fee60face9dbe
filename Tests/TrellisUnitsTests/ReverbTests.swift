import Glibc
import Testing
import TrellisCore
@testable import TrellisUnits

/// RT60 by Schroeder's backward integration: the energy decay curve of `response`, a
/// line fitted from −5 to −35 dB, extrapolated to 60 dB.
func schroederRT60(_ response: [Float], sampleRate: Double) -> Double {
    var energy = [Double](repeating: 0, count: response.count + 1)
    for index in stride(from: response.count - 1, through: 0, by: -1) {
        energy[index] = energy[index + 1] + Double(response[index]) * Double(response[index])
    }
    let total = energy[0]
    let curve = energy.dropLast().map { 10 * log10(max($0, 1e-300) / total) }
    let start = curve.firstIndex { $0 <= -5 }!, end = curve.firstIndex { $0 <= -35 }!
    // Least squares over the range.
    let xs = (start...end).map { Double($0) / sampleRate }, ys = (start...end).map { curve[$0] }
    let mx = xs.reduce(0, +) / Double(xs.count), my = ys.reduce(0, +) / Double(ys.count)
    let slope = zip(xs, ys).reduce(0) { $0 + ($1.0 - mx) * ($1.1 - my) } / xs.reduce(0) { $0 + ($1 - mx) * ($1 - mx) }
    return -60 / slope
}

/// RBJ's low-pass biquad, run over `signal`.
func lowPass(_ signal: [Float], cutoff: Double, sampleRate: Double) -> [Float] {
    let w = 2 * Double.pi * cutoff / sampleRate, alpha = sin(w) / (2 * 0.7071067811865476)
    let a0 = 1 + alpha
    let b0 = (1 - cos(w)) / 2 / a0, b1 = (1 - cos(w)) / a0, b2 = b0
    let a1 = -2 * cos(w) / a0, a2 = (1 - alpha) / a0
    var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0
    return signal.map { sample in
        let x = Double(sample)
        let y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        x2 = x1; x1 = x; y2 = y1; y1 = y
        return Float(y)
    }
}

@Suite("Reverb")
struct ReverbTests {
    static func impulseResponse(_ unit: Reverb, seconds: Double) throws -> [[Float]] {
        let harness = try UnitHarness(unit)
        var impulse = [Float](repeating: 0, count: Int(seconds * 48_000))
        impulse[0] = 1
        return harness.process([impulse, impulse])
    }

    @Test("each factory preset decays 60 dB below 500 Hz in its documented time (±10 %), by Schroeder integration",
          arguments: Reverb.presets.map(\.name))
    func presetDecayTimes(_ name: String) throws {
        let preset = try #require(Reverb.presets.first { $0.name == name })
        let unit = Reverb()
        try unit.setProperty(.presentPreset, .string(name), scope: .global, element: 0)
        let response = try Self.impulseResponse(unit, seconds: Double(preset.decayTime) * 0.9 + 0.3)[0]
        let band = lowPass(lowPass(response, cutoff: 500, sampleRate: 48_000), cutoff: 500, sampleRate: 48_000)
        let measured = schroederRT60(band, sampleRate: 48_000)
        #expect(abs(measured / Double(preset.decayTime) - 1) < 0.1, "\(name): \(measured) s")
    }

    @Test("the tail's left and right are decorrelated (|r| < 0.3)")
    func decorrelatedTail() throws {
        let unit = Reverb()
        try unit.setParameter(named: "decayTime", 2)
        let response = try Self.impulseResponse(unit, seconds: 1.5)
        let left = response[0][4800..<72_000].map(Double.init), right = response[1][4800..<72_000].map(Double.init)
        let dot = zip(left, right).reduce(0) { $0 + $1.0 * $1.1 }
        let r = dot / (left.reduce(0) { $0 + $1 * $1 } * right.reduce(0) { $0 + $1 * $1 }).squareRoot()
        #expect(abs(r) < 0.3, "r = \(r)")
    }

    @Test("a dying tail never turns subnormal and ends in exact zeros")
    func noSubnormalTail() throws {
        let unit = Reverb()
        try unit.setParameter(named: "decayTime", 0.3)
        let response = try Self.impulseResponse(unit, seconds: 12)
        for channel in response {
            #expect(channel.allSatisfy { $0 == 0 || $0.magnitude >= Float.leastNormalMagnitude })
            #expect(channel.suffix(48_000).allSatisfy { $0 == 0 })
        }
    }

    @Test("all dry, the output is the input")
    func dryIsTransparent() throws {
        let unit = Reverb()
        try unit.setParameter(named: "wetDryMix", 0)
        let harness = try UnitHarness(unit)
        let signal = sine(frequency: 440, sampleRate: 48_000, count: 4800, amplitude: 0.5)
        let output = harness.process([signal, signal.map { -$0 }])
        #expect(output[0] == signal)
        #expect(output[1] == signal.map { -$0 })
    }

    @Test("the factory presets are AVAudioUnitReverbPreset's thirteen, in its order")
    func presetNames() {
        #expect(Reverb().factoryPresets.map(\.name) == [
            "Small Room", "Medium Room", "Large Room", "Medium Hall", "Large Hall", "Plate", "Medium Chamber",
            "Large Chamber", "Cathedral", "Large Room 2", "Medium Hall 2", "Medium Hall 3", "Large Hall 2",
        ])
    }

    @Test("rendering allocates nothing")
    func noAllocation() throws {
        let harness = try UnitHarness(Reverb())
        harness.fillInput(channel: 0, with: sine(frequency: 300, sampleRate: 48_000, count: 512)[...])
        harness.render(frames: 512)
        let counts = countAllocations { for _ in 0..<50 { harness.render(frames: 512) } }
        #expect(counts.allocations == 0 && counts.frees == 0)
    }
}
