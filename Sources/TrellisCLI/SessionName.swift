import Foundation

/// A session given by name alone, as a service names it (`trellis@live-mix`): the file
/// `NAME.yaml` in the user's `$XDG_CONFIG_HOME/trellis/sessions/` (default
/// `~/.config/trellis/sessions/`), else in `/etc/trellis/sessions/`.
enum SessionName {
    /// The folders looked in, in order.
    static func folders(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.config"
        return [config + "/trellis/sessions", "/etc/trellis/sessions"]
    }

    /// `argument` itself when it names a file or a path; else the named session's file.
    static func resolve(_ argument: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(CLIError) -> String {
        if argument.contains("/") || FileManager.default.fileExists(atPath: argument) { return argument }
        let name = argument.hasSuffix(".yaml") ? String(argument.dropLast(5)) : argument
        let candidates = folders(environment: environment).map { "\($0)/\(name).yaml" }
        if let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) { return found }
        throw CLIError("no session file \(argument), and no session named \(name) in \(candidates.joined(separator: " or "))")
    }
}
