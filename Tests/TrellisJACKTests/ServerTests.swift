import Foundation
import Testing
import TrellisCore
import TrellisJACK

extension JACKIntegration {
    @Suite("Server")
    struct Server {
        @Test("A private server accepts clients once started and none after it is stopped")
        func privateServer() throws {
            let server = try TestServer.start()
            #expect(JACKServer.isRunning(name: server.name))
            #expect(try jackTool("jack_bufsize", [], server: server.name).contains("256"))
            server.stop()
            #expect(!server.isAlive)
            #expect(!JACKServer.isRunning(name: server.name))
        }

        @Test("Starting a head node with no server running fails with a clear error and starts no server")
        func noServer() throws {
            let name = TestServer.uniqueName()
            let source = GainFilterSource(channels: 1, gain: 1, coefficient: 1)
            let head = try JACKHeadNode(
                configuration: JACKConfiguration(serverName: name, inputChannels: 1, outputChannels: 1),
                source: source, prepare: { _ in })
            #expect(throws: JACKError.serverNotRunning(server: name)) { try head.start() }
            #expect(!JACKServer.isRunning(name: name))
            #expect(JACKError.serverNotRunning(server: name).description.contains("no JACK server is running"))
        }

        @Test("Starting a second server under a name in use is refused")
        func duplicateServer() throws {
            let server = try TestServer.start()
            defer { server.stop() }
            #expect(throws: JACKError.serverAlreadyRunning(server: server.name)) {
                _ = try JACKServer.startPrivateServer(name: server.name)
            }
        }
    }
}
