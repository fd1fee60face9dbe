import ArgumentParser

/// What `run` and `nsm` share: the JACK server a session joins, and how long a control
/// client's file work may take.
struct LiveSessionOptions: ParsableArguments {
    @Option(help: "The JACK server to join (default: the default server).")
    var server: String?

    @Flag(help: "Start a private JACK server with the dummy backend when none is running.")
    var startServer = false

    @Option(help: "Seconds a control load, save or player's file may take before the client is answered TIMEOUT and nothing changes.")
    var fileTimeout: Double = Self.defaultFileTimeout

    static let defaultFileTimeout = 10.0

    func validate() throws {
        guard fileTimeout.isFinite, fileTimeout > 0, fileTimeout <= 86_400 else {
            throw ValidationError("--file-timeout must be a number of seconds above 0 and at most 86400, not \(fileTimeout)")
        }
    }
}
