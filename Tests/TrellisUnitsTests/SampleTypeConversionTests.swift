import Testing
import TrellisCore
@testable import TrellisUnits

@Suite("Sample-type conversion")
struct SampleTypeConversionTests {
    @Test("Int16 to Float32 and back is bit-exact for every value")
    func int16RoundTrip() {
        let all = (Int(Int16.min)...Int(Int16.max)).map { Int16($0) }
        var floats = [Float](repeating: 0, count: all.count)
        var back = [Int16](repeating: 0, count: all.count)
        var dither: TPDFDither? = nil
        all.withUnsafeBytes { SampleTypeConversion.toFloat($0.baseAddress!, type: .int16, count: all.count, into: &floats) }
        back.withUnsafeMutableBytes { SampleTypeConversion.fromFloat(floats, count: all.count, to: .int16, into: $0.baseAddress!, dither: &dither) }
        #expect(back == all)
        #expect(floats.first == -1 && floats.last == Float(32767) / 32768)
    }

    @Test("Int24 to Float32 and back is bit-exact")
    func int24RoundTrip() {
        let values: [Int32] = [-8_388_608, -1_234_567, -1, 0, 1, 77, 4_000_000, 8_388_607]
        var packed: [UInt8] = []
        for value in values { packed += [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value >> 16)] }
        var floats = [Float](repeating: 0, count: values.count)
        packed.withUnsafeBytes { SampleTypeConversion.toFloat($0.baseAddress!, type: .int24, count: values.count, into: &floats) }
        #expect(floats == values.map { Float($0) / 8_388_608 })
        var back = [UInt8](repeating: 0, count: packed.count)
        var dither: TPDFDither? = nil
        back.withUnsafeMutableBytes { SampleTypeConversion.fromFloat(floats, count: values.count, to: .int24, into: $0.baseAddress!, dither: &dither) }
        #expect(back == packed)
    }

    @Test("Int32 scales by 2^31 and clips at full scale")
    func int32() {
        let floats: [Float] = [0.5, -1, 1.5, -0.25]
        var out = [Int32](repeating: 0, count: 4)
        var dither: TPDFDither? = nil
        out.withUnsafeMutableBytes { SampleTypeConversion.fromFloat(floats, count: 4, to: .int32, into: $0.baseAddress!, dither: &dither) }
        #expect(out == [1 << 30, Int32.min, Int32.max, -(1 << 29)])
    }

    @Test("TPDF dither's error has zero mean and the variance of rounding plus triangular noise (1/4 LSB²)")
    func ditherStatistics() {
        let count = 200_000
        let floats = (0..<count).map { Float(0.3 * Double($0 % 1000) / 1000 - 0.15) }
        var out = [Int16](repeating: 0, count: count)
        var dither: TPDFDither? = TPDFDither(seed: 42)
        out.withUnsafeMutableBytes { SampleTypeConversion.fromFloat(floats, count: count, to: .int16, into: $0.baseAddress!, dither: &dither) }
        let errors = zip(out, floats).map { Double($0) - Double($1) * 32768 }
        let mean = errors.reduce(0, +) / Double(count)
        let variance = errors.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(count)
        #expect(abs(mean) < 0.01)
        #expect(abs(variance - 0.25) < 0.01)
        #expect(errors.allSatisfy { abs($0) < 1.5 })
    }

    @Test("a signal below one LSB survives dithered quantization and vanishes without it")
    func ditherKeepsQuietSignals() {
        let count = 48_000
        let quiet = (0..<count).map { Float(0.4 / 32768 * sin(2 * Double.pi * 100 * Double($0) / 48_000)) }
        func quantized(_ dither: TPDFDither?) -> [Int16] {
            var out = [Int16](repeating: 0, count: count)
            var dither = dither
            out.withUnsafeMutableBytes { SampleTypeConversion.fromFloat(quiet, count: count, to: .int16, into: $0.baseAddress!, dither: &dither) }
            return out
        }
        #expect(quantized(nil).allSatisfy { $0 == 0 })
        // Correlating the dithered output with the sine recovers its amplitude (0.4 LSB).
        let dithered = quantized(TPDFDither(seed: 7))
        let correlation = zip(dithered, quiet).reduce(0.0) { $0 + Double($1.0) * Double($1.1) * 32768 / 0.4 } * 2 / Double(count)
        #expect(abs(correlation - 0.4) < 0.05)
    }
}

import Glibc
