import Foundation
import Testing
import TrellisCore
import TrellisJACK

extension JACKIntegration {
    @Suite("Connections")
    struct Connections {
        @Test("Connecting and disconnecting a port from outside posts route changes")
        func outsideChangesPostRouteChanges() throws {
            let rig = try JACKRig()
            defer { rig.tearDown() }
            try rig.head.start()
            try jackTool("jack_connect", ["system:capture_1", "trellis:in_1"], server: rig.server.name)
            try rig.log.wait(for: .routeChanged(JACKRouteChange(port: "trellis:in_1", peer: "system:capture_1", connected: true)))
            try jackTool("jack_disconnect", ["system:capture_1", "trellis:in_1"], server: rig.server.name)
            try rig.log.wait(for: .routeChanged(JACKRouteChange(port: "trellis:in_1", peer: "system:capture_1", connected: false)))
            #expect(rig.head.status().connections.isEmpty)
        }

        @Test("Connecting and disconnecting through the head node makes and breaks the connection and reports both")
        func connectAndDisconnectThroughHeadNode() throws {
            let rig = try JACKRig()
            defer { rig.tearDown() }
            try rig.head.start()
            let server = rig.server.name
            let warnings = try rig.head.connect(JACKConnectionRule(ports: "out_.*", peers: "system:playback_.*"))
            #expect(warnings.isEmpty)
            #expect(try connectionsReportedByJackLsp(of: "system:playback_1", server: server) == ["trellis:out_1"])
            #expect(try connectionsReportedByJackLsp(of: "system:playback_2", server: server) == ["trellis:out_2"])
            let change = JACKRouteChange(port: "trellis:out_1", peer: "system:playback_1", connected: true)
            try rig.log.wait(for: .routeChanged(change))
            try rig.head.disconnect(port: "out_1", from: "system:playback_1")
            #expect(try connectionsReportedByJackLsp(of: "trellis:out_1", server: server) == [])
            try rig.log.wait(for: .routeChanged(JACKRouteChange(port: "trellis:out_1", peer: "system:playback_1", connected: false)))
            #expect(rig.head.status().connections == [PortConnection(port: "trellis:out_2", peer: "system:playback_2")])
        }

        @Test("A rule with a pattern pairs our ports with the matching ports in order")
        func patternRule() throws {
            let rig = try JACKRig(configure: {
                $0.connections = [
                    JACKConnectionRule(ports: "in_.*", peers: "system:capture_[1-2]"),
                    JACKConnectionRule(ports: "out_2", peers: "system:playback_1"),
                ]
            })
            defer { rig.tearDown() }
            try rig.head.start()
            let server = rig.server.name
            #expect(try connectionsReportedByJackLsp(of: "trellis:in_1", server: server) == ["system:capture_1"])
            #expect(try connectionsReportedByJackLsp(of: "trellis:in_2", server: server) == ["system:capture_2"])
            #expect(try connectionsReportedByJackLsp(of: "trellis:out_1", server: server) == [])
            #expect(try connectionsReportedByJackLsp(of: "trellis:out_2", server: server) == ["system:playback_1"])
        }

        @Test("Asking for physical ports connects inputs to capture and outputs to playback in order")
        func physicalPorts() throws {
            let rig = try JACKRig(configure: { $0.connectPhysicalPorts = true })
            defer { rig.tearDown() }
            try rig.head.start()
            let server = rig.server.name
            #expect(try connectionsReportedByJackLsp(of: "trellis:in_1", server: server) == ["system:capture_1"])
            #expect(try connectionsReportedByJackLsp(of: "trellis:in_2", server: server) == ["system:capture_2"])
            #expect(try connectionsReportedByJackLsp(of: "trellis:out_1", server: server) == ["system:playback_1"])
            #expect(try connectionsReportedByJackLsp(of: "trellis:out_2", server: server) == ["system:playback_2"])
        }

        @Test("Nothing is connected unless asked")
        func noAutoConnect() throws {
            let rig = try JACKRig()
            defer { rig.tearDown() }
            try rig.head.start()
            for port in ["trellis:in_1", "trellis:in_2", "trellis:out_1", "trellis:out_2"] {
                #expect(try connectionsReportedByJackLsp(of: port, server: rig.server.name) == [])
            }
        }

        @Test("A connection to a port that does not exist is a warning and the head node still runs")
        func failedConnectionWarns() throws {
            let rig = try JACKRig(configure: { $0.connections = [JACKConnectionRule(ports: "in_1", peers: "nosuch:port")] })
            defer { rig.tearDown() }
            try rig.head.start()
            try rig.log.wait(for: .warning(.noMatchingPorts(pattern: "nosuch:port", side: "peer")))
            #expect(rig.head.status().phase == .running)
        }
    }
}
