import Foundation
import Testing
@testable import TrellisCLI
import TrellisChain
import TrellisControl
import TrellisCore
import TrellisSession
import TrellisUnits

/// What became of a node text: accepted, or refused with the message after the front
/// end's own context (a session's position and node, `ctl add`'s code and node, a
/// chain's stage).
enum NodeTextOutcome: Equatable, CustomStringConvertible {
    case accepted
    case refused(String)

    var description: String {
        switch self {
        case .accepted: "accepted"
        case .refused(let message): "refused: \(message)"
        }
    }
}

/// The same `UNIT name=value ...` words through each of the three front ends.
enum NodeText {
    static let dj = "lv2:http://plugin.org.uk/swh-plugins/dj_eq_mono"

    /// As a session's node `fx`: node keys as the node's, other names under `parameters:`.
    static func session(_ words: [String]) throws -> (NodeTextOutcome, LoadedSession?) {
        var lines = ["version: 1", "nodes:", "  fx:", "    unit: \(yaml(words[0]))"]
        var parameters: [String] = []
        for word in words.dropFirst() {
            let (name, value) = split(word)
            if NodeDescription.Key(rawValue: name) != nil {
                lines.append("    \(name): \(yaml(value))")
            } else {
                parameters.append("      \(yaml(name)): \(yaml(value))")
            }
        }
        if !parameters.isEmpty { lines += ["    parameters:"] + parameters }
        do {
            let loaded = try SessionLoader.load(
                text: lines.joined(separator: "\n") + "\n", file: "node.yaml", directory: NSTemporaryDirectory(),
                registry: controlRegistry(), options: SessionLoadOptions(initialize: false))
            return (.accepted, loaded)
        } catch {
            return (.refused(try strip("node \"fx\": ", from: error.message)), nil)
        }
    }

    /// As `add fx WORDS...` to a running session's dispatcher.
    static func add(_ words: [String]) throws -> (NodeTextOutcome, (any AudioUnit)?) {
        let session = try SessionLoader.load(
            text: "version: 1\nnodes:\n  out: output\n", file: "base.yaml", directory: NSTemporaryDirectory(),
            registry: controlRegistry(), options: SessionLoadOptions(initialize: false))
        let dispatcher = ControlDispatcher(target: ControlledSession(session: session, registry: session.graph.registry))
        defer { dispatcher.shutdown() }
        let parameters = words.dropFirst().map { word in
            let (name, value) = split(word)
            return ParameterAssignment(name: name, value: value)
        }
        switch dispatcher.perform(.add(node: "fx", unit: words[0], parameters: parameters)) {
        case .ok: return (.accepted, try session.graph.node(named: "fx").unit)
        case .error(let error): return (.refused(try strip("node fx: ", from: error.message)), nil)
        }
    }

    /// As the one stage of `trellis chain tone ! WORDS... ! out.wav`, built offline.
    static func chain(_ words: [String]) throws -> (NodeTextOutcome, (any AudioUnit)?) {
        let pipeline = try ChainPipeline(arguments: ["tone", "!"] + words + ["!", NSTemporaryDirectory() + "unused.wav"])
        do {
            let built = try ChainBuilder(registry: controlRegistry(), blockSize: 256, rate: nil).build(pipeline)
            return (.accepted, built.graph.nodes.first { $0.name != "tone" && $0.name != "output" }?.unit)
        } catch {
            return (.refused(try strip("chain: \"\(words[0])\" (argument 3): ", from: error.description)), nil)
        }
    }

    static func split(_ word: String) -> (String, String) {
        let equals = word.firstIndex(of: "=")!
        return (String(word[..<equals]), String(word[word.index(after: equals)...]))
    }

    /// A double-quoted YAML scalar, so the text reaches the reader as written.
    static func yaml(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    struct MissingPrefix: Error, CustomStringConvertible {
        var description: String
    }

    /// The message after `prefix`, which the front end must have put there.
    static func strip(_ prefix: String, from message: String) throws -> String {
        guard message.hasPrefix(prefix) else { throw MissingPrefix(description: "expected \(prefix)... in \(message)") }
        return String(message.dropFirst(prefix.count))
    }
}

@Suite("One node text, one outcome: sessions, ctl add and trellis chain")
struct NodeTextTests {
    static let eqTypes = "peaking, lowshelf, highshelf, lowpass, highpass, bandpass, notch, allpass or an index"

