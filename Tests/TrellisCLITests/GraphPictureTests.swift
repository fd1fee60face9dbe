import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
import TrellisTestSupport

@Suite("trellis graph")
struct GraphPictureTests {
    static let sessions = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sessions").path

    /// A PNG's width and height from its IHDR chunk, after checking its signature.
    static func pngSize(_ data: Data) -> (width: Int, height: Int)? {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard data.count > 24, Array(data.prefix(8)) == signature, String(decoding: data[12..<16], as: UTF8.self) == "IHDR" else { return nil }
        func big(_ range: Range<Int>) -> Int { data[range].reduce(0) { $0 << 8 | Int($1) } }
        return (big(16..<20), big(20..<24))
    }

    @Test("the demo session's graph is drawn as an SVG that parses as XML and names every node")
    func demoAsSVG() throws {
        let picture = temporaryPath("demo.svg")
        let result = try trellis(["graph", Self.sessions + "/demo.yaml", "-o", picture])
        #expect(result.status == 0, "\(result.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: picture))
        let document = try XMLDocument(data: data)
        #expect(document.rootElement()?.name == "svg")
        let text = String(decoding: data, as: UTF8.self)
        let dot = temporaryPath("demo.dot")
        #expect(try trellis(["graph", Self.sessions + "/demo.yaml", "-o", dot]).status == 0)
        let source = try String(contentsOfFile: dot, encoding: .utf8)
        let names = source.split(separator: "\n").compactMap { line -> String? in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("\""), trimmed.contains(" [label=") else { return nil }
            return String(trimmed.dropFirst().prefix { $0 != "\"" })
        }
        #expect(!names.isEmpty)
        for name in names { #expect(text.contains(">\(name)<"), "the SVG shows \(name)") }
    }

    @Test("a PNG decodes with a plausible size; validate --graph draws the same graph")
    func pngAndValidate() throws {
        let picture = temporaryPath("live-mix.png")
        let result = try trellis(["validate", Self.sessions + "/live-mix.yaml", "--graph", picture])
        #expect(result.status == 0, "\(result.stderr)")
        let size = try #require(Self.pngSize(try Data(contentsOf: URL(fileURLWithPath: picture))))
        #expect(size.width > 200 && size.height > 100, "\(size)")
    }

    @Test("the layout as JSON places every node of the DOT text")
    func layoutJSON() throws {
        let layout = temporaryPath("demo.json"), dot = temporaryPath("demo.dot")
        #expect(try trellis(["graph", Self.sessions + "/demo.yaml", "-o", layout]).status == 0)
        #expect(try trellis(["graph", Self.sessions + "/demo.yaml", "-o", dot]).status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: layout))) as? [String: Any])
        let placed = try #require(object["objects"] as? [[String: Any]]).compactMap { node -> String? in
            guard let name = node["name"] as? String, let position = node["pos"] as? String,
                  position.split(separator: ",").compactMap({ Double($0) }).count == 2 else { return nil }
            return name
        }
        let declared = try String(contentsOfFile: dot, encoding: .utf8).split(separator: "\n").filter { $0.contains(" [label=") && !$0.contains(" -> ") }.count
        #expect(placed.count == declared && declared > 0, "\(placed)")
    }

    @Test("MIDI connections are dashed, a subgraph is a cluster, a bypassed node greyed, a compensating delay named with its frames")
    func whatTheGraphShows() throws {
        let folder = temporaryPath("graph")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let session = folder + "/shapes.yaml"
        try """
            version: 1
            jack: { midi-inputs: [keys] }
            nodes:
              tone1: { unit: tone, channels: 2 }
              tone2: { unit: tone, channels: 2 }
              late: { unit: limiter }
              strip: { subgraph: strip, bypass: true }
              mix: { unit: mixer, inputs: 2, output-channels: 2 }
              piano: { lv2: http://drobilla.net/plugins/mda/EPiano }
              out: output
            connections:
              - tone1 -> late -> mix.0
              - tone2 -> strip -> mix.1
              - keys -> piano
              - mix -> out
            subgraphs:
              strip:
                nodes: { in: input, trim: gain, out: output }
                connections: [in -> trim -> out]
            """.write(toFile: session, atomically: true, encoding: .utf8)
        let dot = folder + "/shapes.dot"
        let result = try trellis(["graph", session, "-o", dot])
        #expect(result.status == 0, "\(result.stderr)")
        let text = try String(contentsOfFile: dot, encoding: .utf8)
        #expect(text.contains("\"keys\" -> \"piano\" [style=dashed"), "\(text)")
        #expect(text.contains("subgraph \"cluster_strip\""), "\(text)")
        #expect(text.contains("label=\"strip (subgraph), bypassed\""), "\(text)")
        #expect(text.contains("\"strip/trim\" [label="), "\(text)")
        #expect(text.range(of: ##""strip/out" -> "mix" \[ltail="cluster_strip", color="#b03030", label="0 → 1\\ndelay \d+ frames""##, options: .regularExpression) != nil, "\(text)")
    }

    @Test("an unknown picture format, and a session that does not load, are errors that leave no file")
    func badInput() throws {
        let folder = temporaryPath("graph-bad")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let wrong = try trellis(["graph", Self.sessions + "/demo.yaml", "-o", folder + "/demo.gif"])
        #expect(wrong.status != 0 && wrong.stderr.contains("name an .svg, .png, .dot or .json file"), "\(wrong.stderr)")
        try "version: 1\nnodes: { a: nosuchunit }\n".write(toFile: folder + "/broken.yaml", atomically: true, encoding: .utf8)
        let broken = try trellis(["graph", folder + "/broken.yaml", "-o", folder + "/broken.svg"])
        #expect(broken.status != 0 && broken.stderr.contains("broken.yaml:2:"), "\(broken.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["broken.yaml"])
    }
}
