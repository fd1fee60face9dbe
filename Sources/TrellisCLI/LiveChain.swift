import Foundation
import TrellisChain
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
        let registry = try Units.shared()
        let loaded: LoadedSession
        do {
            loaded = try SessionLoader.load(document: document, directory: FileManager.default.currentDirectoryPath, registry: registry)
        } catch { throw CLIError("chain: \(error)") }
        let privateServer = try LiveRunning.ensureServer(named: server, startIfMissing: startServer)
        defer { privateServer?.stop() }
        // Listening before the first cycle: what the first cycles report is not lost.
        let warnings = RenderWarnings(engine: loaded.graph.engine, registry: registry)
        let live: LiveSession
        do {
            live = try LiveSession(session: loaded, serverName: server)
            try live.start()
        } catch { throw CLIError("\(error)") }
        let recorders: [FileRecorder]
        do { recorders = try loaded.startTransport(atSampleTime: nil, readAhead: LiveSessionOptions.defaultFileTimeout) } catch {
            live.stop()
            throw CLIError("\(error)")
        }
        withExtendedLifetime(warnings) {
            LiveRunning.waitForInterrupt(duration: duration)
            live.stop()
        }
        for recorder in recorders {
            do { _ = try recorder.stop() } catch { Log.logger.error("\(error)") }
        }
    }
}