    static let table: [(text: String, outcome: NodeTextOutcome)] = [
        ("eq band0.type=peaking band0.gain=yes",
         .refused("expected a value for band0.gain (-96...24 dB), found \"yes\": on/off words are accepted only for on/off parameters")),
        ("eq band0.type=peaking band0.gain=3", .accepted),
        ("eq band0.type=HighShelf band0.freq=8000", .accepted),
        ("eq band0.type=3", .accepted),
        ("eq band0.type=peking", .refused("expected a value for band0.type (\(eqTypes)), found \"peking\" (did you mean peaking?)")),
        ("eq band0.type=2.5", .refused("expected a value for band0.type (\(eqTypes)), found 2.5, which is not a whole number")),
        ("eq band0.type=8", .refused("8 is outside the range of band0.type, 0...7")),
        ("eq band0.bypass=on", .accepted),
        ("eq band0.bypass=false", .accepted),
        ("eq band0.bypass=1", .accepted),
        ("eq band0.bypass=yes", .refused("expected a value for band0.bypass (on or off), found \"yes\"")),
        ("eq band0.gain=017",
         .refused("expected a value for band0.gain (-96...24 dB), found \"017\": a leading zero makes YAML 1.1 read an octal number; write it without the zero")),
        ("eq band0.gain=0x1F",
         .refused("expected a value for band0.gain (-96...24 dB), found \"0x1F\": hexadecimal numbers are not accepted; write it in decimal")),
        ("eq band0.gain=inf", .refused("expected a value for band0.gain (-96...24 dB), found \"inf\"")),
        ("eq band0.gain=99", .refused("99 is outside the range of band0.gain, -96...24 dB")),
        ("eq band0.gian=3", .refused("eq (aufx:nbeq:trls) has no parameter named \"band0.gian\" (did you mean band0.gain, band1.gain, band10.gain?)")),
        ("eq bypass=true", .accepted),
        ("eq bypass=on", .refused("bypass takes true or false, not \"on\": YAML 1.1 spellings are not accepted")),
        ("eq preset=nothing", .refused("eq (aufx:nbeq:trls): no preset \"nothing\" (it has none)")),
        ("gain state=anything", .refused("gain (aufx:gain:trls) keeps no saved state")),
        ("gain gain=-6 channels=1", .accepted),
        ("gain channels=0", .refused("channels takes a whole number in 1...256, not \"0\"")),
        ("gain channels=two", .refused("channels takes a whole number in 1...256, not \"two\"")),
        ("\(NodeText.dj) channels=2 lo=-6 mid=3", .accepted),
        ("\(NodeText.dj) lo=-100", .refused("-100 is outside the range of lo, -70...6")),
        ("\(NodeText.dj) latency=0", .refused("parameter latency is read-only (the unit writes it)")),
        ("eqq", .refused("no unit named \"eqq\" (did you mean eq?)")),
    ]

    @Test("each node text is accepted or refused alike, with the same message, by a session, ctl add and trellis chain",
          arguments: table)
    func sameOutcomeEverywhere(_ row: (text: String, outcome: NodeTextOutcome)) throws {
        let words = row.text.split(separator: " ").map(String.init)
        #expect(try NodeText.session(words).0 == row.outcome, "session")
        #expect(try NodeText.add(words).0 == row.outcome, "ctl add")
        #expect(try NodeText.chain(words).0 == row.outcome, "chain")
    }

    @Test("channels=2 on a mono LV2 plugin runs two instances through a session, ctl add and trellis chain")
    func monoPluginRunsPerChannelEverywhere() throws {
        let words = [NodeText.dj, "channels=2", "lo=-6"]
        let session = try #require(try NodeText.session(words).1)
        let units: [any AudioUnit] = [
            try session.graph.node(named: "fx").unit, try #require(try NodeText.add(words).1), try #require(try NodeText.chain(words).1),
        ]
        for unit in units {
            let multiMono = try #require(unit as? MultiMonoUnit)
            #expect(multiMono.instances.count == 2)
            #expect(try multiMono.instances.allSatisfy { try $0.parameterValue(ParameterText.find("lo", in: $0)!.address) == -6 })
        }
    }

    @Test("add answers each refusal with the code of its error case")
    func addCodesFollowTheErrorCase() throws {
        let session = try SessionLoader.load(
            text: "version: 1\nnodes:\n  out: output\n", file: "base.yaml", directory: NSTemporaryDirectory(),
            registry: controlRegistry(), options: SessionLoadOptions(initialize: false))
        let dispatcher = ControlDispatcher(target: ControlledSession(session: session, registry: session.graph.registry))
        defer { dispatcher.shutdown() }
        let cases: [(String, [ParameterAssignment], ControlError.Code)] = [
            ("eqq", [], .unknownUnit),
            ("eq", [ParameterAssignment(name: "band0.gian", value: "3")], .unknownParameter),
            ("eq", [ParameterAssignment(name: "band0.gain", value: "yes")], .badValue),
            ("eq", [ParameterAssignment(name: "band0.gain", value: "99")], .outOfRange),
            ("eq", [ParameterAssignment(name: "preset", value: "nothing")], .unknownPreset),
            ("eq", [ParameterAssignment(name: "bypass", value: "no")], .badValue),
            (NodeText.dj, [ParameterAssignment(name: "latency", value: "0")], .readOnly),
        ]
        for (unit, parameters, code) in cases {
            guard case .error(let error) = dispatcher.perform(.add(node: "fx", unit: unit, parameters: parameters)) else {
                Issue.record("add \(unit) \(parameters) was accepted")
                continue
            }
            #expect(error.code == code, "\(unit) \(parameters): \(error)")
        }
    }

    @Test("a chain saved as a session keeps node keys as the node's and the rest as parameters")
    func chainSavesNodeKeys() throws {
        let pipeline = try ChainPipeline(arguments: ["tone", "channels=1", "!", "eq", "bypass=true", "band0.gain=3", "!", "out.wav"])
        let document = try ChainSession.document(pipeline, file: "chain.yaml", sampleRate: 48_000, blockSize: 256)
        let tone = try #require(document.graph.nodes.first { $0.name == "tone" })
        let stage = try #require(document.graph.nodes.first { $0.name == "stage1" })
        #expect(tone.channels == 1 && tone.parameters.isEmpty)
        #expect(stage.bypass == true)
        #expect(stage.parameters.map { "\($0.name)=\($0.value)" } == ["band0.gain=3"])
    }
}
