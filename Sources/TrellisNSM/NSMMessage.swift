import TrellisControl

/// The API version this client speaks, sent in its announce: NSM API 1.1.2.
public enum NSMAPI {
    public static let major: Int32 = 1
    public static let minor: Int32 = 1
}

/// What a session manager sends a client (NSM API 1.1.2: the announce's response and
/// the server-to-client messages).
public enum NSMServerMessage: Sendable, Equatable {
    /// `/reply "/nsm/server/announce" s:message s:name_of_session_manager s:capabilities`:
    /// from here on the client is under session management.
    case welcome(message: String, manager: String, capabilities: String)
    /// `/error "/nsm/server/announce" i:error_code s:message`.
    case refused(code: Int32, message: String)
    /// `/nsm/client/open s:path_to_instance_specific_project s:display_name s:client_id`.
    case open(path: String, displayName: String, clientID: String)
    /// `/nsm/client/save`.
    case save
    /// `/nsm/client/session_is_loaded`: informational, needs no response.
    case sessionIsLoaded

    /// Reads `message`; a path the API does not send clients, or arguments of the wrong
    /// number or types, is an error that names the message.
    public init(_ message: OSCMessage) throws(NSMError) {
        let arguments = message.arguments
        switch (message.path, arguments.first) {
        case ("/reply", .string("/nsm/server/announce")?):
            guard arguments.count >= 4, case .string(let text) = arguments[1], case .string(let manager) = arguments[2],
                  case .string(let capabilities) = arguments[3] else { throw Self.malformed(message, "s:path s:message s:name s:capabilities") }
            self = .welcome(message: text, manager: manager, capabilities: capabilities)
        case ("/error", .string("/nsm/server/announce")?):
            guard arguments.count >= 3, case .int(let code) = arguments[1], case .string(let text) = arguments[2] else {
                throw Self.malformed(message, "s:path i:error_code s:message")
            }
            self = .refused(code: code, message: text)
        case ("/nsm/client/open", _):
            guard arguments.count == 3, case .string(let path) = arguments[0], case .string(let display) = arguments[1],
                  case .string(let client) = arguments[2] else { throw Self.malformed(message, "s:path s:display_name s:client_id") }
            self = .open(path: path, displayName: display, clientID: client)
        case ("/nsm/client/save", _): self = .save
        case ("/nsm/client/session_is_loaded", _): self = .sessionIsLoaded
        default:
            throw NSMError("the session manager sent \(message.path)\(Self.signature(of: message)), which NSM API 1.1.2 does not send a client without GUI; ignored")
        }
    }

    private static func malformed(_ message: OSCMessage, _ expected: String) -> NSMError {
        NSMError("the session manager sent \(message.path)\(signature(of: message)); NSM API 1.1.2 defines it with \(expected); ignored")
    }

    private static func signature(of message: OSCMessage) -> String {
        message.arguments.isEmpty ? "" : " " + message.arguments.map { argument in
            switch argument {
            case .string(let text): "s:\"\(text.prefix(80))\""
            case .int(let value): "i:\(value)"
            case .float(let value): "f:\(value)"
            }
        }.joined(separator: " ")
    }
}

/// What a client sends its session manager.
public enum NSMClientMessage: Sendable, Equatable {
    /// `/nsm/server/announce s:application_name s:capabilities s:executable_name
    /// i:api_version_major i:api_version_minor i:pid`.
    case announce(application: String, capabilities: String, executable: String, pid: Int32)
    /// `/reply s:path s:message`: `path` done.
    case reply(to: String, message: String)
    /// `/error s:path i:error_code s:message`: `path` failed.
    case error(to: String, code: NSMErrorCode, message: String)
    /// `/nsm/client/is_dirty` or `/nsm/client/is_clean` (capability `:dirty:`).
    case dirty(Bool)
    /// `/nsm/client/message i:priority s:message`, priority 0 to 3 (capability `:message:`).
    case status(priority: Int32, message: String)

    public var osc: OSCMessage {
        switch self {
        case .announce(let application, let capabilities, let executable, let pid):
            OSCMessage(path: "/nsm/server/announce", arguments: [
                .string(application), .string(capabilities), .string(executable), .int(NSMAPI.major), .int(NSMAPI.minor), .int(pid),
            ])
        case .reply(let path, let message): OSCMessage(path: "/reply", arguments: [.string(path), .string(message)])
        case .error(let path, let code, let message): OSCMessage(path: "/error", arguments: [.string(path), .int(code.rawValue), .string(message)])
        case .dirty(let dirty): OSCMessage(path: dirty ? "/nsm/client/is_dirty" : "/nsm/client/is_clean", arguments: [])
        case .status(let priority, let message): OSCMessage(path: "/nsm/client/message", arguments: [.int(min(max(priority, 0), 3)), .string(message)])
        }
    }
}
