/// A four-character code, the way Core Audio names component types, subtypes and
/// manufacturers: four printable ASCII characters packed big-endian into a `UInt32`.
public struct FourCC: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: UInt32

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// Parses exactly four printable ASCII characters (space through tilde).
    public init(_ text: String) throws(FourCCError) {
        let bytes = Array(text.utf8)
        guard bytes.count == 4 else { throw .wrongLength(text) }
        guard bytes.allSatisfy({ $0 >= 0x20 && $0 <= 0x7E }) else { throw .notPrintable(text) }
        rawValue = bytes.reduce(0) { ($0 << 8) | UInt32($1) }
    }

    /// Zero is the wildcard in a search description, as in `AudioComponentFindNext`.
    public static let any = FourCC(rawValue: 0)

    public var isWildcard: Bool { rawValue == 0 }

    /// The four characters; a code with unprintable bytes prints as hexadecimal.
    public var description: String {
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: rawValue >> (24 - 8 * UInt32($0))) }
        guard bytes.allSatisfy({ $0 >= 0x20 && $0 <= 0x7E }) else {
            let hex = String(rawValue, radix: 16)
            return "0x" + String(repeating: "0", count: 8 - hex.count) + hex
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    public static func < (lhs: FourCC, rhs: FourCC) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension FourCC: ExpressibleByStringLiteral {
    /// For constants in source code only; a bad literal is a programming error.
    public init(stringLiteral text: String) {
        do { try self.init(text) } catch { preconditionFailure("\(error)") }
    }
}

public enum FourCCError: Error, Equatable, CustomStringConvertible {
    case wrongLength(String)
    case notPrintable(String)

    public var description: String {
        switch self {
        case .wrongLength(let text):
            return "four-character code \"\(text)\" has \(text.utf8.count) bytes; it needs exactly 4"
        case .notPrintable(let text):
            return "four-character code \"\(text)\" must be printable ASCII"
        }
    }
}
