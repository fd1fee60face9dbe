import Foundation
import Testing
import TrellisCore
import TrellisJACK

/// A private jackd, a head node named "trellis" pulling a `GainFilterSource`, a player
/// feeding its inputs, and a recorder taking both the player's outputs (channels 0..<n,
/// the reference) and the head node's outputs (channels n..<2n).
final class JACKRig: @unchecked Sendable {
    let server: JACKServer
    let source: GainFilterSource
    let head: JACKHeadNode
    let log = EventLog()
    var player: TestPlayer?
    var recorder: TestRecorder?
    let channels: Int
    let recordFrames: Int

    init(
        channels: Int = 2, gain: Float = 0.5, coefficient: Float = 0.2, recordFrames: Int = 24000,
        configure: (inout JACKConfiguration) -> Void = { _ in },
        prepare: (@Sendable (BackendSettings, GainFilterSource) throws -> Void)? = nil,
        setUpSource: (GainFilterSource) -> Void = { _ in }
    ) throws {
        server = try TestServer.start()
        self.channels = channels
        self.recordFrames = recordFrames
        let source = GainFilterSource(channels: channels, gain: gain, coefficient: coefficient)
        setUpSource(source)
        self.source = source
        var configuration = JACKConfiguration(
            clientName: "trellis", serverName: server.name, inputChannels: channels, outputChannels: channels)
        configure(&configuration)
        head = try JACKHeadNode(configuration: configuration, source: source) { settings in
            source.prepare(settings)
            try prepare?(settings, source)
        }
        source.midi = head.midiInput
        log.attach(to: head)
    }

    /// Starts the head node and the test clients and wires player -> trellis -> recorder.
    func start() throws {
        try head.start()
        try startClients(wire: true)
    }

    func startClients(wire: Bool) throws {
        let player = try TestPlayer(server: server.name, frequencies: Array([440, 1000, 3000, 150].prefix(channels)))
        let recorder = try TestRecorder(server: server.name, channels: 2 * channels, capacity: recordFrames)
        self.player = player
        self.recorder = recorder
        for channel in 1...channels {
            try player.connect("player:out_\(channel)", "recorder:in_\(channel)")
            if wire {
                try player.connect("player:out_\(channel)", "trellis:in_\(channel)")
                try player.connect("trellis:out_\(channel)", "recorder:in_\(channels + channel)")
            }
        }
    }

    /// Records a window that starts in silence (so the source's filter is at rest) and
    /// checks every output channel against the source's math applied to the reference.
    /// A window during which the server reported an xrun (this machine is shared, and a
    /// missed deadline glitches any client) is recorded again, up to three times.
    /// Returns the measured lag of each channel.
    @discardableResult
    func expectSignalThrough(tolerance: Float = 1e-6) throws -> [Int] {
        guard let player, let recorder else { throw TestFailure("clients not started") }
        var failures: [String] = []
        for _ in 0..<3 {
            player.playing.store(false, ordering: .relaxed)
            usleep(100_000)
            let xruns = head.status().xrunCount
            try recorder.record { player.playing.store(true, ordering: .relaxed) }
            failures = []
            var lags: [Int] = []
            for channel in 0..<channels {
                let reference = recorder.samples(channel: channel)
                let output = recorder.samples(channel: channels + channel)
                guard let alignment = alignedError(recorded: output, expected: source.expected(for: reference)) else {
                    failures.append("channel \(channel): no sound came through")
                    continue
                }
                if alignment.maximumError > tolerance {
                    failures.append("channel \(channel): error \(alignment.maximumError) at lag \(alignment.lag)")
                }
                if alignment.compared <= recordFrames / 2 {
                    failures.append("channel \(channel): only \(alignment.compared) frames compared")
                }
                lags.append(alignment.lag)
            }
            if failures.isEmpty { return lags }
            // xruns reach clients on libjack's notification thread, after the cycle.
            usleep(200_000)
            if head.status().xrunCount == xruns { break }
        }
        for failure in failures { Issue.record(Comment(rawValue: failure)) }
        return []
    }

    func tearDown() {
        head.stop()
        player?.close()
        recorder?.close()
        server.stop()
    }
}
