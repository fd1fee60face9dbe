import CAllocationCounter
import Testing
import TrellisAudioFile
import TrellisCore

/// A disk thread calls read and write in a loop; neither may allocate per call.
@Suite("Allocation")
struct AllocationTests {
    @Test("reading an integer file in a loop, and seeking, allocates nothing", arguments: [AudioFileContainer.wav, .aiff, .caf])
    func readLoopAllocatesNothing(_ container: AudioFileContainer) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("loop.\(container.rawValue)")
        let frameCount = 20_000
        try writeFile(path, container: container, sampleType: .int24, channels: (0..<2).map { _ in sine(frequency: 100, amplitude: 0.5, sampleRate: 48_000, frameCount: frameCount) })
        let reader = try AudioFileReader(path: path)
        let buffer = AudioBufferList(channelCount: 2, frameCapacity: 5000)
        _ = try reader.read(into: buffer[0], frameCount: 256)

        var total = 256
        trellis_allocation_counter_arm()
        while true {
            let got = try reader.read(into: buffer[0], frameCount: 5000)
            total += got
            if got == 0 { break }
        }
        try reader.seek(toFrame: 0)
        let afterSeek = try reader.read(into: buffer[0], frameCount: 100)
        trellis_allocation_counter_disarm()
        #expect(trellis_allocation_counter_allocations() == 0)
        #expect(total == frameCount)
        #expect(afterSeek == 100)
    }

    @Test("writing a float WAV in a loop allocates nothing")
    func writeLoopAllocatesNothing() throws {
        let directory = try TemporaryDirectory()
        let writer = try AudioFileWriter(path: directory.path("loop.wav"), sampleType: .float32, sampleRate: 48_000, channelCount: 2)
        let buffer = AudioBufferList(channelCount: 2, frameCapacity: 5000)
        buffer[0][0].update(repeating: 0.25, count: 5000)
        try writer.write(from: buffer[0], frameCount: 256)

        trellis_allocation_counter_arm()
        for _ in 0..<20 { try writer.write(from: buffer[0], frameCount: 5000) }
        trellis_allocation_counter_disarm()
        #expect(trellis_allocation_counter_allocations() == 0)
        try writer.close()
        #expect(writer.framesWritten == 256 + 20 * 5000)
    }
}
