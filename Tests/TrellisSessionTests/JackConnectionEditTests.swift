import Testing
import TrellisSession

@Suite("JACK links made and broken at run time, as a save writes them")
struct JackConnectionEditTests {
    static func spec(_ rules: [(String, String)]) -> JackSpec {
        var spec = JackSpec(location: SourceLocation(file: "t", line: 1, column: 1))
        spec.connect = rules.map { JackConnectionSpec(from: $0.0, to: $0.1, location: spec.location) }
        return spec
    }

    static func rules(_ spec: JackSpec) -> [String] { spec.connect.map { "\($0.from) -> \($0.to)" } }

    static func link(_ port: String, _ peer: String, _ connected: Bool = true, receives: Bool = false) -> JackConnectionEdit {
        JackConnectionEdit(port: port, peer: peer, connected: connected, portReceives: receives)
    }

    @Test("a link made is added in the direction the audio flows")
    func madeIsAdded() {
        let edits = [Self.link("out_1", "system:playback_1"), Self.link("in_1", "system:capture_1", receives: true)]
        let result = Self.spec([]).applying(edits, live: edits)
        #expect(Self.rules(result) == ["out_1 -> system:playback_1", "system:capture_1 -> in_1"])
    }

    @Test("a link that a written pattern already makes adds nothing")
    func coveredIsNotRepeated() {
        let result = Self.spec([("system:capture_[1-2]", "in_[1-2]")]).applying([Self.link("in_2", "system:capture_2", receives: true)], live: [])
        #expect(Self.rules(result) == ["system:capture_[1-2] -> in_[1-2]"])
    }

    @Test("breaking a link removes the exact rule that made it")
    func brokenExactIsRemoved() {
        let result = Self.spec([("out_1", "system:playback_1"), ("out_2", "system:playback_2")])
            .applying([Self.link("out_1", "system:playback_1", false)], live: [Self.link("out_2", "system:playback_2")])
        #expect(Self.rules(result) == ["out_2 -> system:playback_2"])
    }

    @Test("breaking one link of a pattern rule keeps its other links as rules of their own")
    func brokenPatternKeepsTheRest() {
        let live = [Self.link("in_1", "system:capture_1", receives: true), Self.link("in_3", "system:capture_3", receives: true)]
        let result = Self.spec([("system:capture_[1-3]", "in_[1-3]")]).applying([Self.link("in_2", "system:capture_2", false, receives: true)], live: live)
        #expect(Self.rules(result) == ["system:capture_1 -> in_1", "system:capture_3 -> in_3"])
    }

    @Test("a rule whose ports are absent, and a link made then broken, leave the rules as written")
    func untouchedStays() {
        let edits = [Self.link("out_1", "fx:in", true), Self.link("out_1", "fx:in", false)]
        let result = Self.spec([("out_2", "recorder:in_1")]).applying(edits, live: [])
        #expect(Self.rules(result) == ["out_2 -> recorder:in_1"])
    }
}
