import Glibc
import Testing
@testable import TrellisUnits

@Suite("Fast log2 and exp2")
struct FastMathTests {
    @Test("log2 is within 8e-4 of libm's from 1e-10 to 1e3 (0.005 dB), exp2 within 1.2e-4 relative from −60 to 20")
    func accuracy() {
        var x: Float = 1e-10
        while x < 1000 {
            #expect(abs(FastMath.log2(x) - Float(Glibc.log2(Double(x)))) < 8e-4, "log2(\(x))")
            x *= 1.0137
        }
        var y: Float = -60
        while y < 20 {
            #expect(abs(Double(FastMath.exp2(y)) / Glibc.exp2(Double(y)) - 1) < 1.2e-4, "exp2(\(y))")
            y += 0.0371
        }
    }
}
