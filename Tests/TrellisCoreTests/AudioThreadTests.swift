import Testing
import TrellisCore

@inline(never)
private func halve(_ value: Float) -> Float { value * 0.5 }

@Suite("The audio thread's floating-point mode")
struct AudioThreadTests {
    @Test("an audio thread flushes denormals to zero, and leaving restores gradual underflow")
    func denormalsFlush() {
        let smallest = Float.leastNormalMagnitude
        #expect(halve(smallest) != 0, "outside an audio thread the result is a denormal")
        let state = AudioThread.enter()
        #expect(AudioThread.isCurrent)
        #expect(halve(smallest) == 0)
        AudioThread.leave(restoring: state)
        #expect(!AudioThread.isCurrent)
        #expect(halve(smallest) != 0)
    }
}
