import CLiblo
import Foundation
import TrellisSession

/// An OSC message as the control server sees it: a path and arguments as words.
/// liblo does the wire format both ways. Thread: any (a plain value).
public struct OSCMessage: Sendable, Equatable {
    public enum Argument: Sendable, Equatable {
        case string(String)
        case int(Int32)
        case float(Float)
    }

    public var path: String
    public var arguments: [Argument]

    public init(path: String, arguments: [Argument]) {
        self.path = path
        self.arguments = arguments
    }

    /// The message as bytes on the wire.
    public func encoded() -> [UInt8] {
        guard let message = lo_message_new() else { return [] }
        defer { lo_message_free(message) }
        for argument in arguments {
            switch argument {
            case .string(let text): lo_message_add_string(message, text)
            case .int(let value): lo_message_add_int32(message, value)
            case .float(let value): lo_message_add_float(message, value)
            }
        }
        var size = lo_message_length(message, path)
        var bytes = [UInt8](repeating: 0, count: size)
        _ = bytes.withUnsafeMutableBytes { lo_message_serialise(message, path, $0.baseAddress, &size) }
        return Array(bytes.prefix(size))
    }

    /// Reads one message; a bundle's messages come out in order.
    public static func decode(_ bytes: [UInt8]) throws(ControlError) -> [OSCMessage] {
        if bytes.starts(with: Array("#bundle\0".utf8)) { return try decodeBundle(bytes) }
        guard let end = bytes.firstIndex(of: 0), end > 0, bytes[0] == UInt8(ascii: "/") else {
            throw ControlError(.syntax, "not an OSC message: it does not start with a /path")
        }
        let path = String(decoding: bytes[..<end], as: UTF8.self)
        var result: Int32 = 0
        var copy = bytes
        guard let message = copy.withUnsafeMutableBytes({ lo_message_deserialise($0.baseAddress, $0.count, &result) }) else {
            throw ControlError(.syntax, "\(path): not a well-formed OSC message (liblo error \(result))")
        }
        defer { lo_message_free(message) }
        let count = Int(lo_message_get_argc(message))
        let types = lo_message_get_types(message).map { String(cString: $0) } ?? ""
        guard let argv = lo_message_get_argv(message) else { return [OSCMessage(path: path, arguments: [])] }
        var arguments: [Argument] = []
        for (index, type) in types.utf8.prefix(count).enumerated() {
            // True and false carry no data, so liblo gives them no argument pointer.
            if type == UInt8(ascii: "T") || type == UInt8(ascii: "F") {
                arguments.append(.string(type == UInt8(ascii: "T") ? "on" : "off"))
                continue
            }
            guard let argument = argv[index] else { continue }
            switch UInt8(type) {
            case UInt8(ascii: "s"), UInt8(ascii: "S"): arguments.append(.string(String(cString: trellis_lo_arg_string(argument))))
            case UInt8(ascii: "i"): arguments.append(.int(argument.pointee.i))
            case UInt8(ascii: "h"): arguments.append(.string(String(argument.pointee.h)))
            case UInt8(ascii: "f"): arguments.append(.float(argument.pointee.f))
            case UInt8(ascii: "d"): arguments.append(.string(String(argument.pointee.d)))
            case UInt8(ascii: "c"): arguments.append(.string(String(UnicodeScalar(argument.pointee.c))))
            default:
                throw ControlError(.syntax, "\(path): OSC type \(Character(UnicodeScalar(UInt8(type)))) is not taken (use s, i, h, f, d, T, F or c)")
            }
        }
        return [OSCMessage(path: path, arguments: arguments)]
    }

    /// `#bundle`, a time tag (ignored: commands run on arrival), then sized elements.
    private static func decodeBundle(_ bytes: [UInt8]) throws(ControlError) -> [OSCMessage] {
        var messages: [OSCMessage] = []
        var offset = 16
        while offset + 4 <= bytes.count {
            let size = Int(UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3]))
            offset += 4
            guard size > 0, offset + size <= bytes.count else { throw ControlError(.syntax, "an OSC bundle element runs past the packet's end") }
            messages += try decode(Array(bytes[offset..<(offset + size)]))
            offset += size
        }
        return messages
    }

    /// The command's words: the path after `/trellis/` split at slashes, then the arguments.
    public func words() throws(ControlError) -> [String] {
        guard path.hasPrefix("/trellis/") else {
            throw ControlError(.unknownCommand, "no OSC path \(path): paths start with /trellis/ (for example /trellis/set)")
        }
        var words = path.dropFirst("/trellis/".count).split(separator: "/").map(String.init)
        for argument in arguments {
            switch argument {
            case .string(let text): words.append(text)
            case .int(let value): words.append(String(value))
            case .float(let value): words.append(TrellisSession.ParameterText.format(value))
            }
        }
        return words
    }
}
