import Foundation
import Testing
import TrellisCore
import TrellisGraph
@testable import TrellisSession

@Suite("Missing plugins load as placeholders")
struct PlaceholderTests {
    static let text = """
        version: 1
        nodes:
          tone1: { unit: tone, parameters: { freq: 1000, amp: 0.5 } }
          verb:
            lv2: http://example.org/plugins/absent
            preset: Big Room
            parameters: { size: 0.8, enabled: on, mode: 017 }
            state: |
              <> <http://example.org/p#x> "1" .
          out: output
        connections:
          - tone1 -> verb
          - verb -> out

        """

    @Test("a missing plugin is a warning at its URI, and the session still loads")
    func missingPluginWarns() throws {
        let session = try load(Self.text)
        #expect(session.warnings.count == 1)
        #expect(session.warnings[0].location.line == 5 && session.warnings[0].location.column == 10)
        #expect(session.warnings[0].description.contains("warning: node \"verb\": plugin lv2:http://example.org/plugins/absent is not available"))
        #expect(session.placeholders.map(\.name) == ["verb"])
    }

    @Test("a placeholder whose buses match passes audio through unchanged")
    func passesThrough() throws {
        let session = try load(Self.text)
        let placeholder = try #require(session.placeholders.first?.unit as? PlaceholderUnit)
        #expect(placeholder.passesThrough)
        let rendered = pull(session.graph, frames: 480)
        let expected = (0..<480).map { Float(0.5 * sin(2 * Double.pi * 1000 * Double($0) / 48_000)) }
        #expect(zip(rendered[0], expected).map { abs($0 - $1) }.max()! < 1e-5)
    }

    @Test("a placeholder between different widths renders silence")
    func silenceBetweenWidths() throws {
        let text = Self.text.replacingOccurrences(of: "tone1: { unit: tone,", with: "tone1: { unit: tone, channels: 1,")
            .replacingOccurrences(of: "- verb -> out", with: "- { from: verb, to: out, convert: true }")
        let session = try load(text)
        let placeholder = try #require(session.placeholders.first?.unit as? PlaceholderUnit)
        #expect(!placeholder.passesThrough)
        #expect(pull(session.graph, frames: 256).allSatisfy { $0.allSatisfy { $0 == 0 } })
    }

    @Test("saving writes a placeholder's node back exactly as written, odd values included")
    func saveKeepsPlaceholder() throws {
        let folder = try temporaryFolder()
        let session = try load(Self.text, in: folder)
        try session.save()
        let saved = try String(contentsOfFile: folder + "/test.yaml", encoding: .utf8)
        let document = try SessionParser.parse(saved, file: "saved")
        let verb = try #require(document.graph.nodes.first { $0.name == "verb" })
        #expect(verb.source == .lv2("http://example.org/plugins/absent"))
        #expect(verb.preset == "Big Room")
        #expect(verb.parameters.map { "\($0.name)=\($0.value)" } == ["size=0.8", "enabled=on", "mode=017"])
        #expect(verb.state == "<> <http://example.org/p#x> \"1\" .\n")
    }
}


@Suite("A saved session is inert to a shell")
struct ShellInertSaveTests {
    /// Text a hostile client might leave in a placeholder's state, parameters and preset.
    static let hostile = [
        "x\n$(touch PWNED1)\n`touch PWNED2`\n; touch PWNED3\ntouch PWNED4 # \n", "a;touch PWNED5", "a|touch PWNED6",
        "a&&touch PWNED7", "a>PWNED8", "$(touch PWNED9)", "x=y touch PWNED10", "\\\"; touch PWNED11; \\\"",
    ]

