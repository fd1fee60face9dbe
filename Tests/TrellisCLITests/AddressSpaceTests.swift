import Foundation
import Testing
import TrellisTestSupport

/// What services and CI sandboxes set: `ulimit -v 1500000` (KiB).
private let sandboxAddressSpace = 1_500_000 * 1024

/// `trellis` with `arguments` under an address-space limit of `bytes`, killed after 300 s.
func trellisLimited(addressSpace bytes: Int, _ arguments: [String]) throws -> CappedRun {
    let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("trellis").path
    return try runCapped(executable, arguments, addressSpace: bytes, deadline: 300)
}

@Suite("Sessions within an address-space limit")
struct AddressSpaceTests {
    /// `uses` unconnected nodes of one small subgraph.
    static func subgraphUses(_ uses: Int) -> String {
        var text = "version: 1\nnodes:\n"
        for index in 0..<uses { text += "  s\(index): { subgraph: strip }\n" }
        return text + """
              out: output
            subgraphs:
              strip:
                nodes: { in: input, trim: gain, out: output }
                connections: [in -> trim, trim -> out]

            """
    }

    @Test("a session using a subgraph 4,097 times is refused with its error under ulimit -v 1500000")
    func tooManySubgraphUsesUnderLimit() throws {
        let path = temporaryPath("many-subgraphs.yaml")
        try Self.subgraphUses(4_097).write(toFile: path, atomically: true, encoding: .utf8)
        let result = try trellisLimited(addressSpace: sandboxAddressSpace, ["validate", path])
        #expect(result.status == 1, "\(result.stderr.prefix(600))")
        #expect(result.stderr.contains("node \"s4096\": the session uses subgraphs more than 4096 times"), "\(result.stderr.prefix(600))")
    }

    @Test("a session using a subgraph 4,096 times validates under ulimit -v 1500000")
    func subgraphUsesAtTheLimit() throws {
        let path = temporaryPath("subgraphs.yaml")
        try Self.subgraphUses(4_096).write(toFile: path, atomically: true, encoding: .utf8)
        let result = try trellisLimited(addressSpace: sandboxAddressSpace, ["validate", path])
        #expect(result.status == 0 && result.stdout.contains(": ok (4097 nodes"), "\(result.stdout) \(result.stderr.prefix(600))")
    }

    /// `count` unconnected gains beside the output.
    static func gains(_ count: Int) -> String {
        "version: 1\nnodes:\n" + (0..<count).map { "  g\($0): gain\n" }.joined() + "  out: output\n"
    }

    @Test("rendering 60,000 unconnected gains is refused up front by the memory budget, under ulimit -v 1500000 too")
    func renderPastTheBudgetIsRefused() throws {
        let path = temporaryPath("gains.yaml"), output = temporaryPath("gains.wav")
        try Self.gains(60_000).write(toFile: path, atomically: true, encoding: .utf8)
        let result = try trellisLimited(addressSpace: sandboxAddressSpace, ["render", path, "-o", output, "--duration", "1"])
        #expect(result.status == 1, "\(result.stderr.prefix(600))")
        #expect(result.stderr.contains("would need") && result.stderr.contains("past the memory budget of 1000 MB"), "\(result.stderr.prefix(600))")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test("--memory-budget lowers and raises the bound a render's buffers are held to")
    func budgetOption() throws {
        let path = temporaryPath("gains.yaml"), output = temporaryPath("gains.wav")
        try Self.gains(2_000).write(toFile: path, atomically: true, encoding: .utf8)
        let refused = try trellis(["render", path, "-o", output, "--duration", "0.1", "--memory-budget", "20"])
        #expect(refused.status == 1 && refused.stderr.contains("past the memory budget of 20 MB"), "\(refused.stderr.prefix(600))")
        #expect(!FileManager.default.fileExists(atPath: output))
        let rendered = try trellis(["render", path, "-o", output, "--duration", "0.1", "--memory-budget", "500"])
        #expect(rendered.status == 0, "\(rendered.stderr.prefix(600))")
        let bad = try trellis(["render", path, "-o", output, "--duration", "0.1", "--memory-budget", "0"])
        #expect(bad.status != 0 && bad.stderr.contains("--memory-budget must be from 1"), "\(bad.stderr.prefix(600))")
    }
}
