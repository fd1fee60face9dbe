import Testing
import TrellisCore
@testable import TrellisUnits

@Suite("Interleaving")
struct InterleavingTests {
    @Test("interleaving puts frame n channel c at n·channels + c, and de-interleaving undoes it")
    func roundTrip() {
        let buffers = AudioBufferList(channelCount: 3, frameCapacity: 5)
        for channel in 0..<3 { for frame in 0..<5 { buffers[0][channel][frame] = Float(frame * 10 + channel) } }
        var interleaved = [Float](repeating: 0, count: 15)
        Interleaving.interleave(buffers[0], frameCount: 5, into: &interleaved)
        let expected: [Float] = (0..<15).map { (index: Int) -> Float in Float(index / 3 * 10 + index % 3) }
        #expect(interleaved == expected)
        let back = AudioBufferList(channelCount: 3, frameCapacity: 5)
        Interleaving.deinterleave(interleaved, frameCount: 5, into: back[0])
        for channel in 0..<3 { #expect(back.samples(channel: channel) == buffers.samples(channel: channel)) }
    }
}
