import Testing
import TrellisCore
import TrellisEngine
import TrellisGraph
import TrellisLV2
import TrellisTestSupport
import TrellisUnits

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
        let note = OneMIDIMessage([0x90, 60, 110], frame: 300)
        let out = AudioBufferList(channelCount: 2, frameCapacity: 512)
        #expect(graph.engine.render(frameCount: 512, timeStamp: .zero, input: .empty, output: out[0], midiInput: note.view) == .ok)
        note.isArmed = false
        let left = out.samples(channel: 0, frameCount: 512)
        #expect(left[0..<300].allSatisfy { $0 == 0 }, "silent before the note's frame")
        #expect(left[300..<512].contains { $0 != 0 }, "sounding from the note's frame on")
    }
}
