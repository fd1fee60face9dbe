import Testing
import TrellisCore

@Suite("FourCC and component descriptions")
struct FourCCTests {
    @Test("four printable characters pack big-endian and print back")
    func roundTrip() throws {
        let code = try FourCC("aufx")
        #expect(code.rawValue == 0x6175_6678)
        #expect(code.description == "aufx")
        #expect(FourCC(rawValue: 0x6E62_6571).description == "nbeq")
    }

    @Test("a code that is not four bytes is refused, quoting it", arguments: ["abc", "abcde", ""])
    func wrongLength(text: String) {
        #expect { try FourCC(text) } throws: { "\($0)".contains("\"\(text)\"") && "\($0)".contains("exactly 4") }
    }

    @Test("a code with unprintable or non-ASCII characters is refused", arguments: ["ab\tc", "abé", "ab\u{7F}c"])
    func notPrintable(text: String) {
        #expect(throws: FourCCError.self) { try FourCC(text) }
    }

    @Test("a raw value with unprintable bytes prints as hexadecimal")
    func unprintableRawValue() {
        #expect(FourCC(rawValue: 1).description == "0x00000001")
    }

    @Test("a description parses from type:subtype:manufacturer and prints back")
    func descriptionRoundTrip() throws {
        let description = try ComponentDescription("aufx:nbeq:trls")
        #expect(description.type == ComponentType.effect)
        #expect(description.subtype == BuiltInSubtype.nBandEQ)
        #expect(description.manufacturer == Manufacturer.trellis)
        #expect(description.description == "aufx:nbeq:trls")
    }

    @Test("a description with the wrong number of fields is refused, quoting it")
    func descriptionFieldCount() {
        #expect { try ComponentDescription("aufx:nbeq") } throws: { "\($0)".contains("\"aufx:nbeq\" must be type:subtype:manufacturer") }
    }

    @Test("a description with a bad code names the description and the code")
    func descriptionBadCode() {
        #expect { try ComponentDescription("aufx:eq:trls") } throws: { "\($0)".contains("\"aufx:eq:trls\"") && "\($0)".contains("\"eq\"") }
    }

    @Test("zero fields are wildcards that match anything, as AudioComponentFindNext treats them")
    func wildcards() throws {
        let query = try ComponentDescription("aufx:*:*")
        #expect(query.hasWildcards)
        #expect(query.matches(try ComponentDescription("aufx:nbeq:trls")))
        #expect(!query.matches(try ComponentDescription("aumx:mcmx:trls")))
        #expect(query.description == "aufx:*:*")
    }
}
