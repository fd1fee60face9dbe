import Foundation
import Testing
@testable import TrellisSession

/// A small valid session; tests break one thing in it at a time.
let toneSession = """
    version: 1
    nodes:
      tone1:
        unit: tone
        parameters:
          freq: 440
      gain1: gain
      out: output
    connections:
      - tone1 -> gain1
      - gain1 -> out

    """

func replacing(_ old: String, with new: String, in text: String = toneSession) -> String {
    precondition(text.contains(old), "fixture lacks \(old)")
    return text.replacingOccurrences(of: old, with: new)
}

@Suite("Load errors name file, line, column and what was expected")
struct LoadErrorTests {
    @Test("an unknown key is an error that suggests the closest key")
    func unknownKeySuggests() throws {
        let error = try #require(try loadError(replacing("    parameters:", with: "    paramters:")))
        #expect(error.location.line == 5 && error.location.column == 5)
        #expect(error.message.contains("unknown key \"paramters\"") && error.message.contains("did you mean parameters?"))
        #expect(error.description.hasSuffix("test.yaml:5:5: " + error.message))
    }

    @Test("a missing unit names the closest short name")
    func unknownUnit() throws {
        let error = try #require(try loadError(replacing("gain1: gain", with: "gain1: gian")))
        #expect(error.location.line == 7 && error.location.column == 10)
        #expect(error.message.contains("did you mean gain?"))
    }

    @Test("an unknown parameter is placed at its name")
    func unknownParameter() throws {
        let error = try #require(try loadError(replacing("freq: 440", with: "frequ: 440")))
        #expect(error.location.line == 6 && error.location.column == 7)
        #expect(error.message.contains("no parameter named \"frequ\"") && error.message.contains("freq"))
    }

    @Test("a value out of range is placed at the value and gives the range")
    func valueOutOfRange() throws {
        let error = try #require(try loadError(replacing("freq: 440", with: "freq: 200000")))
        #expect(error.location.line == 6 && error.location.column == 13)
        #expect(error.message.contains("outside the range of freq, 0.01...100000 Hz"))
    }

    @Test("YAML octal, hexadecimal and base-60 numbers are refused, not misread")
    func yamlNumberSurprises() throws {
        for (text, reason) in [("0o17", "octal"), ("017", "leading zero"), ("0x1F", "hexadecimal"), ("1:30", "base-60")] {
            let error = try #require(try loadError(replacing("freq: 440", with: "freq: \(text)")), "\(text)")
            #expect(error.message.contains(reason), "\(text): \(error.message)")
            #expect(error.location.line == 6)
        }
    }

    @Test("yes/no/on/off are not booleans for a boolean field")
    func yamlBooleanSurprises() throws {
        for word in ["yes", "no", "on", "off"] {
            let error = try #require(try loadError(replacing("gain1: gain", with: "gain1: { unit: gain, bypass: \(word) }")))
            #expect(error.message.contains("true or false"), "\(word)")
        }
        let session = try load(replacing("gain1: gain", with: "gain1: { unit: gain, bypass: true }"))
        #expect(try session.graph.node(named: "gain1").unit.isBypassed)
    }

    @Test("on/off set an on/off parameter and are refused for a number parameter")
    func onOffOnlyForToggles() throws {
        let session = try load(replacing("gain1: gain", with: "gain1: { unit: switch, parameters: { enabled: on } }"))
        #expect(try session.graph.node(named: "gain1").unit.parameterValue(.init(0)) == 1)
        let error = try #require(try loadError(replacing("gain1: gain", with: "gain1: { unit: gain, parameters: { gain: off } }")))
        #expect(error.message.contains("on/off words are accepted only for on/off parameters"))
    }

    @Test("an enumeration parameter takes its value names")
    func enumerationByName() throws {
        let session = try load(replacing("freq: 440", with: "waveform: square"))
        #expect(try session.graph.node(named: "tone1").unit.parameterValue(.init(0)) == 1)
    }

    @Test("a connection to an unknown node is placed at the connection")
    func connectionToUnknownNode() throws {
        let error = try #require(try loadError(replacing("- gain1 -> out", with: "- gain1 -> outt")))
        #expect(error.location.line == 11 && error.location.column == 5)
        #expect(error.message.contains("no node named \"outt\" (did you mean out?)"))
    }

    @Test("fan-out is an error that asks for a splitter")
    func fanOut() throws {
        let text = replacing("  out: output", with: "  out: output\n  gain2: gain") + "  - tone1 -> gain2\n"
        let error = try #require(try loadError(text))
        #expect(error.location.line == 13)
        #expect(error.message.contains("fan-out needs a splitter"))
    }

