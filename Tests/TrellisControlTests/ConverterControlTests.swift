import Foundation
import Testing
import TrellisGraph
import TrellisUnits

@Suite("A converter from the control plane")
struct ConverterControlTests {
    @Test("add converter channel-map=... maps channels as asked, and save writes the map back")
    func channelMapAddedAndSaved() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        #expect(try rig.ask("add wide converter input-channels=1 channel-map=0,silence") == "ok wide")
        let unit = try #require(rig.graph.nodes.first { $0.name == "wide" }?.unit as? Converter)
        #expect(unit.channelMap.entries == [0, ChannelMap.silence])
        #expect(try unit.format(scope: .output, element: 0).channelCount == 2, "the map's two entries make the output stereo")
        #expect(try rig.ask("save copy.yaml") == "ok \(rig.folder)/copy.yaml")
        let saved = try String(contentsOfFile: rig.folder + "/copy.yaml", encoding: .utf8)
        #expect(saved.contains("channel-map: \"0,silence\""), "\(saved)")
        #expect(try rig.ask("load copy.yaml").hasPrefix("ok 4 nodes"))
    }

    @Test("a channel map that is not one is refused with the form it takes, and nothing is added")
    func badChannelMap() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        let reply = try rig.ask("add wide converter channel-map=0;1")
        #expect(reply.hasPrefix("error BAD_VALUE") && reply.contains("separated by commas"), "\(reply)")
        #expect(!rig.graph.nodes.contains { $0.name == "wide" })
    }

    @Test("a converter's rate, quality and dither are parameters: set, read back and listed")
    func edgeParameters() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        #expect(try rig.ask("add conv converter rate=44100 quality=quick") == "ok conv")
        #expect(try rig.ask("params conv") == "ok rate=44100 quality=quick dither=on")
        #expect(try rig.ask("set conv dither off") == "ok off")
        let edge = ConverterEdge(rig.graph)
        #expect(edge.quality == .quick && edge.dither == false)
    }
}

@Suite("The compiled program over the control protocol")
struct ProgramCommandTests {
    @Test("program answers the running program's listing on one line, and JSON mode as a list of lines")
    func program() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        let reply = try rig.ask("program")
        #expect(reply.hasPrefix("ok program: ") && reply.contains("; ") && reply.contains("render trim (aufx:gain:trls)"), "\(reply)")
        #expect(reply.split(separator: ";").count == rig.graph.programListing.split(separator: "\n").count)
        let client = try rig.client()
        #expect(try client.request("mode json") == "ok json")
        let json = try client.request(#"{"id": 1, "command": "program"}"#)
        #expect(json.contains(#""lines":["program: "#), "\(json)")
    }
}
