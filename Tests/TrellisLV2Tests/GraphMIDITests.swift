import Testing
import TrellisCore
import TrellisEngine
import TrellisGraph
import TrellisLV2
import TrellisUnits

/// One note-on at a fixed frame of the first cycle, as a JACK MIDI port would deliver it.
final class OneNote: MIDIInputSource, @unchecked Sendable {
    let frame: Int
    var delivered = false
    private let bytes: UnsafeMutableBufferPointer<UInt8>

    init(frame: Int) {
        self.frame = frame
        bytes = .allocate(capacity: 3)
        _ = bytes.initialize(from: [0x90, 60, 110])
    }

    deinit { bytes.deallocate() }

    func forEachMIDIEvent(_ body: (UnsafeBufferPointer<UInt8>, Int) -> Void) {
        guard !delivered else { return }
        delivered = true
        body(UnsafeBufferPointer(bytes), frame)
    }
}

@Suite("MIDI into a graph")
struct GraphMIDITests {
    @Test("a note from the engine's MIDI input reaches an LV2 instrument in the graph at its frame")
    func noteReachesInstrumentAtItsFrame() throws {
        let graph = Graph(maximumFrames: 512)
        let piano = try graph.addNode(makeUnit(Fixture.epiano, maxFrames: 512), name: "piano")
        let output = try graph.addNode(named: "output")
        try graph.connect(piano, to: output)
        try graph.initialize()
        let note = OneNote(frame: 300)
        graph.engine.midiInput = note
        let out = AudioBufferList(channelCount: 2, frameCapacity: 512)
        #expect(graph.engine.render(frameCount: 512, timeStamp: .zero, input: .empty, output: out[0]) == .ok)
        let left = out.samples(channel: 0, frameCount: 512)
        #expect(note.delivered)
        #expect(left[0..<300].allSatisfy { $0 == 0 }, "silent before the note's frame")
        #expect(left[300..<512].contains { $0 != 0 }, "sounding from the note's frame on")
    }
}