    @Test("a cycle is an error that names the nodes on it")
    func cycle() throws {
        let text = """
            version: 1
            nodes:
              a: merger
              b: splitter
              out: output
            connections:
              - a -> b
              - b.0 -> a.0
            """
        let error = try #require(try loadError(text))
        #expect(error.location.line == 8)
        #expect(error.message.contains("cycle"))
    }

    @Test("a format mismatch is placed at the connection")
    func formatMismatch() throws {
        let error = try #require(try loadError(replacing("gain1: gain", with: "gain1: { unit: gain, channels: 1 }")))
        #expect(error.location.line == 10)
        #expect(error.message.contains("format mismatch"))
    }

    @Test("a missing audio file is placed at the file name")
    func missingAudioFile() throws {
        let error = try #require(try loadError(replacing("gain1: gain", with: "gain1: { unit: gain, file: nowhere.wav }")))
        #expect(error.location.line == 7 && error.location.column == 30)
        #expect(error.message.contains("nowhere.wav does not exist"))
    }

    @Test("a session file that includes itself as a subgraph is refused")
    func selfInclusion() throws {
        let text = replacing("gain1: gain", with: "gain1: { subgraph: me }") + "subgraphs:\n  me: { file: test.yaml }\n"
        let error = try #require(try loadError(text))
        #expect(error.message.contains("includes itself"))
        #expect(error.location.line == 13)
    }

    @Test("a repeated key is an error at the second one")
    func repeatedKey() throws {
        let error = try #require(try loadError(replacing("  out: output", with: "  out: output\n  gain1: gain")))
        #expect(error.location.line == 9)
        #expect(error.message.contains("appears twice"))
    }

    @Test("broken YAML is an error at the place the parser stopped")
    func brokenYAML() throws {
        let error = try #require(try loadError(replacing("- tone1 -> gain1", with: "- [tone1 -> gain1")))
        #expect(error.location.line >= 10)
        #expect(error.message.hasPrefix("not valid YAML"))
    }

    @Test("a session without an output node says how to add one")
    func noOutput() throws {
        let text = "version: 1\nnodes:\n  tone1: tone\n"
        let error = try #require(try loadError(text))
        #expect(error.message.contains("no output node"))
    }

    @Test("a JACK port count that does not match the output node is an error at the ports")
    func jackPortCount() throws {
        let text = toneSession + "jack:\n  client: t\n  outputs: [left, right, center]\n  connect:\n    - left -> system:playback_1\n"
        let error = try #require(try loadError(text))
        #expect(error.location.line == 14)
        #expect(error.message.contains("3 output ports"))
    }

    @Test("a JACK connection to a port the client does not have is an error that suggests one")
    func jackUnknownPort() throws {
        let text = toneSession + "jack:\n  outputs: [left, right]\n  connect:\n    - lefft -> system:playback_1\n"
        let error = try #require(try loadError(text))
        #expect(error.location.line == 15)
        #expect(error.message.contains("did you mean left?"))
    }

    @Test("jack: cpu-latency other than auto, hold or off is an error at the value")
    func jackCPULatency() throws {
        let error = try #require(try loadError(toneSession + "jack:\n  cpu-latency: sometimes\n"))
        #expect(error.location.line == 13 && error.location.column == 16)
        #expect(error.message.contains("auto, hold or off"))
        #expect(error.message.contains("\"sometimes\""))
    }

    @Test("isolate other than true, false, yes or no is an error that names all four, for the session and for a node",
          arguments: [(toneSession + "isolate: maybe\n", 12), (replacing("gain1: gain", with: "gain1: { unit: gain, isolate: maybe }"), 7)])
    func isolateSpellings(text: String, line: Int) throws {
        let error = try #require(try loadError(text))
        #expect(error.location.line == line)
        #expect(error.message.contains("\"maybe\""), "\(error.message)")
        #expect(error.message.contains("true, false, yes or no"), "\(error.message)")
    }

    @Test("jack: cpu-latency is kept through a save")
    func jackCPULatencySaved() throws {
        let folder = try temporaryFolder()
        let session = try load(toneSession + "jack:\n  cpu-latency: hold\n", in: folder)
        #expect(session.loadedDocument.jack?.cpuLatency == "hold")
        try session.save()
        let text = try String(contentsOfFile: folder + "/test.yaml", encoding: .utf8)
        #expect(text.contains("jack:\n  cpu-latency: hold\n"), "\(text)")
    }

    @Test("version 2 is refused")
    func otherVersion() throws {
        let error = try #require(try loadError(replacing("version: 1", with: "version: 2")))
        #expect(error.location.line == 1 && error.location.column == 10)
    }
}
