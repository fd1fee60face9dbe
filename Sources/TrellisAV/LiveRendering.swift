import Foundation
import TrellisCore
import TrellisGraph
import TrellisJACK

/// The engine rendered live: its graph driven by a JACK client (Trellis' head node),
/// whose process callback runs the compiled program on JACK's real-time thread.
final class LiveRendering {
    private let driver: GraphDriver<JACKHeadNode>
    private var listener: Int?

    init(graph: Graph, serverName: String?, inputChannels: Int, outputChannels: Int) throws(AVAudioError) {
        let configuration = JACKConfiguration(
            clientName: ProcessInfo.processInfo.processName, serverName: serverName, inputChannels: inputChannels, outputChannels: outputChannels,
            connectPhysicalPorts: true)
        for node in graph.nodes { try? node.unit.setProperty(.offlineRender, .bool(false), scope: .global, element: 0) }
        do {
            driver = try GraphDriver(graph: graph) { source, prepare throws(JACKError) in
                try JACKHeadNode(configuration: configuration, source: source, prepare: prepare)
            }
        } catch { throw AVAudioError(.state, "AVAudioEngine.start: \(error)") }
    }

    /// Starts, posting what the head node reports as notifications about `engine`.
    func start(for engine: AVAudioEngine) throws(AVAudioError) {
        listener = driver.backend.addListener { [weak engine] event in
            if let engine { AVAudioSession.post(event, engine: engine) }
        }
        do { try driver.start() } catch { throw AVAudioError(.state, "AVAudioEngine.start: \(error)") }
        driver.graph.engine.changeTransport(.play)
        driver.followLatencyChanges()
    }

    func stop() {
        driver.stop()
        listener.map { driver.backend.removeListener($0) }
        listener = nil
    }

    /// Runs `body` while the driver's upkeep and a change of settings leave the graph alone.
    func withGraph<T>(_ body: () -> T) -> T { driver.withGraph { _ in body() } }

    /// The server's rate and period while running.
    var settings: BackendSettings? { driver.backend.settings }

    /// The next cycle's sample time.
    var sampleTime: Int64 { driver.backend.nextCycleSampleTime }
}
