import Foundation
import Testing
import TrellisCore
import TrellisJACK

extension JACKIntegration {
    @Suite("Life cycle")
    struct Lifecycle {
        @Test("Changing the buffer size while running re-prepares the source and audio keeps flowing")
        func bufferSizeChange() throws {
            let rig = try JACKRig(coefficient: 1)
            defer { rig.tearDown() }
            try rig.start()
            try rig.expectSignalThrough()
            for frames in [512, 1024, 256] {
                try jackTool("jack_bufsize", [String(frames)], server: rig.server.name)
                try rig.log.wait(for: .bufferSizeChanged(frames: frames))
                #expect(rig.source.preparedSettings.withLock { $0.last } == BackendSettings(maximumFrames: frames, sampleRate: 48000))
                #expect(rig.head.status().bufferFrames == frames)
                try rig.expectSignalThrough()
            }
        }

        @Test("Cycles larger than the source was prepared for output silence, not an overrun")
        func framesBeyondPreparedAreSilent() throws {
            let rig = try JACKRig(coefficient: 1, prepare: { settings, _ in
                if settings.maximumFrames > 256 { throw TestFailure("refusing \(settings.maximumFrames) frames") }
            })
            defer { rig.tearDown() }
            try rig.start()
            rig.player?.playing.store(true, ordering: .relaxed)
            try jackTool("jack_bufsize", ["512"], server: rig.server.name)
            try rig.log.wait("prepare failed for 512 frames") {
                if case .prepareFailed(let settings, let message) = $0 {
                    settings.maximumFrames == 512 && message.contains("refusing 512")
                } else { false }
            }
            try rig.log.wait(for: .outputSilenced(.framesExceedPrepared, frames: 512))
            try rig.recorder?.record()
            #expect(rig.recorder?.samples(channel: 2).allSatisfy { $0 == 0 } == true)
            #expect(rig.recorder?.samples(channel: 0).contains { $0 != 0 } == true)
            #expect(rig.head.status().preparedFrames == 256)

            try jackTool("jack_bufsize", ["256"], server: rig.server.name)
            try rig.log.wait(for: .outputResumed)
            try rig.expectSignalThrough()
        }

        @Test("Killing jackd and starting it again interrupts, reconnects, restores connections, and audio flows again")
        func serverLossAndReturn() throws {
            let rig = try JACKRig(coefficient: 1)
            defer { rig.tearDown() }
            try rig.start()
            try rig.expectSignalThrough()
            let before = Set(rig.head.status().connections)
            #expect(before.count == 4)

            rig.server.kill()
            try rig.log.wait("interruption began") { if case .interruptionBegan = $0 { true } else { false } }
            #expect(rig.head.status().phase == .interrupted)
            rig.player?.close()
            rig.recorder?.close()

            try rig.server.restart()
            try rig.log.wait(for: .interruptionEnded)
            #expect(rig.head.status().phase == .running)
            #expect(rig.head.status().interruptionCount == 1)

            // The other programs come back too, but nobody wires them to Trellis again.
            try rig.startClients(wire: false)
            try waitUntil(timeout: 10, "connections restored") { Set(rig.head.status().connections) == before }
            #expect(try connectionsReportedByJackLsp(of: "trellis:in_1", server: rig.server.name) == ["player:out_1"])
            try rig.expectSignalThrough()
        }

        @Test("A server that returns at another sample rate re-prepares the source at the new rate")
        func serverReturnsAtNewRate() throws {
            let rig = try JACKRig(coefficient: 1)
            defer { rig.tearDown() }
            try rig.start()
            try waitUntil(timeout: 5, "connections noticed") { rig.head.status().connections.count == 4 }
            rig.server.kill()
            try rig.log.wait("interruption began") { if case .interruptionBegan = $0 { true } else { false } }
            rig.player?.close()
            rig.recorder?.close()

            let returned = try JACKServer.startPrivateServer(name: rig.server.name, sampleRate: 44100, period: 512)
            defer {
                rig.tearDown()
                returned.stop()
            }
            try rig.log.wait(for: .interruptionEnded)
            #expect(rig.log.contains(.sampleRateChanged(44100)))
            #expect(rig.log.contains(.bufferSizeChanged(frames: 512)))
            #expect(rig.source.preparedSettings.withLock { $0.last } == BackendSettings(maximumFrames: 512, sampleRate: 44100))
            #expect(rig.head.status().sampleRate == 44100)
            try rig.startClients(wire: false)
            try waitUntil(timeout: 10, "connections restored") { rig.head.status().connections.count == 4 }
            try rig.expectSignalThrough()
        }

        @Test("Freewheel mode runs cycles faster than real time and is reported on and off")
        func freewheel() throws {
            let rig = try JACKRig()
            defer { rig.tearDown() }
            try rig.start()
            try rig.head.setFreewheel(true)
            try rig.log.wait(for: .freewheelChanged(true))
            let before = rig.head.status().cycleCount
            usleep(500_000)
            let during = rig.head.status()
            #expect(during.freewheeling)
            // Real time would be about 94 cycles in half a second.
            #expect(during.cycleCount - before > 300, "cycles in 0.5 s of freewheel: \(during.cycleCount - before)")
            try rig.head.setFreewheel(false)
            try rig.log.wait(for: .freewheelChanged(false))
            try rig.expectSignalThrough()
        }

        @Test("A cycle that overruns its period is counted and reported as an xrun")
        func xrunsAreCounted() throws {
            let rig = try JACKRig(setUpSource: { $0.stallAt = 50; $0.stallMicroseconds = 60_000 })
            defer { rig.tearDown() }
            try rig.start()
            try rig.log.wait("an xrun") { if case .xrun = $0 { true } else { false } }
            #expect(rig.head.status().xrunCount >= 1)
        }

        @Test("Listeners run on the head node's control thread, never on the audio thread")
        func listenersOffAudioThread() throws {
            let rig = try JACKRig()
            defer { rig.tearDown() }
            try rig.start()
            try jackTool("jack_bufsize", ["512"], server: rig.server.name)
            try rig.log.wait(for: .bufferSizeChanged(frames: 512))
            let audio = rig.source.renderThread.load(ordering: .relaxed)
            #expect(audio != 0)
            #expect(!rig.log.listenerThreads.contains(audio))
            #expect(!rig.log.listenerThreads.contains(UInt(pthread_self())))
        }
    }
}
