import Foundation
import Testing
import TrellisControl
import TrellisCore
import TrellisGraph
import TrellisSession

@Suite("The line protocol on a socket")
struct SocketTests {
    @Test("hello answers with the protocol's version")
    func hello() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        #expect(try rig.ask("hello") == "ok trellis-control \(ControlDispatcher.protocolVersion)")
    }

    @Test("a node added and wired in one batch sits in the chain")
    func addIntoChain() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        let client = try rig.client()
        #expect(try client.request("add boost gain channels=1 gain=6") == "ok boost")
        let reply = try client.request("disconnect trim out ; connect trim boost ; connect boost out")
        #expect(reply == "ok", "\(reply)")
        let names = Dictionary(uniqueKeysWithValues: rig.graph.nodes.map { ($0.id, $0.name) })
        let links = Set(rig.graph.connections.map { "\(names[$0.source]!)->\(names[$0.destination]!)" })
        #expect(links == ["tone1->trim", "trim->boost", "boost->out"])
        let boost = try rig.graph.node(named: "boost")
        #expect(try boost.unit.parameterValue(boost.unit.parameters[0].address) == 6)
    }

    @Test("set changes the unit's parameter and get reads it back")
    func setAndGet() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        let client = try rig.client()
        #expect(try client.request("set tone1 freq 440") == "ok 440")
        #expect(try client.request("set tone1 waveform square") == "ok square")
        let tone = try rig.graph.node(named: "tone1").unit
        #expect(try tone.parameterValue(ParameterText.find("freq", in: tone)!.address) == 440)
        #expect(try client.request("get tone1 freq") == "ok 440")
        #expect(try client.request("get tone1 waveform") == "ok square")
    }

    @Test("errors carry the code for what was wrong", arguments: [
        ("set ghost gain 1", "UNKNOWN_NODE"), ("set trim gian 1", "UNKNOWN_PARAMETER"), ("set trim gain 99", "OUT_OF_RANGE"),
        ("set trim gain loud", "BAD_VALUE"), ("add x nosuchunit", "UNKNOWN_UNIT"), ("add trim gain", "DUPLICATE_NODE"),
        ("connect tone1 out", "GRAPH"), ("frobnicate", "UNKNOWN_COMMAND"), ("get trim", "SYNTAX"), ("jack connect a b", "NO_JACK"),
    ])
    func errorCodes(line: String, code: String) throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        let reply = try rig.ask(line)
        #expect(reply.hasPrefix("error \(code) "), "\(line) -> \(reply)")
    }

    @Test("a batch whose last edit fails changes nothing")
    func failedBatch() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        let before = rig.graph.connections
        let reply = try rig.ask("disconnect trim out ; connect trim ghost")
        #expect(reply.hasPrefix("error UNKNOWN_NODE command 2 of the batch"))
        #expect(rig.graph.connections == before)
    }

    @Test("players and recorders answer UNSUPPORTED naming why")
    func unsupported() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        let play = try rig.ask("play tone1")
        #expect(play.hasPrefix("error UNSUPPORTED play needs a file player node; tone1 is tone"))
        #expect(try rig.ask("seek tone1 2.5").hasPrefix("error UNSUPPORTED seek needs a file player"))
        #expect(try rig.ask("record start").hasPrefix("error UNSUPPORTED recording is not available"))
    }

    @Test("blank lines and comments get no reply")
    func blankLines() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        let client = try rig.client()
        try client.send("")
        try client.send("# a comment")
        #expect(try client.request("hello").hasPrefix("ok trellis-control"))
    }

    @Test("a line longer than the limit is LINE_TOO_LONG and the next line is served")
    func longLine() throws {
        var limits = LineServer.Limits()
        limits.lineBytes = 1000
        let rig = try ControlRig(limits: limits)
        defer { rig.stop() }
        let client = try rig.client()
        try client.send("set trim gain " + String(repeating: "1", count: 5000))
        let reply = try client.readReply()
        #expect(reply?.hasPrefix("error LINE_TOO_LONG") == true, "\(reply ?? "nil")")
        #expect(try client.request("get trim gain") == "ok 0")
    }

    @Test("JSON mode echoes each request's id in its reply")
    func jsonMode() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        let client = try rig.client()
        #expect(try client.request("mode json") == "ok json")
        let reply = try client.request(#"{"id": 7, "command": "set", "args": ["trim", "gain", -6]}"#)
        let object = try #require(JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any])
        #expect(object["id"] as? Int == 7)
        #expect(object["ok"] as? Bool == true)
        #expect((object["result"] as? [String: Any])?["value"] as? Double == -6)
        let failure = try client.request(#"{"id": "b", "command": "get trim nothing"}"#)
        let error = try #require(JSONSerialization.jsonObject(with: Data(failure.utf8)) as? [String: Any])
        #expect(error["id"] as? String == "b")
        #expect((error["error"] as? [String: Any])?["code"] as? String == "UNKNOWN_PARAMETER")
        let noID = try client.request(#"{"command": "list"}"#)
        #expect(noID.contains(#""code":"SYNTAX""#))
    }

    @Test("the protocol works the same on TCP on 127.0.0.1")
    func tcp() throws {
        let rig = try ControlRig(endpoint: .tcp(port: 0))
        defer { rig.stop() }
        guard case .tcp(let port) = rig.server.endpoint else { Issue.record("not TCP"); return }
        #expect(port > 0)
        #expect(try rig.ask("get trim gain") == "ok 0")
    }

    @Test("watchers hear a load and a connection that does not watch hears nothing")
    func watchEvents() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        let watcher = try rig.client(), bystander = try rig.client()
        #expect(try watcher.request("watch events=graph").hasPrefix("ok events=graph"))
        let other = try write(toneSession, to: "other.yaml", in: rig.folder)
        #expect(try bystander.request("load \(other)").hasPrefix("ok 3 nodes, 2 connections"))
        #expect(try watcher.readLine() == "event graph loaded \(other)")
        #expect(try bystander.request("hello").hasPrefix("ok"))
        #expect(bystander.events.isEmpty)
    }

    @Test("a second server on a socket that a session answers on is refused")
    func socketInUse() throws {
        let rig = try ControlRig()
        defer { rig.stop() }
        #expect(throws: ControlSocketError.self) {
            _ = try LineServer(endpoint: rig.server.endpoint, dispatcher: rig.dispatcher)
        }
    }
}
