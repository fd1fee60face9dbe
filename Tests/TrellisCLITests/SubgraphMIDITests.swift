import Foundation
import Testing
import TrellisTestSupport

/// MIDI crossing subgraph boundaries: a subgraph's `midi-inputs:` and `midi-outputs:`
/// are its node's MIDI buses. Each nested session must render exactly what the same
/// units wired in one flat graph render.
@Suite("MIDI through subgraphs")
struct SubgraphMIDITests {
    static let piano = "http://drobilla.net/plugins/mda/EPiano"

    /// A folder holding the two-track song, and the session `text` written there.
    static func session(_ text: String, named name: String = "session.yaml", in folder: String? = nil) throws -> String {
        let folder = folder ?? (temporaryPath("song.mid") as NSString).deletingLastPathComponent
        let song = folder + "/song.mid"
        if !FileManager.default.fileExists(atPath: song) { try Data(TestMIDIFile.twoTrackSong).write(to: URL(fileURLWithPath: song)) }
        try text.write(toFile: folder + "/" + name, atomically: true, encoding: .utf8)
        return folder + "/" + name
    }

    /// The first channel of `session` rendered for four seconds.
    static func rendered(_ session: String) throws -> [Float] {
        let output = session.replacingOccurrences(of: ".yaml", with: ".wav")
        let result = try trellis(["render", session, "-o", output, "--duration", "4"])
        try #require(result.status == 0, "\(result.stderr)")
        return try firstChannel(ofFile: output)
    }

    static let flat = """
        version: 1
        defaults: { sample-rate: 48000, block-size: 256 }
        nodes:
          song: { unit: midi-player, file: song.mid }
          piano: { lv2: \(piano) }
          out: { unit: output, channels: 2 }
        connections: [song -> piano -> out]
        """

    /// The flat session's units with the instrument inside a subgraph, fed on its `keys`.
    static let instrumentInside = """
        version: 1
        defaults: { sample-rate: 48000, block-size: 256 }
        subgraphs:
          synth:
            midi-inputs: [keys]
            nodes:
              piano: { lv2: \(piano) }
              out: { unit: output, channels: 2 }
            connections: [keys -> piano -> out]
        nodes:
          song: { unit: midi-player, file: song.mid }
          synth: { subgraph: synth }
          out: { unit: output, channels: 2 }
        connections: [song -> synth -> out]
        """

    @Test("a MIDI file player inside a subgraph plays an instrument outside it, as in one flat graph")
    func playerInsideInstrumentOutside() throws {
        let expected = try Self.rendered(try Self.session(Self.flat))
        #expect(soundOnsets(expected) == TestMIDIFile.twoTrackOnsets)
        let nested = try Self.session("""
            version: 1
            defaults: { sample-rate: 48000, block-size: 256 }
            subgraphs:
              band:
                midi-outputs: [notes]
                nodes:
                  song: { unit: midi-player, file: song.mid }
                connections: [song -> notes]
            nodes:
              band: { subgraph: band }
              piano: { lv2: \(Self.piano) }
              out: { unit: output, channels: 2 }
            connections: [band -> piano -> out]
            """)
        #expect(try Self.rendered(nested) == expected)
    }

    @Test("an instrument inside a subgraph plays from a MIDI file player outside it, as in one flat graph")
    func playerOutsideInstrumentInside() throws {
        let expected = try Self.rendered(try Self.session(Self.flat))
        #expect(try Self.rendered(try Self.session(Self.instrumentInside)) == expected)
    }

