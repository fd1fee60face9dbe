import Dispatch
import Foundation
import TrellisJACK
import TrellisLive
import TrellisMedia
import TrellisSession

/// A chain with `jack` at either end: turned into a session and run live, as `trellis
/// run` runs one, until interrupted or for `duration` seconds.
struct LiveChain {
    let pipeline: ChainPipeline
    let server: String?
    let startServer: Bool
    let duration: Double?
    let blockSize: Int
    let sampleRate: Double

    func run() throws {
        let document = try ChainSession.document(pipeline, file: "(chain)", sampleRate: sampleRate, blockSize: blockSize)
        let loaded: LoadedSession
        do {
            loaded = try SessionLoader.load(
                document: document, directory: FileManager.default.currentDirectoryPath, registry: try Units.registry())
        } catch { throw CLIError("chain: \(error)") }
        var privateServer: JACKServer?
        if !JACKServer.isRunning(name: server) {
            guard startServer else {
                throw CLIError("no JACK server \(server.map { "named \"\($0)\" " } ?? "")is running; start one, or pass --start-server for a private one on the dummy backend")
            }
            do { privateServer = try JACKServer.startPrivateServer(name: server ?? "default") } catch {
                throw CLIError("could not start a private JACK server: \(error)")
            }
        }
        defer { privateServer?.stop() }
        let live: LiveSession
        do {
            live = try LiveSession(session: loaded, serverName: server)
            try live.start()
        } catch { throw CLIError("\(error)") }
        let recorders: [FileRecorder]
        do { recorders = try loaded.startTransport(atSampleTime: nil) } catch {
            live.stop()
            throw CLIError("\(error)")
        }
        let stop = DispatchSemaphore(value: 0)
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let sources = [SIGINT, SIGTERM].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { stop.signal() }
            source.resume()
            return source
        }
        let deadline: DispatchTime = duration.map { .now() + $0 } ?? .distantFuture
        _ = stop.wait(timeout: deadline)
        sources.forEach { $0.cancel() }
        live.stop()
        for recorder in recorders {
            do { _ = try recorder.stop() } catch { Log.logger.error("\(error)") }
        }
    }
}
