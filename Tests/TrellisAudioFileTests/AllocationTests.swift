import CAllocationCounter
import Testing
import TrellisAudioFile
import TrellisCore

/// A disk thread calls read and write in a loop; neither may allocate per call.
@Suite("Allocation")
struct AllocationTests {
    static func openReader(_ directory: TemporaryDirectory, _ container: AudioFileContainer, frameCount: Int) throws -> AudioFileReader {
        let path = directory.path("loop.\(container.rawValue)")
        let channels = (0..<2).map { _ in sine(frequency: 100, amplitude: 0.5, sampleRate: 48_000, frameCount: frameCount) }
        try writeFile(path, container: container, sampleType: container == .ogg ? .float32 : .int24, channels: channels)
        return try AudioFileReader(path: path)
    }

    // Vorbis is left out: libvorbis grows its own decoding storage now and then.
    @Test("reading a file in a loop allocates nothing", arguments: [AudioFileContainer.wav, .aiff, .caf, .flac])
    func readLoopAllocatesNothing(_ container: AudioFileContainer) throws {
        let directory = try TemporaryDirectory()
        let reader = try Self.openReader(directory, container, frameCount: 20_000)
        let buffer = AudioBufferList(channelCount: 2, frameCapacity: 5000)
        var total = try reader.read(into: buffer[0], frameCount: 256)

        trellis_allocation_counter_arm()
        while true {
            let got = try reader.read(into: buffer[0], frameCount: 5000)
            total += got
            if got == 0 { break }
        }
        trellis_allocation_counter_disarm()
        #expect(trellis_allocation_counter_allocations() == 0)
        #expect(total == 20_000)
    }

    @Test("seeking in an uncompressed file allocates nothing", arguments: [AudioFileContainer.wav, .aiff, .caf])
    func seekAllocatesNothing(_ container: AudioFileContainer) throws {
        let directory = try TemporaryDirectory()
        let reader = try Self.openReader(directory, container, frameCount: 20_000)
        let buffer = AudioBufferList(channelCount: 2, frameCapacity: 100)
        _ = try reader.read(into: buffer[0], frameCount: 100)
        let frames = [19_000, 0, 7_777, 12_345]

        // A while loop: in a debug build, `for in` over an array allocated once per pass.
        trellis_allocation_counter_arm()
        var index = 0
        while index < frames.count {
            try reader.seek(toFrame: frames[index])
            _ = try reader.read(into: buffer[0], frameCount: 100)
            index += 1
        }
        trellis_allocation_counter_disarm()
        #expect(trellis_allocation_counter_allocations() == 0)
    }

    @Test("writing a file in a loop allocates nothing", arguments: [AudioFileContainer.wav, .aiff, .caf])
    func writeLoopAllocatesNothing(_ container: AudioFileContainer) throws {
        let directory = try TemporaryDirectory()
        let writer = try AudioFileWriter(path: directory.path("loop.\(container.rawValue)"), sampleType: .int24, sampleRate: 48_000, channelCount: 2)
        let buffer = AudioBufferList(channelCount: 2, frameCapacity: 5000)
        buffer[0][0].update(repeating: 0.25, count: 5000)
        try writer.write(from: buffer[0], frameCount: 256)

        trellis_allocation_counter_arm()
        var round = 0
        while round < 20 {
            try writer.write(from: buffer[0], frameCount: 5000)
            round += 1
        }
        trellis_allocation_counter_disarm()
        #expect(trellis_allocation_counter_allocations() == 0)
        try writer.close()
        #expect(writer.framesWritten == 256 + 20 * 5000)
    }
}
