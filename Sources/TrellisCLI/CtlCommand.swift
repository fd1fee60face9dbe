import ArgumentParser
import Foundation
import TrellisControl

struct CtlCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ctl",
        abstract: "Send commands to a running session.",
        discussion: """
            Sends one command to the session NAME (its socket is $XDG_RUNTIME_DIR/trellis/NAME.sock; \
            a NAME with a slash is a socket path) and prints the reply. With no command, reads commands \
            from standard input, one a line, and prints each reply. Exit status 1 when a reply is an \
            error. Paths given to save and load are made absolute here, so they mean what they mean \
            in this shell. docs/control.md lists the commands; `trellis ctl NAME help` too.
            """)

    @Argument(help: "The session's name, or the path of its socket.")
    var name: String

    @Argument(parsing: .captureForPassthrough, help: "The command and its words; none reads standard input.")
    var command: [String] = []

    @Option(name: .customLong("tcp"), help: "Connect to 127.0.0.1:PORT instead of a socket, showing the session's secret.")
    var tcpPort: Int?

    @Option(help: "The session's secret file for --tcp (default: NAME.secret beside its socket).")
    var secretFile: String?

    @Option(help: "Seconds to wait for each reply.")
    var timeout: Double = 30

    func run() throws {
        if command.count == 1, command[0].lowercased() == "web" {
            try printWebURL()
            return
        }
        let endpoint = tcpPort.map { ControlEndpoint.tcp(port: $0) } ?? ControlEndpoint.named(name)
        let secret = try tcpPort.map(secret(forPort:))
        let client: ControlClient
        do { client = try ControlClient(endpoint: endpoint, secret: secret) } catch {
            throw CLIError("\(error) (is the session running?)")
        }
        // One quoted argument (`ctl NAME "set t amp 0.1"`) is the whole line.
        let words = command.count == 1 && command[0].contains(where: { $0 == " " || $0 == "\t" })
            ? ((try? CommandTokenizer.words(command[0])) ?? command) : command
        if words.count >= 2, words[0].lowercased() == "tap", words[1].lowercased() == "stream" {
            try stream(client, words: words)
            return
        }
        let session = CtlSession(client: client)
        session.start()
        if !words.isEmpty {
            session.send(Self.line(absolutizing: words), watching: Self.isWatch(words))
        } else {
            var next: () -> String? = { readLine(strippingNewline: true) }
            if LineEditor.isInteractive {
                let editor = LineEditor(prompt: "trellis> ", words: CommandHelp.entries.map(\.verb))
                session.editor = editor
                next = editor.readLine
            } else if isatty(STDIN_FILENO) != 0 {
                session.prompt = "trellis> "
            }
            session.showPrompt()
            while let line = next() {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.isEmpty || trimmed.hasPrefix("#") { session.showPrompt(); continue }
                let words = (try? CommandTokenizer.words(trimmed)) ?? []
                // Lines go as written (JSON too); only a relative save or load path is rewritten.
                let rewrites = words.count == 2 && ["save", "load"].contains(words[0].lowercased())
                session.send(rewrites ? Self.line(absolutizing: words) : trimmed,
                             watching: Self.isWatch(words) || trimmed.hasPrefix("{") && trimmed.contains("watch") && !trimmed.contains("watch off"))
            }
        }
        // Every reply, then (after a watch) every event until the session closes or we are stopped.
        if session.finish(timeout: timeout) == false { throw ExitCode.failure }
    }

    /// `ctl NAME web`: the desk's URL with its login token, from the session's secret file.
    private func printWebURL() throws {
        let path = secretFile ?? ControlEndpoint.secretPath(named: name)
        let file: ControlSecretFile
        do { file = try ControlSecretFile.read(path) } catch { throw CLIError("\(error) (is the session running with --web?)") }
        guard let url = file.webURL else { throw CLIError("\(name) serves no web desk (start it with trellis run --web [ADDR:]PORT)") }
        print(url + "?token=" + file.secret.webToken)
    }

    /// Whether the words start a watch that streams events.
    static func isWatch(_ words: [String]) -> Bool {
        words.first?.lowercased() == "watch" && !(words.count == 2 && words[1].lowercased() == "off")
    }

    /// `tap stream`: the reply goes to standard error, the audio (raw float32 frames) to
    /// standard output until the session ends the stream or we are stopped.
    private func stream(_ client: ControlClient, words: [String]) throws {
        let reply: String
        do { reply = try client.request(Self.line(absolutizing: words), timeout: timeout) } catch { throw CLIError("\(error)") }
        FileHandle.standardError.write(Data((reply + "\n").utf8))
        guard reply.hasPrefix("ok") || reply.hasPrefix("{") && reply.contains("\"ok\":true") else { throw ExitCode.failure }
        let output = FileHandle.standardOutput
        do {
            while let bytes = try client.readBytes() {
                do { try output.write(contentsOf: bytes) } catch { return }
            }
        } catch { throw CLIError("\(error)") }
    }

    /// The secret of the session that serves TCP on `port`. The file names the port, so
    /// a mistyped port never hands the secret to whoever listens there.
    private func secret(forPort port: Int) throws -> ControlSecret {
        let path = secretFile ?? ControlEndpoint.secretPath(named: name)
        let file: ControlSecretFile
        do { file = try ControlSecretFile.read(path) } catch { throw CLIError("\(error) (is the session running with --control-tcp?)") }
        guard file.tcpPort == port else {
            let serving = file.tcpPort.map { "serves TCP on port \($0)" } ?? "serves no TCP"
            throw CLIError("the session of \(path) \(serving), not on port \(port); its secret is not sent there")
        }
        return file.secret
    }

    /// The words as one line, with the path of `save`/`load` made absolute.
    static func line(absolutizing words: [String]) -> String {
        var words = words
        if words.count == 2, ["save", "load"].contains(words[0].lowercased()), !words[1].hasPrefix("/") {
            words[1] = FileManager.default.currentDirectoryPath + "/" + words[1]
        }
        return words.map(CommandTokenizer.quote).joined(separator: " ")
    }
}
