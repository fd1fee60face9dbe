import ArgumentParser
import Foundation
import TrellisChain
import TrellisCore
import TrellisNSM
import TrellisSession
import TrellisWeb

struct NSMCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nsm",
        abstract: "Run under a session manager (New Session Manager): it opens, saves and switches sessions.",
        discussion: """
            Started by the session manager, which sets NSM_URL. Trellis announces itself, joins \
            JACK only when the manager opens a session, under the client id the manager gives, and \
            keeps each session as session.yaml in the folder the manager names. Managers that start \
            programs without arguments run `trellis-nsm`, a link to trellis that means `trellis nsm`. \
            SIGTERM ends it at once, as the manager expects.
            """)

    @OptionGroup var live: LiveSessionOptions

    @OptionGroup var parallel: ThreadsOption

    @Option(help: "The session file a new session starts as (default: stereo inputs straight to stereo outputs).")
    var template: String?

    @Flag(help: "Write notification events as JSON lines.")
    var json = false

    @Option(help: "Serve the web desk of the open session on [ADDRESS:]PORT (default address 127.0.0.1); the URL is logged, and `trellis ctl CLIENT_ID web` prints it.")
    var web: String?

    /// A new session: two JACK inputs straight to two outputs, to be built on with `trellis ctl`.
    static let emptySession = SessionWriter.header + """

        version: 1   # a new Trellis session: stereo in, straight through, stereo out; build on it with trellis ctl
        jack: { inputs: [in_1, in_2], outputs: [out_1, out_2] }
        nodes:
          in: { unit: input, channels: 2 }
          out: output
        connections:
          - in -> out

        """

    func run() throws {
        guard let url = ProcessInfo.processInfo.environment["NSM_URL"], !url.isEmpty else {
            throw CLIError("NSM_URL is not set: `trellis nsm` is started by a session manager (nsmd, Agordejo, RaySession), which sets it; to run a session yourself, use `trellis run`")
        }
        let address: NSMAddress
        do { address = try NSMAddress(url: url) } catch { throw CLIError("\(error)") }
        var text = Self.emptySession
        if let template {
            do { text = String(decoding: try Files.readRegular(template, limit: SessionLoader.maximumFileBytes), as: UTF8.self) } catch {
                throw CLIError("cannot read the template \(template): \(error)")
            }
        }
        let webDesk: WebDesk.Configuration?
        do { webDesk = try web.map(WebDesk.Configuration.init(parsing:)) } catch { throw CLIError("\(error)") }
        LiveRunning.ignoreSIGPIPE()
        let output = StatusOutput(json: json)
        let host = NSMHost(NSMHost.Options(
            registry: try Units.shared(), output: output, server: live.server, startServer: live.startServer, template: text, fileTimeout: live.fileTimeout,
            loadOptions: parallel.loadOptions, web: webDesk))
        try host.announce(to: address, executable: CommandLine.arguments.first ?? "trellis")
        LiveRunning.waitForInterrupt(duration: nil)
        let recorded = host.stop()
        output.finish()
        if host.refused || !recorded { throw ExitCode.failure }
    }
}
