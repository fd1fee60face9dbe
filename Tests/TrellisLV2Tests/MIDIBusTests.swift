import Testing
import TrellisCore
import TrellisEngine
import TrellisGraph
import TrellisLV2
import TrellisUnits

/// A backend's MIDI input for one cycle: messages on ports at frames, as a JACK head
/// node hands them to the engine.
final class MIDIScript: @unchecked Sendable {
    private let bytes: UnsafeMutablePointer<UInt8>
    private let events: UnsafeMutablePointer<MIDIEvent>
    private let count: UnsafeMutablePointer<Int>

    /// `messages` in frame order: (frame, port, status, data1, data2).
    init(_ messages: [(frame: Int, port: Int, status: UInt8, data1: UInt8, data2: UInt8)]) {
        bytes = .allocate(capacity: max(1, 3 * messages.count))
        events = .allocate(capacity: max(1, messages.count))
        count = .allocate(capacity: 1)
        count.initialize(to: messages.count)
        for (index, message) in messages.enumerated() {
            let start = bytes + 3 * index
            start[0] = message.status
            start[1] = message.data1
            start[2] = message.data2
            (events + index).initialize(to: MIDIEvent(frame: message.frame, port: message.port, bytes: UnsafeBufferPointer(start: start, count: 3)))
        }
    }

    deinit {
        bytes.deallocate()
        events.deallocate()
        count.deallocate()
    }

    var view: MIDIInputView { MIDIInputView(events: UnsafePointer(events), counter: UnsafePointer(count)) }
}

/// Renders one cycle of `graph` with `midi` and returns the output channels; MIDI the
/// graph sends to the backend's ports lands in `midiOutput`.
func renderCycle(
    _ graph: Graph, frames: Int = 512, channels: Int = 2, midi: MIDIScript?, midiOutput: MIDIBufferStorage? = nil
) -> [[Float]] {
    let out = AudioBufferList(channelCount: channels, frameCapacity: frames)
    for port in 0..<(midiOutput?.count ?? 0) { midiOutput![port].clear() }
    let status = graph.engine.render(
        frameCount: frames, timeStamp: .zero, input: .empty, output: out[0], midiInput: midi?.view, midiOutput: midiOutput?.buses ?? .none)
    #expect(status == .ok)
    return (0..<channels).map { out.samples(channel: $0, frameCount: frames) }
}

func notes(_ buffer: MIDIBuffer) -> [(offset: Int32, status: UInt8, note: UInt8)] {
    (0..<buffer.count).map { (buffer[$0].offset, buffer[$0].status, buffer[$0].data1) }
}

@Suite("MIDI buses in the graph")
struct MIDIBusTests {
    @Test("eg-fifths between a MIDI input and an instrument plays the fifth above every note, in the same cycle")
    func fifthsPlayTheFifth() throws {
        let throughFifths = Graph(registry: BuiltInUnits.registry(), maximumFrames: 512)
        let keys = try throughFifths.addNode(MIDIInputPort(port: 0), name: "keys")
        let fifths = try throughFifths.addNode(makeUnit(Fixture.fifths, maxFrames: 512), name: "fifths")
        let piano = try throughFifths.addNode(makeUnit(Fixture.epiano, maxFrames: 512), name: "piano")
        let out = try throughFifths.addNode(named: "output")
        try throughFifths.connectMIDI(keys, to: fifths)
        try throughFifths.connectMIDI(fifths, to: piano)
        try throughFifths.connect(piano, to: out)
        try throughFifths.initialize()

        let direct = Graph(registry: BuiltInUnits.registry(), maximumFrames: 512)
        let directKeys = try direct.addNode(MIDIInputPort(port: 0), name: "keys")
        let directPiano = try direct.addNode(makeUnit(Fixture.epiano, maxFrames: 512), name: "piano")
        try direct.connectMIDI(directKeys, to: directPiano)
        try direct.connect(directPiano, to: try direct.addNode(named: "output"))
        try direct.initialize()

        let played = renderCycle(throughFifths, midi: MIDIScript([(200, 0, 0x90, 60, 100)]))
        let expected = renderCycle(direct, midi: MIDIScript([(200, 0, 0x90, 60, 100), (200, 0, 0x90, 67, 100)]))
        let rootOnly = renderCycle(direct, midi: MIDIScript([(200, 0, 0x90, 60, 100)]))
        #expect(played[0][0..<200].allSatisfy { $0 == 0 }, "silent before the note")
        #expect(played[0][200...].contains { $0 != 0 }, "sounding from the note's frame, in the cycle the note came in")
        #expect(played == expected, "the piano hears the note and its fifth at the note's frame")
        #expect(played != rootOnly)
    }

    @Test("a MIDI input port feeds only the instruments connected to it")
    func portFeedsOnlyItsInstrument() throws {
        let graph = Graph(registry: BuiltInUnits.registry(), maximumFrames: 512)
        let keysA = try graph.addNode(MIDIInputPort(port: 0), name: "keys_a")
        let keysB = try graph.addNode(MIDIInputPort(port: 1), name: "keys_b")
        let pianoA = try graph.addNode(makeUnit(Fixture.epiano, maxFrames: 512), name: "piano_a")
        let pianoB = try graph.addNode(makeUnit(Fixture.epiano, maxFrames: 512), name: "piano_b")
        let merger = try graph.addNode(Merger(inputs: [2, 2]), name: "both")
        let out = try graph.addNode(GenericOutput(channelCount: 4), name: "out")
        try graph.connectMIDI(keysA, to: pianoA)
        try graph.connectMIDI(keysB, to: pianoB)
        try graph.connect(pianoA, to: merger, 0)
        try graph.connect(pianoB, to: merger, 1)
        try graph.connect(merger, to: out)
        try graph.initialize()

        let output = renderCycle(graph, channels: 4, midi: MIDIScript([(10, 1, 0x90, 64, 100)]))
        #expect(output[0].allSatisfy { $0 == 0 } && output[1].allSatisfy { $0 == 0 }, "piano_a hears nothing")
        #expect(output[2].contains { $0 != 0 }, "piano_b plays the note on its port")
    }

