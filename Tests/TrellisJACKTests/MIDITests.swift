import Foundation
import Testing
import TrellisCore
import TrellisJACK

extension JACKIntegration {
    @Suite("MIDI")
    struct MIDI {
        @Test("MIDI events reach the render source with their bytes and frame offsets")
        func midiEventsReachSource() throws {
            let rig = try JACKRig(configure: { $0.midiInputs = 1 })
            defer { rig.tearDown() }
            try rig.start()
            let sender = try TestMIDISender(server: rig.server.name)
            defer { sender.close() }
            try sender.connect("midisender:midi_out_1", "trellis:midi_in_1")
            sender.sending.store(true, ordering: .relaxed)
            try waitUntil(timeout: 5, "a cycle with MIDI") { rig.source.midiSeen.load(ordering: .acquiring) > 0 }
            let source = rig.source
            #expect(source.midiSeen.load(ordering: .acquiring) == 2)
            #expect(source.midiFrames[0] == 17)
            #expect(Array(UnsafeBufferPointer(start: source.midiBytes, count: 3)) == [0x90, 60, 100])
            #expect(source.midiFrames[1] == 200)
            #expect(Array(UnsafeBufferPointer(start: source.midiBytes + 3, count: 3)) == [0x80, 60, 0])
        }
    }
}
