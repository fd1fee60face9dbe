import Foundation
import Testing
import TrellisCore
import TrellisEngine
import TrellisGraph
import TrellisMedia
import TrellisTestSupport
import TrellisUnits

@Suite("A MIDI file player's output")
struct MIDIFilePlayerBusTests {
    /// The notes `file` sends to a backend MIDI port from `bus` of its player in the first
    /// 256 frames after the transport starts, as (offset, status, note).
    private func firstCycle(of file: [UInt8], bus: Int) throws -> [(offset: Int32, status: UInt8, note: UInt8)] {
        let directory = TemporaryDirectory()
        let path = directory.file("song.mid")
        try Data(file).write(to: URL(fileURLWithPath: path))
        let graph = Graph(registry: BuiltInUnits.registry(), maximumFrames: 256)
        let player = MIDIFilePlayer()
        try player.load(path: path)
        let song = try graph.addNode(player, name: "song")
        let port = try graph.addNode(MIDIOutputPort(port: 0), name: "midi_out")
        try graph.connectMIDI(song, bus, to: port, 0)
        try graph.initialize()
        graph.engine.changeTransport(.play)
        let sent = MIDIBufferStorage(count: 1, capacity: 64)
        let out = AudioBufferList(channelCount: 2, frameCapacity: 256)
        let status = graph.engine.render(
            frameCount: 256, timeStamp: .zero, input: .empty, output: out[0], midiInput: nil, midiOutput: sent.buses)
        #expect(status == .ok)
        return (0..<sent[0].count).map { (sent[0][$0].offset, sent[0][$0].status, sent[0][$0].data1) }
    }

    @Test("a one-track file sends each of its messages once")
    func oneTrackFileSendsOnce() throws {
        let track = TestMIDIFile.track([(0, [0x90, 60, 100]), (0, [0x91, 64, 90]), (24, [0x80, 60, 0])])
        let notes = try firstCycle(of: TestMIDIFile.header(format: 0, tracks: 1, division: 480) + track, bus: 0)
        // 480 ticks a quarter at 120 BPM: tick 24 is 25 ms, frame 1,200, after this cycle.
        #expect(notes.map(\.status) == [0x90, 0x91] && notes.map(\.note) == [60, 64], "\(notes)")
    }
}