    @Test("the MIDI of several outputs reaches one input merged in time order, and one output feeds several inputs")
    func fanInAndFanOut() throws {
        let graph = Graph(registry: BuiltInUnits.registry(), maximumFrames: 256)
        let keysA = try graph.addNode(MIDIInputPort(port: 0), name: "keys_a")
        let keysB = try graph.addNode(MIDIInputPort(port: 1), name: "keys_b")
        let thru = try graph.addNode(MIDIOutputPort(port: 0), name: "thru")
        let copy = try graph.addNode(MIDIOutputPort(port: 1), name: "copy")
        try graph.connectMIDI(keysA, to: thru)
        try graph.connectMIDI(keysB, to: thru)
        try graph.connectMIDI(keysB, to: copy)
        try graph.initialize()
        let sent = MIDIBufferStorage(count: 2, capacity: 64)
        _ = renderCycle(graph, frames: 256, midi: MIDIScript([
            (5, 1, 0x90, 1, 1), (9, 0, 0x90, 2, 1), (9, 1, 0x90, 3, 1), (100, 0, 0x80, 2, 0), (100, 1, 0x80, 3, 0),
        ]), midiOutput: sent)
        #expect(notes(sent[0]).map(\.offset) == [5, 9, 9, 100, 100])
        #expect(notes(sent[0]).map(\.note) == [1, 2, 3, 2, 3], "equal frames keep the order of the connections")
        #expect(notes(sent[1]).map(\.note) == [1, 3, 3])
    }

    @Test("a bypassed MIDI processor passes its MIDI through unchanged")
    func bypassedProcessorPassesMIDI() throws {
        let graph = Graph(registry: BuiltInUnits.registry(), maximumFrames: 256)
        let keys = try graph.addNode(MIDIInputPort(port: 0), name: "keys")
        let fifthsUnit = try makeUnit(Fixture.fifths, maxFrames: 256)
        let fifths = try graph.addNode(fifthsUnit, name: "fifths")
        let sink = try graph.addNode(MIDIOutputPort(port: 0), name: "sink")
        try graph.connectMIDI(keys, to: fifths)
        try graph.connectMIDI(fifths, to: sink)
        try graph.initialize()
        let sent = MIDIBufferStorage(count: 1, capacity: 64)
        let script = MIDIScript([(30, 0, 0x90, 60, 90)])
        _ = renderCycle(graph, frames: 256, midi: script, midiOutput: sent)
        #expect(notes(sent[0]).map(\.note) == [60, 67])
        try fifthsUnit.setProperty(.bypassEffect, .bool(true), scope: .global, element: 0)
        _ = renderCycle(graph, frames: 256, midi: script, midiOutput: sent)
        #expect(notes(sent[0]).map { [$0.offset, Int32($0.status), Int32($0.note)] } == [[30, 0x90, 60]])
    }

    @Test("the program listing shows where MIDI enters, which buffers each unit hears and writes, and where it leaves")
    func listingShowsMIDISteps() throws {
        let graph = Graph(registry: BuiltInUnits.registry(), maximumFrames: 256)
        let keys = try graph.addNode(MIDIInputPort(port: 0), name: "keys")
        let fifths = try graph.addNode(makeUnit(Fixture.fifths, maxFrames: 256), name: "fifths")
        let sink = try graph.addNode(MIDIOutputPort(port: 0), name: "sink")
        try graph.connectMIDI(keys, to: fifths)
        try graph.connectMIDI(fifths, to: sink)
        try graph.initialize()
        let lines = graph.programListing.split(separator: "\n").map(String.init)
        #expect(lines[0].hasSuffix("2 MIDI buffers"), "\(lines)")
        #expect(lines[1] == "  0: midi input port 0 -> m0 (keys midi output 0)")
        #expect(lines[2].hasPrefix("  1: render fifths") && lines[2].hasSuffix("midi in: m0>0 midi out: m1"), "\(lines[2])")
        #expect(lines[3] == "  2: m1 -> midi output port 0 (sink)")
    }

    @Test("a MIDI connection that closes a loop is refused, naming the nodes on it")
    func midiLoopRefused() throws {
        let graph = Graph(registry: BuiltInUnits.registry(), maximumFrames: 256)
        let first = try graph.addNode(makeUnit(Fixture.fifths, maxFrames: 256), name: "first")
        let second = try graph.addNode(makeUnit(Fixture.fifths, maxFrames: 256), name: "second")
        try graph.connectMIDI(first, to: second)
        #expect(throws: GraphError.self) { try graph.connectMIDI(second, to: first) }
        do {
            try graph.connectMIDI(second, to: first)
        } catch {
            #expect("\(error)" == "the connection would make a cycle: second -> first -> second")
        }
        #expect(graph.midiConnections.count == 1)
    }

    @Test("a MIDI bus a unit does not have is refused with the count it has")
    func missingMIDIBusRefused() throws {
        let graph = Graph(registry: BuiltInUnits.registry(), maximumFrames: 256)
        let amp = try graph.addNode(makeUnit(Fixture.amp, maxFrames: 256), name: "amp")
        let keys = try graph.addNode(MIDIInputPort(port: 0), name: "keys")
        do {
            try graph.connectMIDI(keys, to: amp)
            Issue.record("connected MIDI to a unit without MIDI inputs")
        } catch {
            #expect("\(error)" == "amp midi input 0 does not exist (the node has 0 MIDI input buses)")
        }
    }
}
