import CLiblo
import Foundation
import Glibc

/// A stand-in for nsmd, written from NSM API 1.1.2 (no NSM server is packaged for
/// Debian 12): a liblo OSC server on UDP, as nsmd's own is, that records every message
/// a client sends with the address it came from, and sends the server-to-client
/// messages from its own socket so the client sees them come from NSM_URL.
/// Thread: one test at a time.
final class NSMServerStandIn {
    /// One message a client sent: path, arguments, and the sender's OSC URL.
    struct Received: CustomStringConvertible {
        enum Argument: Equatable {
            case string(String)
            case int(Int32)
            case float(Float)
        }

        var path: String
        var arguments: [Argument]
        var source: String

        func string(_ index: Int) -> String? {
            guard index < arguments.count, case .string(let text) = arguments[index] else { return nil }
            return text
        }

        func int(_ index: Int) -> Int32? {
            guard index < arguments.count, case .int(let value) = arguments[index] else { return nil }
            return value
        }

        var description: String { "\(path) \(arguments) from \(source)" }
    }

    private let server: lo_server
    /// NSM_URL for the client: `osc.udp://HOST:PORT/`.
    let url: String
    private var inbox: [Received] = []

    init() throws {
        guard let server = lo_server_new_with_proto(nil, LO_UDP, nil) else { throw TestFailure("liblo cannot make a UDP server") }
        self.server = server
        guard let text = lo_server_get_url(server) else { throw TestFailure("liblo gives the server no URL") }
        url = String(cString: text)
        free(text)
        lo_server_add_method(server, nil, nil, { path, types, argv, argc, message, context in
            let standIn = Unmanaged<NSMServerStandIn>.fromOpaque(context!).takeUnretainedValue()
            standIn.record(path: path, types: types, argv: argv, argc: argc, message: message)
            return 0
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit { lo_server_free(server) }

    private func record(path: UnsafePointer<CChar>?, types: UnsafePointer<CChar>?, argv: UnsafeMutablePointer<UnsafeMutablePointer<lo_arg>?>?, argc: Int32, message: lo_message?) {
        var arguments: [Received.Argument] = []
        let kinds = types.map { Array(String(cString: $0).utf8) } ?? []
        for index in 0..<Int(argc) where index < kinds.count {
            guard let argument = argv?[index] else { continue }
            switch kinds[index] {
            case UInt8(ascii: "s"): arguments.append(.string(String(cString: trellis_lo_arg_string(argument))))
            case UInt8(ascii: "i"): arguments.append(.int(argument.pointee.i))
            case UInt8(ascii: "f"): arguments.append(.float(argument.pointee.f))
            default: break
            }
        }
        var source = ""
        if let address = lo_message_get_source(message), let text = lo_address_get_url(address) {
            source = String(cString: text)
            free(text)
        }
        inbox.append(Received(path: path.map { String(cString: $0) } ?? "", arguments: arguments, source: source))
    }

    /// The next message the client sent to `path` (others before it are kept), waiting
    /// up to `seconds`; nil when none came.
    func next(_ path: String, within seconds: Double = 1) -> Received? {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            if let index = inbox.firstIndex(where: { $0.path == path }) { return inbox.remove(at: index) }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return nil }
            lo_server_recv_noblock(server, Int32(min(left, 0.05) * 1000))
        }
    }

    /// The next `/reply` or `/error` for `path`.
    func answer(to path: String, within seconds: Double = 1) -> Received? {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            if let index = inbox.firstIndex(where: { ($0.path == "/reply" || $0.path == "/error") && $0.string(0) == path }) {
                return inbox.remove(at: index)
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return nil }
            lo_server_recv_noblock(server, Int32(min(left, 0.05) * 1000))
        }
    }

    /// Everything received so far that the tests have not taken, after listening `seconds`.
    func drain(for seconds: Double = 0.2) -> [Received] {
        let deadline = Date().addingTimeInterval(seconds)
        while deadline.timeIntervalSinceNow > 0 { lo_server_recv_noblock(server, 20) }
        defer { inbox = [] }
        return inbox
    }

    /// Sends `path` with `arguments` to the client at `url`, from the server's socket.
    func send(_ path: String, _ arguments: [Received.Argument], to url: String) {
        guard let address = lo_address_new_from_url(url), let message = lo_message_new() else { return }
        defer {
            lo_message_free(message)
            lo_address_free(address)
        }
        for argument in arguments {
            switch argument {
            case .string(let text): lo_message_add_string(message, text)
            case .int(let value): lo_message_add_int32(message, value)
            case .float(let value): lo_message_add_float(message, value)
            }
        }
        lo_send_message_from(address, server, path, message)
    }
}
