import Testing
import TrellisControl

@Suite("Reading commands")
struct ParserTests {
    @Test("set reads node, parameter, value and a ramp in milliseconds")
    func setWithRamp() throws {
        #expect(try CommandParser.parse(line: "set amp gain -6 ramp=250")
            == .set(node: "amp", parameter: "gain", value: "-6", rampMilliseconds: 250))
    }

    @Test("quoted words keep their blanks and escaped quotes")
    func quotedWords() throws {
        #expect(try CommandTokenizer.words(#"preset verb "Large \"Hall\"""#) == ["preset", "verb", #"Large "Hall""#])
    }

    @Test("connect reads buses after the dot and defaults to bus 0")
    func connectBuses() throws {
        #expect(try CommandParser.parse(line: "connect mix.1 out convert")
            == .connect(from: BusName(node: "mix", bus: 1), to: BusName(node: "out"), convert: true))
    }

    @Test("an unknown verb is UNKNOWN_COMMAND naming it and the closest command")
    func unknownVerb() {
        #expect(throws: ControlError.self) { try CommandParser.parse(line: "conect a b") }
        do { _ = try CommandParser.parse(line: "conect a b") } catch {
            #expect(error.code == .unknownCommand)
            #expect(error.message.contains("conect") && error.message.contains("connect"))
        }
    }

    @Test("a command with the wrong number of words is SYNTAX showing its usage")
    func wrongArity() {
        do { _ = try CommandParser.parse(line: "get amp"); Issue.record("parsed") } catch {
            #expect(error.code == .syntax)
            #expect(error.message.contains("get NODE PARAM"))
        }
    }

    @Test("an unclosed quote is a SYNTAX error")
    func unclosedQuote() {
        do { _ = try CommandParser.parse(line: #"preset a "Hall"#); Issue.record("parsed") } catch {
            #expect(error.code == .syntax)
        }
    }

    @Test("edits joined with ; make one batch, and other commands cannot join")
    func batch() throws {
        #expect(try CommandParser.parse(line: "disconnect out ; connect a b")
            == .batch([.disconnect(from: nil, to: BusName(node: "out")), .connect(from: BusName(node: "a"), to: BusName(node: "b"), convert: false)]))
        do { _ = try CommandParser.parse(line: "list ; save"); Issue.record("parsed") } catch {
            #expect(error.code == .syntax)
        }
    }

    @Test("preset with a name loads it, blanks and all; without one it asks for the list")
    func presetWords() throws {
        #expect(try CommandParser.parse(line: "preset verb Large Hall") == .preset(node: "verb", name: "Large Hall"))
        #expect(try CommandParser.parse(line: "preset verb") == .preset(node: "verb", name: nil))
    }

    @Test("plays joined with ; are one start of several players; at takes frames, graph seconds or seconds from now")
    func playTimes() throws {
        #expect(try CommandParser.parse(line: "play a ; play b") == .playTogether(nodes: ["a", "b"], at: nil))
        #expect(try CommandParser.parse(line: "play a at 960000") == .playTogether(nodes: ["a"], at: .sampleTime(960_000)))
        #expect(try CommandParser.parse(line: "play a b at 20s") == .playTogether(nodes: ["a", "b"], at: .seconds(20)))
        #expect(try CommandParser.parse(line: "play a at +1.5") == .playTogether(nodes: ["a"], at: .fromNow(1.5)))
        for bad in ["play a ; connect a b", "play a at 1s ; play b at 2s", "play a at soon"] {
            do { _ = try CommandParser.parse(line: bad); Issue.record("parsed \(bad)") } catch {
                #expect(error.code == .syntax || error.code == .badValue, "\(bad): \(error)")
            }
        }
    }

    @Test("watch reads event kinds, meters and a rate")
    func watch() throws {
        #expect(try CommandParser.parse(line: "watch events=xrun meters=trim,mix.1 rate=20")
            == .watch(WatchRequest(kinds: [.xrun, .meter], meters: [BusName(node: "trim"), BusName(node: "mix", bus: 1)], rate: 20)))
        var slow = WatchRequest(kinds: [.edit, .meter], meters: [BusName(node: "mix")], rate: 30)
        slow.slowMeters = [BusName(node: "eq", bus: 1), BusName(node: "tone")]
        #expect(try CommandParser.parse(line: "watch events=edit meters=mix slow-meters=eq.1,tone rate=30") == .watch(slow))
    }
}
