import Foundation
import Testing
import TrellisCore
import TrellisGraph
@testable import TrellisJACK
import TrellisLV2
import TrellisUnits

extension JACKIntegration {
    @Suite("MIDI to an instrument")
    struct MIDIToInstrument {
        @Test("notes sent to Trellis' MIDI input port make an LV2 instrument in the graph sound at the output ports")
        func midiPortPlaysInstrument() throws {
            let server = try TestServer.start()
            defer { server.stop() }
            let registry = BuiltInUnits.registry()
            LV2Components.addResolver(to: registry, world: LV2World())
            let graph = Graph(registry: registry, maximumFrames: 256)
            let keys = try graph.addNode(MIDIInputPort(port: 0), name: "keys")
            let piano = try graph.addNode(named: "lv2:http://drobilla.net/plugins/mda/EPiano")
            let output = try graph.addNode(named: "output")
            try graph.connectMIDI(keys, to: piano)
            try graph.connect(piano, to: output)
            var configuration = JACKConfiguration(clientName: "trellis", serverName: server.name, inputChannels: 0, outputChannels: 2)
            configuration.midiInputs = 1
            let head = try JACKHeadNode(configuration: configuration, source: graph.engine) { settings in
                try graph.prepare(frames: settings.maximumFrames, sampleRate: settings.sampleRate)
            }
            defer { head.stop() }
            try head.start()
            let recorder = try TestRecorder(server: server.name, channels: 2, capacity: 9_600)
            defer { recorder.close() }
            let sender = try TestMIDISender(server: server.name)
            defer { sender.close() }
            try sender.connect("midisender:midi_out_1", "trellis:midi_in_1")
            try sender.connect("trellis:out_1", "recorder:in_1")
            try sender.connect("trellis:out_2", "recorder:in_2")
            try recorder.record()
            let silent = recorder.samples(channel: 0)
            try recorder.record { sender.sending.store(true, ordering: .relaxed) }
            let played = recorder.samples(channel: 0)
            #expect(silent.allSatisfy { $0 == 0 }, "no MIDI, no sound")
            let energy = played.reduce(0) { $0 + $1 * $1 } / Float(played.count)
            #expect(energy.squareRoot() > 0.005, "the instrument sounds: rms \(energy.squareRoot())")
        }
    }
}
