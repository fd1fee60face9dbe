import Testing
import TrellisCore
import TrellisEngine
import TrellisGraph
import TrellisLV2
import TrellisUnits

/// One note-on at a fixed frame of the first cycle, as a JACK MIDI port would deliver it.
final class OneNote: @unchecked Sendable {
    private let bytes: UnsafeMutableBufferPointer<UInt8>
    private let event: UnsafeMutablePointer<MIDIEvent>
    private let count: UnsafeMutablePointer<Int>

    init(frame: Int) {
        bytes = .allocate(capacity: 3)
        _ = bytes.initialize(from: [0x90, 60, 110])
        event = .allocate(capacity: 1)
        event.initialize(to: MIDIEvent(frame: frame, port: 0, bytes: UnsafeBufferPointer(bytes)))
        count = .allocate(capacity: 1)
        count.initialize(to: 1)
    }

    deinit {
        bytes.deallocate()
        event.deallocate()
        count.deallocate()
    }

    var view: MIDIInputView { MIDIInputView(events: UnsafePointer(event), counter: UnsafePointer(count)) }

    /// Ends the note's cycle: later cycles see no events.
    func consume() { count.pointee = 0 }
}

@Suite("MIDI into a graph")
struct GraphMIDITests {
    @Test("a note from the backend's MIDI input port reaches the LV2 instrument connected to it at its frame")
    func noteReachesInstrumentAtItsFrame() throws {
        let graph = Graph(registry: BuiltInUnits.registry(), maximumFrames: 512)
        let keys = try graph.addNode(MIDIInputPort(port: 0), name: "keys")
        let piano = try graph.addNode(makeUnit(Fixture.epiano, maxFrames: 512), name: "piano")
        let output = try graph.addNode(named: "output")
        try graph.connectMIDI(keys, to: piano)
        try graph.connect(piano, to: output)
        try graph.initialize()
        let note = OneNote(frame: 300)
        let out = AudioBufferList(channelCount: 2, frameCapacity: 512)
        #expect(graph.engine.render(frameCount: 512, timeStamp: .zero, input: .empty, output: out[0], midiInput: note.view) == .ok)
        note.consume()
        let left = out.samples(channel: 0, frameCount: 512)
        #expect(left[0..<300].allSatisfy { $0 == 0 }, "silent before the note's frame")
        #expect(left[300..<512].contains { $0 != 0 }, "sounding from the note's frame on")
    }
}