    @Test("MIDI passes through two levels, into a subgraph file whose jack: midi-inputs: are its MIDI buses")
    func nestedAndFromAFile() throws {
        let expected = try Self.rendered(try Self.session(Self.flat))
        let folder = (try Self.session(Self.flat)) as NSString
        _ = try Self.session("""
            version: 1
            defaults: { sample-rate: 48000, block-size: 256 }
            jack:
              midi-inputs: [keys]
            nodes:
              piano: { lv2: \(Self.piano) }
              out: { unit: output, channels: 2 }
            connections: [keys -> piano -> out]
            """, named: "instrument.yaml", in: folder.deletingLastPathComponent)
        let nested = try Self.session("""
            version: 1
            defaults: { sample-rate: 48000, block-size: 256 }
            subgraphs:
              instrument: { file: instrument.yaml }
              rack:
                midi-inputs: [in]
                nodes:
                  inner: { subgraph: instrument }
                  out: { unit: output, channels: 2 }
                connections: [in -> inner -> out]
            nodes:
              song: { unit: midi-player, file: song.mid }
              rack: { subgraph: rack }
              out: { unit: output, channels: 2 }
            connections: [song -> rack -> out]
            """, named: "nested.yaml", in: folder.deletingLastPathComponent)
        let result = try trellis(["validate", nested])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("ignored"), "a file's MIDI ports are used, not ignored: \(result.stderr)")
        #expect(try Self.rendered(nested) == expected)
    }

    @Test("MIDI fans in across a boundary: two players, one outside and one inside, reach one instrument")
    func fanInAcrossABoundary() throws {
        let doubled = try Self.session("""
            version: 1
            defaults: { sample-rate: 48000, block-size: 256 }
            nodes:
              song: { unit: midi-player, file: song.mid }
              again: { unit: midi-player, file: song.mid }
              piano: { lv2: \(Self.piano) }
              out: { unit: output, channels: 2 }
            connections: [song -> piano, again -> piano, piano -> out]
            """)
        let expected = try Self.rendered(doubled)
        let nested = try Self.session("""
            version: 1
            defaults: { sample-rate: 48000, block-size: 256 }
            subgraphs:
              synth:
                midi-inputs: [keys]
                nodes:
                  again: { unit: midi-player, file: song.mid }
                  piano: { lv2: \(Self.piano) }
                  out: { unit: output, channels: 2 }
                connections: [keys -> piano, again -> piano, piano -> out]
            nodes:
              song: { unit: midi-player, file: song.mid }
              synth: { subgraph: synth }
              out: { unit: output, channels: 2 }
            connections: [song -> synth -> out]
            """, named: "fan.yaml", in: (doubled as NSString).deletingLastPathComponent)
        #expect(try Self.rendered(nested) == expected)
    }

    @Test("a bypassed subgraph passes no MIDI out of it")
    func bypassedSubgraphSendsNothing() throws {
        let nested = try Self.session("""
            version: 1
            defaults: { sample-rate: 48000, block-size: 256 }
            subgraphs:
              band:
                midi-outputs: [notes]
                nodes:
                  song: { unit: midi-player, file: song.mid }
                connections: [song -> notes]
            nodes:
              band: { subgraph: band, bypass: true }
              piano: { lv2: \(Self.piano) }
              out: { unit: output, channels: 2 }
            connections: [band -> piano -> out]
            """)
        #expect(try Self.rendered(nested).allSatisfy { $0 == 0 })
    }

    @Test("a MIDI bus a subgraph does not have is an error at the connection that names it")
    func missingBusIsAnError() throws {
        let nested = try Self.session("""
            version: 1
            subgraphs:
              band:
                midi-outputs: [notes]
                nodes:
                  song: { unit: midi-player, file: song.mid }
                connections: [song -> notes]
            nodes:
              band: { subgraph: band }
              piano: { lv2: \(Self.piano) }
              out: { unit: output, channels: 2 }
            connections:
              - band.midi1 -> piano.midi
              - piano -> out
            """)
        let result = try trellis(["validate", nested])
        #expect(result.status != 0)
        #expect(result.stderr.contains("session.yaml:13:"), "\(result.stderr)")
        #expect(result.stderr.contains("band"), "\(result.stderr)")
    }

    @Test("the graph's picture draws a MIDI connection into a subgraph to the port node inside")
    func pictureEndsAtThePort() throws {
        let nested = try Self.session(Self.instrumentInside)
        let dot = nested.replacingOccurrences(of: ".yaml", with: ".dot")
        let result = try trellis(["graph", nested, "-o", dot])
        #expect(result.status == 0, "\(result.stderr)")
        let text = try String(contentsOfFile: dot, encoding: .utf8)
        #expect(text.contains(#""song" -> "synth/keys" [style=dashed"#), "\(text)")
        #expect(text.contains(#""synth/out" -> "out" [ltail="cluster_synth"]"#), "\(text)")
    }

    @Test("MIDI reaching an instrument by two routes at each of 20 nested levels arrives once, as in the flat graph, and compiles at once")
    func manyRoutesArriveOnce() throws {
        let expected = try Self.rendered(try Self.session(Self.flat))
        var text = """
            version: 1
            defaults: { sample-rate: 48000, block-size: 256 }
            subgraphs:

            """
        for level in 0..<20 {
            text += """
                  level\(level):
                    midi-inputs: [a, b]
                    nodes:
                      inner: { subgraph: level\(level + 1) }
                      out: { unit: output, channels: 2 }
                    connections: [a -> inner.midi, b -> inner.midi, a -> inner.midi1, b -> inner.midi1, inner -> out]

                """
        }
        text += """
                  level20:
                    midi-inputs: [a, b]
                    nodes:
                      piano: { lv2: \(Self.piano) }
                      out: { unit: output, channels: 2 }
                    connections: [a -> piano, b -> piano, piano -> out]
                nodes:
                  song: { unit: midi-player, file: song.mid }
                  rack: { subgraph: level0 }
                  out: { unit: output, channels: 2 }
                connections: [song -> rack.midi, song -> rack.midi1, rack -> out]
                """
        let nested = try Self.session(text, named: "routes.yaml")
        #expect(try Self.rendered(nested) == expected, "2^21 routes, one note each")
    }
}
