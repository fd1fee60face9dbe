import CTrellisLV2Shim
import Glibc
import Synchronization
import Testing
import TrellisCore
import TrellisEngine
import TrellisGraph
@testable import TrellisLV2
import TrellisTestSupport
import TrellisUnits

/// A graph of input → `unit` (named fx) → output, one channel, and what its engine's
/// listeners heard.
private final class Heard: Sendable {
    let notices = Mutex<[EngineNotice]>([])
}

private struct OneNode {
    let graph = Graph(registry: BuiltInUnits.registry(), maximumFrames: 256)
    let heard = Heard()
    private let source = AudioBufferList(channelCount: 1, frameCapacity: 256)
    private let out = AudioBufferList(channelCount: 1, frameCapacity: 256)
    private var cycle: Int64 = 0

    init(_ unit: any AudioUnit) throws {
        let input = try graph.addNode(GraphInput(channelCount: 1))
        let fx = try graph.addNode(unit, name: "fx")
        try graph.connect(input, to: fx)
        try graph.connect(fx, to: try graph.addNode(GenericOutput(channelCount: 1)))
        try graph.initialize()
        let heard = self.heard
        graph.engine.addNoticeListener { notice in heard.notices.withLock { $0.append(notice) } }
    }

    mutating func render(cycles: Int = 1) {
        for _ in 0..<cycles {
            source[0][0].update(repeating: 0.25, count: 256)
            _ = graph.engine.render(frameCount: 256, timeStamp: AudioTimeStamp(sampleTime: cycle * 256), input: source[0], output: out[0])
            cycle += 1
        }
    }

    func notices(_ kind: EngineNotification.Kind) -> [EngineNotice] { heard.notices.withLock { $0 }.filter { $0.kind == kind } }
}

private func loggerUnit() throws -> LV2PluginUnit {
    try makeUnit(TestPlugins.loggerURI, world: LV2World(path: TestPlugins.lv2Path()), maxFrames: 256)
}

@Suite("What units leave for the finish step: log lines and MIDI")
struct UnitMessageTests {
    @Test("a line a plugin logs in run reaches listeners as a notice naming the node, at the plugin's level")
    func runLogIsANotice() throws {
        let logger = try loggerUnit()
        var rig = try OneNode(logger)
        try logger.setParameter(named: "mark", 5)
        rig.render(cycles: 2)
        try logger.setParameter(named: "mark", -3)
        rig.render(cycles: 2)
        rig.graph.engine.finish()
        let lines = rig.notices(.log)
        #expect(lines.map(\.message) == [.log(.note, "mark 5"), .log(.warning, "mark -3 is below zero")])
        #expect(lines.allSatisfy { $0.unit?.node == "fx" && $0.unitID == logger.unitID })
        #expect(lines.map(\.isWarning) == [false, true])
        #expect(lines[1].text(registry: rig.graph.registry).hasSuffix(" logs warning: mark -3 is below zero"))
    }

    @Test("while the engine renders, its finish thread delivers a logged line within 100 ms")
    func finishThreadDeliversPromptly() throws {
        let logger = try loggerUnit()
        var rig = try OneNode(logger)
        rig.graph.engine.startRendering()
        defer { rig.graph.engine.stopRendering() }
        try logger.setParameter(named: "mark", 7)
        rig.render()
        let rendered = ContinuousClock.now
        while rig.notices(.log).isEmpty && ContinuousClock.now - rendered < .seconds(2) { usleep(1_000) }
        let waited = ContinuousClock.now - rendered
        #expect(rig.notices(.log).map(\.message) == [.log(.note, "mark 7")])
        #expect(waited < .milliseconds(100), "the line came \(waited) after the cycle")
    }

