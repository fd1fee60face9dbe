/// Decodes scalar text by the type a field wants, refusing what YAML 1.1 would read
/// as something else: octal (`017`, `0o17`), hexadecimal, base-60 (`1:30`),
/// underscores, `.inf`/`.nan`, and `yes`/`no`/`on`/`off` where a boolean is wanted.
enum StrictScalar {
    enum Failure: Error {
        case notANumber(String)
        case ambiguous(String, reason: String)
        case notWhole(String)
    }

    /// A decimal number: `-6`, `0.25`, `1e-3`, `440.`; nothing else.
    static func number(_ text: String) -> Result<Double, Failure> {
        if let reason = ambiguity(text) { return .failure(.ambiguous(text, reason: reason)) }
        guard isDecimal(text), let value = Double(text), value.isFinite else { return .failure(.notANumber(text)) }
        return .success(value)
    }

    /// A whole decimal number, without a fraction or exponent.
    static func integer(_ text: String) -> Result<Int, Failure> {
        if let reason = ambiguity(text) { return .failure(.ambiguous(text, reason: reason)) }
        guard isDecimal(text) else { return .failure(.notANumber(text)) }
        guard let value = Int(text) else { return .failure(.notWhole(text)) }
        return .success(value)
    }

    /// `true` or `false`, exactly.
    static func boolean(_ text: String) -> Bool? {
        switch text {
        case "true": true
        case "false": false
        default: nil
        }
    }

    /// Words YAML 1.1 reads as booleans, which a boolean field refuses to guess at.
    static let yaml11Booleans: Set<String> = ["y", "n", "yes", "no", "on", "off", "true", "false"]

    /// Why a number-looking text would mean something else to a YAML 1.1 reader.
    static func ambiguity(_ text: String) -> String? {
        var body = Substring(text)
        if body.first == "-" || body.first == "+" { body = body.dropFirst() }
        let lowered = body.lowercased()
        if lowered.hasPrefix("0x") { return "hexadecimal numbers are not accepted; write it in decimal" }
        if lowered.hasPrefix("0o") || lowered.hasPrefix("0b") { return "octal and binary numbers are not accepted; write it in decimal" }
        if body.contains("_") && body.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "_" || $0 == ".") }) {
            return "underscores in numbers are not accepted"
        }
        if body.contains(":") && body.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ":" || $0 == ".") }) {
            return "YAML 1.1 reads this as a base-60 number; write the value in decimal"
        }
        if [".inf", ".nan"].contains(lowered) { return "infinities and NaN are not accepted" }
        let digits = body.prefix { $0.isASCII && $0.isNumber }
        if digits.count > 1, digits.first == "0", body.dropFirst(digits.count).first != "." {
            return "a leading zero makes YAML 1.1 read an octal number; write it without the zero"
        }
        return nil
    }

    /// Digits with an optional sign, fraction and exponent.
    private static func isDecimal(_ text: String) -> Bool {
        var chars = Array(text.utf8)[...]
        if chars.first == UInt8(ascii: "-") || chars.first == UInt8(ascii: "+") { chars = chars.dropFirst() }
        func digits() -> Int {
            let count = chars.prefix { $0 >= 48 && $0 <= 57 }.count
            chars = chars.dropFirst(count)
            return count
        }
        var mantissa = digits()
        if chars.first == UInt8(ascii: ".") {
            chars = chars.dropFirst()
            mantissa += digits()
        }
        guard mantissa > 0 else { return false }
        if chars.first == UInt8(ascii: "e") || chars.first == UInt8(ascii: "E") {
            chars = chars.dropFirst()
            if chars.first == UInt8(ascii: "-") || chars.first == UInt8(ascii: "+") { chars = chars.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return chars.isEmpty
    }
}

extension StrictScalar.Failure {
    /// "found X: why" for messages that begin with what was expected.
    var explanation: String {
        switch self {
        case .notANumber(let text): "found \(quoted(text))"
        case .ambiguous(let text, let reason): "found \(quoted(text)): \(reason)"
        case .notWhole(let text): "found \(quoted(text)), which is not a whole number"
        }
    }
}

/// Text in double quotes, shortened, for messages.
func quoted(_ text: String) -> String {
    let short = text.count > 60 ? String(text.prefix(57)) + "..." : text
    return "\"" + short.replacingNewlines() + "\""
}

extension String {
    fileprivate func replacingNewlines() -> String {
        var result = ""
        for scalar in unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
