import Testing
import TrellisCore

@Suite("Suggestions for names that are not known")
struct SuggestionTests {
    static let names = ["gain", "graphic-eq", "lv2-amp", "lv2-amp-2", "mixer", "mixer3d"]

    @Test("a misspelling suggests the closest names first")
    func closestFirst() {
        #expect(Suggestions.closest(to: "lv2-ampp", among: Self.names) == ["lv2-amp", "lv2-amp-2"])
        #expect(Suggestions.closest(to: "Gian", among: Self.names) == ["gain"])
    }

    @Test("two letters swapped are one edit, closer than a longer name that contains the misspelling")
    func swappedLetters() {
        #expect(Suggestions.editDistance("gian", "gain") == 1)
        #expect(Suggestions.editDistance("abcd", "badc") == 2)
        #expect(Suggestions.editDistance("kitten", "sitting") == 3)
        #expect(Suggestions.closest(to: "gian", among: ["lv2-giantflange", "gain"]).first == "gain")
        #expect(Suggestions.closest(to: "gianx", among: Self.names) == ["gain"])
    }

    @Test("a name that contains another, or is contained in it, counts as close")
    func containment() {
        #expect(Suggestions.closest(to: "my-mixer3d-copy", among: Self.names) == ["mixer", "mixer3d"])
        #expect(Suggestions.closest(to: "graphic", among: Self.names) == ["graphic-eq"])
    }

    @Test("a name far longer than any unit's suggests only the names it contains")
    func longNames() {
        let long = String(repeating: "x", count: 100_000)
        #expect(Suggestions.closest(to: long, among: Self.names).isEmpty)
        #expect(Suggestions.closest(to: long + "gain", among: Self.names) == ["gain"])
    }
}
