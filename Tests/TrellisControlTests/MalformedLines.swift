/// Lines that are each wrong in a known way, from a fixed seed: unknown verbs, wrong
/// word counts, unknown nodes and parameters, values of the wrong kind or out of
/// range, bytes that are not UTF-8, control characters, unclosed quotes.
struct MalformedLines {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    /// SplitMix64.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func word(_ length: Int) -> String {
        String((0..<length).map { _ in Character(Unicode.Scalar(UInt8(97 + next() % 26))) })
    }

    mutating func line() -> [UInt8] {
        let noun = word(Int(next() % 6) + 1)
        let text: String
        switch next() % 14 {
        case 0: text = "zz" + noun
        case 1: text = ["get", "set trim", "remove", "connect tone1", "meter", "bypass trim", "seek tone1", "load"][Int(next() % 8)]
        case 2: text = "set ghost\(noun) gain 1"
        case 3: text = "set trim nope\(noun) 1"
        case 4: text = "set trim gain x\(noun)"
        case 5: text = "set trim gain \(25 + next() % 1000)"
        case 6:
            var bytes = Array("set trim gain ".utf8)
            bytes += (0..<(1 + next() % 8)).map { _ in UInt8(0x80 + next() % 0x7F) } + [0xFF]
            return bytes
        case 7: text = "list\u{1}" + noun
        case 8: text = "preset trim \"unclosed \(noun)"
        case 9: text = "connect tone1 ghost\(noun)"
        case 10: text = "add trim gain"
        case 11: text = "add n\(noun) nosuchunit\(noun)"
        case 12: text = "bypass trim maybe\(noun)"
        default: text = "{\"id\": \(next() % 100), \"command\": \"list\"}"
        }
        return Array(text.utf8)
    }
}
