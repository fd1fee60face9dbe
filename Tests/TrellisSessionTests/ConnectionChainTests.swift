import Foundation
import Testing
import TrellisAudioFile
import TrellisCore
import TrellisGraph
import TrellisSession

@Suite("Session ergonomics: chains in connections, anchors and merge keys")
struct ConnectionChainTests {
    @Test("a chain a -> b -> c connects each neighbouring pair, buses as written")
    func chainExpands() throws {
        let document = try SessionParser.parse("""
            version: 1
            nodes: { in: { unit: input, outputs: 2, channels: 1 }, a: gain, b: gain, m: { unit: mixer, inputs: 2 }, out: output }
            connections: [in.1 -> a -> b -> m.1]
            """, file: "chain.yaml")
        let pairs = document.graph.connections.map { "\($0.from)>\($0.to)" }
        #expect(pairs == ["in.1>a", "a>b", "b>m.1"])
        #expect(Set(document.graph.connections.map(\.location)).count == 1, "each pair is placed at the chain's item")
    }

    @Test("a chain is saved as the chain it was written as")
    func chainRoundTrip() throws {
        let text = """
            version: 1
            nodes:
              in: { unit: input, channels: 1 }
              a: { unit: gain, channels: 1 }
              b: { unit: gain, channels: 1 }
              out: { unit: output, channels: 1 }
            connections:
              - in -> a -> b -> out  # the whole strip
            """
        let saved = SessionWriter.text(try SessionParser.parse(text, file: "chain.yaml"))
        #expect(saved.contains("  - in -> a -> b -> out  # the whole strip"), "\(saved)")
    }

    @Test("a merge key brings in an anchored node's settings; the node's own keys win")
    func mergeKey() throws {
        let loaded = try load("""
            version: 1
            nodes:
              in: { unit: input, channels: 1 }
              a: &base { unit: gain, channels: 1, parameters: { gain: -6 } }
              b: { <<: *base, parameters: { gain: -12 } }
              c: *base
              out: { unit: output, channels: 1 }
            connections: [in -> a -> b -> c -> out]
            """)
        func gain(_ name: String) throws -> Float {
            try loaded.graph.unit(loaded.graph.node(named: name).id).parameterValue(ParameterAddress(0))
        }
        #expect(try gain("a") == -6 && gain("b") == -12 && gain("c") == -6)
    }

