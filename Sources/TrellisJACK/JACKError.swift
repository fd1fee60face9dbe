import TrellisCore

/// Why a JACK operation on the control side failed. Each case names the client, server
/// or port involved.
public enum JACKError: Error, Equatable, CustomStringConvertible {
    case serverNotRunning(server: String)
    case clientOpenFailed(client: String, server: String, status: UInt32)
    case portRegistrationFailed(port: String, client: String)
    case activationFailed(client: String, code: Int32)
    case prepareFailed(settings: BackendSettings, message: String)
    case alreadyStarted(client: String)
    case notRunning(client: String)
    case invalidConfiguration(String)
    case invalidPattern(String, reason: String)
    case freewheelFailed(client: String, enable: Bool, code: Int32)
    case serverAlreadyRunning(server: String)
    case serverLaunchFailed(executable: String, errno: Int32)
    case serverExited(server: String, status: Int32)
    case serverStartTimedOut(server: String, milliseconds: Int)

    public var description: String {
        switch self {
        case .serverNotRunning(let server):
            return "no JACK server is running (server \"\(server)\"); start one, e.g. `jackd -d alsa`, or ask Trellis to start a private one"
        case .clientOpenFailed(let client, let server, let status):
            return "JACK client \"\(client)\" could not open on server \"\(server)\": \(JACKStatusBits.describe(status))"
        case .portRegistrationFailed(let port, let client):
            return "JACK client \"\(client)\" could not register port \"\(port)\""
        case .activationFailed(let client, let code):
            return "JACK client \"\(client)\" could not be activated (error \(code))"
        case .prepareFailed(let settings, let message):
            return "the render source could not prepare for \(settings.maximumFrames) frames at \(settings.sampleRate) Hz: \(message)"
        case .alreadyStarted(let client):
            return "JACK client \"\(client)\" is already started"
        case .notRunning(let client):
            return "JACK client \"\(client)\" is not running"
        case .invalidConfiguration(let reason):
            return "invalid JACK configuration: \(reason)"
        case .invalidPattern(let pattern, let reason):
            return "invalid port pattern \"\(pattern)\": \(reason)"
        case .freewheelFailed(let client, let enable, let code):
            return "JACK client \"\(client)\" could not turn freewheel \(enable ? "on" : "off") (error \(code))"
        case .serverAlreadyRunning(let server):
            return "a JACK server named \"\(server)\" is already running"
        case .serverLaunchFailed(let executable, let errno):
            return "could not launch \(executable) (errno \(errno))"
        case .serverExited(let server, let status):
            return "JACK server \"\(server)\" exited during start-up (wait status \(status))"
        case .serverStartTimedOut(let server, let milliseconds):
            return "JACK server \"\(server)\" did not accept clients within \(milliseconds) ms"
        }
    }
}

/// Spells out a `jack_status_t`.
enum JACKStatusBits {
    static func describe(_ status: UInt32) -> String {
        let names: [(UInt32, String)] = [
            (0x01, "failure"), (0x02, "invalid option"), (0x04, "name not unique"),
            (0x08, "server started"), (0x10, "server failed"), (0x20, "server error"),
            (0x40, "no such client"), (0x80, "load failure"), (0x100, "init failure"),
            (0x200, "shared memory failure"), (0x400, "version error"), (0x800, "backend error"),
            (0x1000, "client zombie"),
        ]
        let set = names.filter { status & $0.0 != 0 }.map(\.1)
        return set.isEmpty ? "status 0x\(String(status, radix: 16))" : set.joined(separator: ", ")
    }
}