    @Test("every value stays on its line: sh reading the saved file runs none of the text, and it loads back the same")
    func shellFindsNothingToRun() throws {
        let folder = try temporaryFolder()
        var document = SessionDocument(file: folder + "/saved.yaml")
        for (index, text) in Self.hostile.enumerated() {
            var node = NodeSpec(name: "n\(index)", source: .lv2("http://example.org/absent"), location: document.location)
            node.parameters = [ParameterSetting(name: "p", value: text, location: document.location)]
            node.preset = text
            node.state = text
            document.graph.nodes.append(node)
        }
        let saved = SessionWriter.text(document)
        try saved.write(toFile: folder + "/saved.yaml", atomically: false, encoding: .utf8)
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = [folder + "/saved.yaml"]
        shell.currentDirectoryURL = URL(fileURLWithPath: folder)
        shell.standardError = FileHandle.nullDevice
        shell.standardOutput = FileHandle.nullDevice
        try shell.run()
        shell.waitUntilExit()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["saved.yaml"], "\(saved)")
        let read = try SessionParser.parse(saved, file: "saved.yaml")
        for (index, text) in Self.hostile.enumerated() {
            let node = try #require(read.graph.nodes.first { $0.name == "n\(index)" })
            #expect(node.state == text && node.preset == text && node.parameters.first?.value == text, "\(text.debugDescription)")
        }
    }
}

@Suite("Saving")
struct SaveTests {
    @Test("a parameter changed on the running graph is saved and loads back")
    func liveValuesAreSaved() throws {
        let folder = try temporaryFolder()
        let session = try load(toneSession, in: folder)
        try session.graph.setParameter(session.graph.node(named: "tone1").id, "freq", 523.25)
        try session.graph.setParameter(session.graph.node(named: "gain1").id, "gain", -7.5)
        try session.save()
        let again = try SessionLoader.load(path: folder + "/test.yaml", registry: testRegistry())
        #expect(GraphSnapshot(again.graph) == GraphSnapshot(session.graph))
        #expect(try again.graph.node(named: "gain1").unit.parameterValue(.init(0)) == -7.5)
    }

    @Test("nodes and connections added to the running graph are saved")
    func structuralEditsAreSaved() throws {
        let folder = try temporaryFolder()
        let session = try load(toneSession, in: folder)
        let graph = session.graph
        let extra = try graph.addNode(named: "gain", name: "extra")
        try graph.setParameter(extra, "gain", -3)
        try graph.disconnect(graph.node(named: "out").id)
        try graph.connect(graph.node(named: "gain1").id, to: extra)
        try graph.connect(extra, to: graph.node(named: "out").id)
        try session.save()
        let again = try SessionLoader.load(path: folder + "/test.yaml", registry: testRegistry())
        #expect(GraphSnapshot(again.graph) == GraphSnapshot(graph))
    }

    @Test("a bypass turned on while running is saved, and loads back bypassed")
    func bypassIsSaved() throws {
        let folder = try temporaryFolder()
        let session = try load(toneSession, in: folder)
        try session.graph.node(named: "gain1").unit.setProperty(.bypassEffect, .bool(true), scope: .global, element: 0)
        try session.save()
        let saved = try SessionParser.parse(String(contentsOfFile: folder + "/test.yaml", encoding: .utf8), file: "saved")
        #expect(saved.graph.nodes.first { $0.name == "gain1" }?.bypass == true)
        let again = try SessionLoader.load(path: folder + "/test.yaml", registry: testRegistry())
        #expect(try again.graph.node(named: "gain1").unit.property(.bypassEffect, scope: .global, element: 0) == .bool(true))
    }

    @Test("a save leaves no temporary file behind")
    func noTemporaryLeft() throws {
        let folder = try temporaryFolder()
        try load(toneSession, in: folder).save()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["test.yaml"])
    }

    @Test("text with quotes, colons, newlines and YAML words survives a save")
    func awkwardTextSurvives() throws {
        let awkward = ["on", "no", "017", "1:30", "a: b", "# x", "-x", "\"q\"", "tab\there", "two\nlines", " lead", "trail ", "", "ünï", "[x]"]
        for text in awkward {
            var document = SessionDocument(file: "t")
            var node = NodeSpec(name: "n", source: .lv2("http://x/y"), location: document.location)
            node.parameters = [ParameterSetting(name: "p", value: text, location: document.location)]
            node.preset = text
            node.state = text
            document.graph.nodes = [node]
            let read = try SessionParser.parse(SessionWriter.text(document), file: "t")
            #expect(read.graph.nodes.first?.parameters.first?.value == text, "\(text.debugDescription)")
            #expect(read.graph.nodes.first?.preset == text, "\(text.debugDescription)")
            #expect(read.graph.nodes.first?.state == text, "\(text.debugDescription)")
        }
    }
}
