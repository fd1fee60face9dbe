import Testing
import TrellisCore
import TrellisEngine
import TrellisGraph
@testable import TrellisSession

@Suite("Wide buses")
struct WideBusTests {
    @Test("a 34-channel tone reaches a 34-channel output, every channel the same")
    func thirtyFourChannels() throws {
        let session = try load("""
            version: 1
            defaults: { sample-rate: 48000, block-size: 256 }
            nodes:
              tone1: { unit: tone, channels: 34, parameters: { freq: 1000, amp: 0.5 } }
              out: { unit: output, channels: 34 }
            connections: [tone1 -> out]
            """)
        let output = AudioBufferList(channelCount: 34, frameCapacity: 256)
        #expect(session.graph.engine.render(frameCount: 256, timeStamp: .zero, input: .empty, output: output[0]) == .ok)
        let first = output.samples(channel: 0, frameCount: 256)
        #expect(first.contains { $0 != 0 })
        for channel in 1..<34 { #expect(output.samples(channel: channel, frameCount: 256) == first, "channel \(channel)") }
    }

    @Test("a width past 256 is refused with the range")
    func tooWide() throws {
        let error = try #require(try loadError("""
            version: 1
            nodes:
              out: { unit: output, channels: 257 }
            """))
        #expect("\(error)".contains("a whole number in 1...256"), "\(error)")
    }
}