    @Test("MIDI a plugin sends reaches listeners with its sample time and the bus's name")
    func sentMIDIIsANotice() throws {
        let graph = Graph(registry: BuiltInUnits.registry(), maximumFrames: 512)
        let keys = try graph.addNode(MIDIInputPort(port: 0), name: "keys")
        let fifths = try graph.addNode(makeUnit(Fixture.fifths, maxFrames: 512), name: "fifths")
        let piano = try graph.addNode(makeUnit(Fixture.epiano, maxFrames: 512), name: "piano")
        try graph.connectMIDI(keys, to: fifths)
        try graph.connectMIDI(fifths, to: piano)
        try graph.connect(piano, to: try graph.addNode(named: "output"))
        try graph.initialize()
        let heard = Mutex<[EngineNotice]>([])
        graph.engine.addNoticeListener { notice in heard.withLock { $0.append(notice) } }
        _ = renderCycle(graph, midi: MIDIScript([(200, 0, 0x90, 60, 100)]))
        graph.engine.finish()
        let sent = heard.withLock { $0 }.filter { $0.kind == .midiOutput }
        #expect(sent.map(\.message) == [
            .midi(TimedMIDIMessage(sampleTime: 200, message: .noteOn(note: 60, velocity: 100)), bus: 0),
            .midi(TimedMIDIMessage(sampleTime: 200, message: .noteOn(note: 67, velocity: 100)), bus: 0),
        ])
        #expect(sent.allSatisfy { $0.unit?.node == "fifths" && $0.sampleTime == 200 })
        #expect(sent[1].text(registry: graph.registry).hasSuffix(" sent 90 43 64 on out at 0.00 s"))
    }

    @Test("MIDI beyond a cycle's buffer is dropped and reported with its count: 1,100 notes into a 1,024-event buffer lose 76")
    func droppedMIDIIsReported() throws {
        let graph = Graph(registry: BuiltInUnits.registry(), maximumFrames: 512)
        let keys = try graph.addNode(MIDIInputPort(port: 0), name: "keys")
        let piano = try graph.addNode(makeUnit(Fixture.epiano, maxFrames: 512), name: "piano")
        try graph.connectMIDI(keys, to: piano)
        try graph.connect(piano, to: try graph.addNode(named: "output"))
        try graph.initialize()
        let heard = Heard()
        graph.engine.addNoticeListener { notice in heard.notices.withLock { $0.append(notice) } }
        var flood: [(frame: Int, port: Int, status: UInt8, data1: UInt8, data2: UInt8)] = []
        for index in 0..<1_100 {
            let note = UInt8(36 + index % 60)
            flood.append((frame: index * 512 / 1_100, port: 0, status: 0x90, data1: note, data2: 1))
        }
        _ = renderCycle(graph, midi: MIDIScript(flood))
        _ = renderCycle(graph, midi: MIDIScript([]))
        graph.engine.finish()
        let dropped = heard.notices.withLock { $0 }.filter { $0.kind == .midiDropped }
        #expect(dropped.map(\.dropped) == [76])
        #expect(dropped.first?.unitID == 0)
        #expect(dropped.first?.isWarning == true)
        #expect(dropped.first?.text(registry: graph.registry) == "the backend's MIDI ports: 76 MIDI messages were dropped at sample 0, a cycle's buffer was full")
    }

    @Test("audio-thread lines beyond the ring's room are counted as lost; the ones that fit arrive in order")
    func overflowIsCounted() throws {
        let logger = try loggerUnit()
        try logger.initialize()
        let features = try #require(logger.features)
        let log = try #require(logFeature(features))
        let note = logger.world.urids.map(LV2URI.logNote)
        // Each line is cut to 511 bytes by the feature's 512-byte buffer and takes 4 + 1 + 511
        // bytes of the 16 KiB ring: 31 fit.
        let long = String(repeating: "x", count: 600)
        let state = AudioThread.enter()
        for index in 0..<100 {
            withVaList([Int32(index)]) { arguments in
                _ = ("%03d" + long).withCString { log.pointee.log.vprintf(log.pointee.log.handle, note, $0, arguments) }
            }
        }
        AudioThread.leave(restoring: state)
        var lines: [String] = []
        let dropped = logger.drainMessages { message in
            if case .log(_, let line) = message { lines.append(line) }
        }
        #expect(lines.count == 31)
        #expect(dropped == 69)
        #expect(lines.map { String($0.prefix(3)) } == (0..<31).map { String(format: "%03d", $0) })
        #expect(lines.allSatisfy { $0.utf8.count == 511 })
    }

    @Test("off the audio thread, a line logged while the plugin runs is a notice; one logged before goes to the world's handler")
    func otherThreadsWhileRunning() throws {
        let world = try LV2World(path: TestPlugins.lv2Path())
        let printed = Mutex<[String]>([])
        world.setLogHandler { message in printed.withLock { $0.append(message.text) } }
        let logger = try makeUnit(TestPlugins.loggerURI, world: world, maxFrames: 256)
        try logger.initialize()
        let features = try #require(logger.features)
        let log = try #require(logFeature(features))
        let note = world.urids.map(LV2URI.logNote)
        func say(_ text: String) {
            withVaList([]) { arguments in _ = text.withCString { log.pointee.log.vprintf(log.pointee.log.handle, note, $0, arguments) } }
        }
        say("while running")
        var lines: [UnitMessage] = []
        #expect(logger.drainMessages { lines.append($0) } == 0)
        #expect(lines == [.log(.note, "while running")])
        #expect(printed.withLock { $0 }.isEmpty)
        logger.features?.running.store(false, ordering: .releasing)
        say("not running")
        #expect(printed.withLock { $0 } == ["not running"])
    }
}

/// The log feature given to the plugin, as the plugin sees it.
private func logFeature(_ features: LV2HostFeatures) -> UnsafeMutablePointer<TrellisLV2Log>? {
    var index = 0
    while let feature = features.instantiation[index] {
        if String(cString: feature.pointee.URI) == LV2URI.log {
            return feature.pointee.data?.assumingMemoryBound(to: TrellisLV2Log.self)
        }
        index += 1
    }
    return nil
}
