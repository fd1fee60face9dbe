import CAllocationCounter
import Foundation
import Testing
import TrellisCore
@testable import TrellisJACK

extension JACKIntegration {
    @Suite("Signal")
    struct Signal {
        @Test("Audio played into the input ports comes out of the output ports through the graph's gain and filter")
        func signalThroughGraph() throws {
            let rig = try JACKRig(channels: 2, recordFrames: 48000)
            defer { rig.tearDown() }
            try rig.start()
            let lags = try rig.expectSignalThrough()
            #expect(lags.allSatisfy { $0 % 256 == 0 && $0 <= 512 }, "lags \(lags) should be whole periods")
        }

        @Test("The status reports output peaks equal to the gain times the input amplitude")
        func statusPeaks() throws {
            let rig = try JACKRig(channels: 2, gain: 0.5, coefficient: 1)
            defer { rig.tearDown() }
            try rig.start()
            rig.player?.playing.store(true, ordering: .relaxed)
            usleep(300_000)
            _ = rig.head.status()
            usleep(300_000)
            let status = rig.head.status()
            // A 0.5-amplitude sine sampled at 48 kHz peaks within 0.1% of 0.5 over 0.3 s.
            for peak in status.outputPeaks {
                #expect(abs(peak - 0.25) < 0.25 * 1e-3, "peak \(peak)")
            }
            #expect(status.outputPeaksDecibels.allSatisfy { abs($0 - 20 * log10f(0.25)) < 0.01 })
        }

        @Test("The status reports a DSP load between zero and one and counts cycles at the server's pace")
        func statusLoadAndCycles() throws {
            let rig = try JACKRig()
            defer { rig.tearDown() }
            try rig.start()
            let before = rig.head.status()
            usleep(1_000_000)
            let after = rig.head.status()
            #expect(after.phase == .running)
            #expect(after.sampleRate == 48000)
            #expect(after.bufferFrames == 256)
            #expect(after.dspLoad > 0 && after.dspLoad < 1, "load \(after.dspLoad)")
            #expect(after.dspLoadPeak >= after.dspLoad)
            // One second is 187.5 periods of 256 frames; allow for scheduling slop.
            let cycles = after.cycleCount - before.cycleCount
            #expect(cycles > 120 && cycles < 250, "cycles in one second: \(cycles)")
        }

        @Test("The process callback allocates and frees nothing over 1,000 cycles")
        func noAllocations() throws {
            let rig = try JACKRig(
                channels: 2,
                configure: { $0.midiInputs = 1 },
                setUpSource: { $0.armAt = 100; $0.window = 1000 })
            defer { rig.tearDown() }
            try rig.start()
            let sender = try TestMIDISender(server: rig.server.name)
            defer { sender.close() }
            try sender.connect("midisender:midi_out_1", "trellis:midi_in_1")
            sender.sending.store(true, ordering: .relaxed)
            rig.player?.playing.store(true, ordering: .relaxed)
            try waitUntil(timeout: 30, "1,000 counted cycles") { rig.source.allocations.load(ordering: .acquiring) >= 0 }
            #expect(rig.source.allocations.load(ordering: .acquiring) == 0)
            #expect(rig.source.frees.load(ordering: .acquiring) == 0)
            #expect(rig.source.midiSeen.load(ordering: .acquiring) > 0, "the MIDI path ran during the window")
        }

        @Test("A render source that produces NaN is silenced and the silence is reported")
        func nonFiniteOutputIsSilenced() throws {
            let rig = try JACKRig(channels: 1, gain: .nan, coefficient: 1)
            defer { rig.tearDown() }
            try rig.start()
            rig.player?.playing.store(true, ordering: .relaxed)
            try rig.log.wait("output silenced for non-finite output") {
                if case .outputSilenced(.nonFiniteOutput, _) = $0 { true } else { false }
            }
            try rig.recorder?.record()
            let output = rig.recorder?.samples(channel: 1) ?? []
            #expect(output.allSatisfy { $0 == 0 })
            #expect(rig.head.status().silencedCycleCount > 0)
        }
    }
}
