import Foundation
import Testing
import TrellisCore
import TrellisGraph
import TrellisLV2
import TrellisSession

@Suite("MIDI in sessions")
struct MIDISessionTests {
    static func registry() -> ComponentRegistry {
        let registry = testRegistry()
        LV2Components.addResolver(to: registry, world: LV2World())
        return registry
    }

    static let fifthsSession = """
        version: 1
        jack:
          midi-inputs: [keys]
          midi-outputs: [to_synth]
        nodes:
          fifths: { lv2: http://lv2plug.in/plugins/eg-fifths }
          piano: { lv2: http://drobilla.net/plugins/mda/EPiano }
          out: output
        connections:
          - keys -> fifths
          - fifths.midi -> piano.midi
          - fifths -> to_synth
          - piano -> out
        """

    static func loaded(_ text: String, in folder: String? = nil) throws -> LoadedSession {
        let folder = try folder ?? temporaryFolder()
        try text.write(toFile: folder + "/test.yaml", atomically: false, encoding: .utf8)
        return try SessionLoader.load(path: folder + "/test.yaml", registry: registry())
    }

    @Test("JACK MIDI ports are nodes named as the ports; connections to and from them are MIDI, the rest audio")
    func portsAreNodesAndConnectionsAreMIDI() throws {
        let session = try Self.loaded(Self.fifthsSession)
        let graph = session.graph
        let names = Dictionary(uniqueKeysWithValues: graph.nodes.map { ($0.id, $0.name) })
        let midi = graph.midiConnections.map { "\(names[$0.source]!).\($0.sourceBus) -> \(names[$0.destination]!).\($0.destinationBus)" }
        #expect(midi == ["keys.0 -> fifths.0", "fifths.0 -> piano.0", "fifths.0 -> to_synth.0"])
        #expect(graph.connections.count == 1, "piano -> out is audio")
        #expect(try graph.node(named: "keys").unit.role == .midiInputPort(0))
        #expect(try graph.node(named: "to_synth").unit.role == .midiOutputPort(0))
    }

    @Test("a save writes the MIDI ports under jack: and the MIDI connections as written, and loads back the same")
    func saveRoundTrip() throws {
        let folder = try temporaryFolder()
        let session = try Self.loaded(Self.fifthsSession, in: folder)
        try session.graph.disconnectMIDI(
            try session.graph.node(named: "fifths").id, from: try session.graph.node(named: "to_synth").id)
        try session.graph.connectMIDI(try session.graph.node(named: "keys").id, to: try session.graph.node(named: "to_synth").id)
        try session.save()
        let text = try String(contentsOfFile: folder + "/test.yaml", encoding: .utf8)
        #expect(text.contains("  midi-inputs: [keys]\n  midi-outputs: [to_synth]\n"), "\(text)")
        #expect(text.contains("  - keys -> fifths\n  - fifths.midi -> piano.midi\n"), "\(text)")
        #expect(text.contains("  - keys -> to_synth\n"), "a MIDI link made live is written plainly when the rule reads it as MIDI: \(text)")
        #expect(!text.contains("fifths -> to_synth"))
        #expect(!text.contains("midi-input\n") && !text.contains("unit: midi"), "port nodes are not written as nodes: \(text)")
        let again = try SessionLoader.load(path: folder + "/test.yaml", registry: Self.registry())
        #expect(again.graph.midiConnections.count == 3)
    }

    @Test("a MIDI port named like a node is refused at jack:, saying why")
    func portNameClash() throws {
        let error = try #require(try loadError("""
            version: 1
            jack:
              midi-inputs: [keys]
            nodes:
              keys: tone
              out: output
            connections:
              - keys -> out
            """))
        #expect(error.location.line == 3)
        #expect(error.message == "jack: MIDI port \"keys\" has the name of a node; a MIDI port is a node of the graph, so the names must differ")
    }

    @Test("convert on a connection written as MIDI is refused")
    func convertOnMIDIRefused() throws {
        let error = try #require(try loadError("""
            version: 1
            jack:
              midi-inputs: [keys]
              midi-outputs: [thru]
            nodes:
              out: output
            connections:
              - { from: keys.midi, to: thru, convert: true }
            """))
        #expect(error.message == "connection \"keys.midi -> thru\": MIDI buses have no channels to convert")
    }

    @Test("a MIDI bus written wrongly is refused at its place")
    func badMIDIBus() throws {
        let error = try #require(try loadError("""
            version: 1
            nodes:
              out: output
            connections:
              - out.midix -> out
            """))
        #expect(error.location.line == 5)
        #expect(error.message == "expected a MIDI bus like \"out.midi\" or \"out.midi1\", found \"out.midix\"")
    }

    @Test("a missing instrument becomes a placeholder with the MIDI input its connections need")
    func placeholderTakesMIDI() throws {
        let session = try load("""
            version: 1
            jack:
              midi-inputs: [keys]
            nodes:
              synth: { lv2: http://example.org/not-installed-synth }
              out: output
            connections:
              - keys -> synth
              - synth -> out
            """)
        let synth = try session.graph.node(named: "synth")
        #expect(synth.unit.midiBusCount(.input) == 1)
        #expect(session.graph.midiConnections.count == 1 && session.graph.connections.count == 1)
    }

    @Test("a subgraph's midi-inputs: are its node's MIDI buses, and a save writes them in its body")
    func subgraphPortsRoundTrip() throws {
        let folder = try temporaryFolder()
        let session = try Self.loaded("""
            version: 1
            subgraphs:
              synth:
                midi-inputs: [keys, pedal]
                nodes:
                  piano: { lv2: http://drobilla.net/plugins/mda/EPiano }
                  out: output
                connections: [keys -> piano, pedal -> piano, piano -> out]
            nodes:
              synth: { subgraph: synth }
              out: output
            connections: [synth -> out]
            """, in: folder)
        let synth = try session.graph.node(named: "synth")
        #expect(synth.unit.midiBusCount(.input) == 2 && synth.unit.midiBusCount(.output) == 0)
        #expect(synth.unit.midiBusNames(.input) == ["keys", "pedal"])
        try session.save()
        let text = try String(contentsOfFile: folder + "/test.yaml", encoding: .utf8)
        #expect(text.contains("  synth:\n    midi-inputs: [keys, pedal]\n    nodes:\n"), "\(text)")
        let again = try SessionLoader.load(path: folder + "/test.yaml", registry: Self.registry())
        #expect(try again.graph.node(named: "synth").unit.midiBusCount(.input) == 2)
    }

    @Test("a subgraph's MIDI port named like one of its nodes is refused at its midi-inputs:")
    func subgraphPortNameClash() throws {
        let error = try #require(try loadError("""
            version: 1
            subgraphs:
              synth:
                midi-inputs: [piano]
                nodes:
                  piano: tone
                  out: output
                connections: [piano -> out]
            nodes:
              synth: { subgraph: synth }
              out: output
            connections: [synth -> out]
            """))
        #expect(error.location.line == 4)
        #expect(error.message == "MIDI port \"piano\" has the name of a node; a MIDI port is a node of the graph, so the names must differ")
    }
}