    @Test("a merge key naming something other than a mapping is an error at its value")
    func badMerge() throws {
        let error = try #require(try loadError("""
            version: 1
            nodes:
              a: { <<: 3, unit: gain }
              out: output
            connections: [a -> out]
            """))
        #expect(error.description.contains("test.yaml:3:12:") && error.message.contains("merge key"), "\(error)")
    }

    @Test("anchors that merge each other ten at a time are refused at once, not expanded ten billion times")
    func mergeBomb() throws {
        var text = "version: 1\nnodes:\n  a0: &a0 { unit: gain }\n"
        for level in 1...10 {
            text += "  a\(level): &a\(level) { <<: [\(Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", "))] }\n"
        }
        text += "  out: output\nconnections: [a10 -> out]\n"
        let started = Date()
        let error = try #require(try loadError(text))
        #expect(error.message.contains("merge keys bring in more than 10000 entries"), "\(error)")
        #expect(error.others.isEmpty, "one error, not one per node")
        #expect(Date().timeIntervalSince(started) < 5)
    }

    @Test("Sessions/live-mix.yaml, rewritten with chains and anchors at under half the length, renders bit for bit as the long form did")
    func liveMixRewritten() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sessions/live-mix.yaml").path
        let short = try String(contentsOfFile: path, encoding: .utf8)
        let long = Self.longLiveMix
        #expect(short.split(separator: "\n").count * 2 < long.split(separator: "\n").count, "\(short.split(separator: "\n").count) lines against \(long.split(separator: "\n").count)")
        func render(_ text: String) throws -> [[Float]] {
            let loaded = try load(text, name: "live-mix.yaml")
            var inputs = Array(repeating: [Float](repeating: 0, count: 48_000), count: 8)
            for frame in 0..<48_000 {
                for channel in 0..<8 {
                    inputs[channel][frame] = Float(0.4 * sin(2 * Double.pi * Double(100 + 97 * channel) * Double(frame) / 48_000))
                }
            }
            return TrellisSessionTests.render(loaded.graph, frames: 48_000, input: inputs)
        }
        let a = try render(short), b = try render(long)
        #expect(a.count == 2 && a == b)
        #expect(a[0].contains { $0 != 0 })
    }

    /// Sessions/live-mix.yaml as it was written before chains and anchors.
    static let longLiveMix = """
        # A live mix of 8 inputs: each through an EQ and a 3D panner, then a mixer, a limiter
        # and out to a stereo pair of JACK ports.
        version: 1
        defaults:
          sample-rate: 48000
          block-size: 128
        jack:
          client: trellis-live
          inputs: [mic1, mic2, mic3, mic4, mic5, mic6, mic7, mic8]
          outputs: [left, right]
          connect:
            - "system:capture_[1-8] -> mic[1-8]"
            - left -> system:playback_1
            - right -> system:playback_2
        nodes:
          in:
            unit: input
            outputs: 8               # one mono bus per JACK input port
            channels: 1
          eq1: { unit: eq, channels: 1, parameters: { band0.type: highpass, band0.freq: 80 } }
          eq2: { unit: eq, channels: 1, parameters: { band0.type: highpass, band0.freq: 80 } }
          eq3: { unit: eq, channels: 1, parameters: { band0.type: highpass, band0.freq: 120 } }
          eq4: { unit: eq, channels: 1, parameters: { band0.type: highpass, band0.freq: 120 } }
          eq5: { unit: eq, channels: 1 }
          eq6: { unit: eq, channels: 1 }
          eq7: { unit: eq, channels: 1, parameters: { gain: -3 } }
          eq8: { unit: eq, channels: 1, parameters: { gain: -3 } }
          pan1: { unit: mixer3d, inputs: 1, input-channels: 1, output-channels: 2 }
          pan2: { unit: mixer3d, inputs: 1, input-channels: 1, output-channels: 2 }
          pan3: { unit: mixer3d, inputs: 1, input-channels: 1, output-channels: 2 }
          pan4: { unit: mixer3d, inputs: 1, input-channels: 1, output-channels: 2 }
          pan5: { unit: mixer3d, inputs: 1, input-channels: 1, output-channels: 2 }
          pan6: { unit: mixer3d, inputs: 1, input-channels: 1, output-channels: 2 }
          pan7: { unit: mixer3d, inputs: 1, input-channels: 1, output-channels: 2 }
          pan8: { unit: mixer3d, inputs: 1, input-channels: 1, output-channels: 2 }
          mix:
            unit: mixer
            inputs: 8
            parameters:
              volume: 0.8
          limit:
            unit: limiter
            parameters:
              ceiling: -1
          out: output
        connections:
          - in.0 -> eq1
          - in.1 -> eq2
          - in.2 -> eq3
          - in.3 -> eq4
          - in.4 -> eq5
          - in.5 -> eq6
          - in.6 -> eq7
          - in.7 -> eq8
          - eq1 -> pan1
          - eq2 -> pan2
          - eq3 -> pan3
          - eq4 -> pan4
          - eq5 -> pan5
          - eq6 -> pan6
          - eq7 -> pan7
          - eq8 -> pan8
          - pan1 -> mix.0
          - pan2 -> mix.1
          - pan3 -> mix.2
          - pan4 -> mix.3
          - pan5 -> mix.4
          - pan6 -> mix.5
          - pan7 -> mix.6
          - pan8 -> mix.7
          - mix -> limit
          - limit -> out
        """
}
