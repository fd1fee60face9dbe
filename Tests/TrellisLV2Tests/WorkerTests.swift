import Foundation
import Synchronization
import Testing
import TrellisCore
@testable import TrellisLV2

@Suite("The LV2 worker")
struct WorkerTests {
    @Test("eg-sampler restored while active loads its sample on the worker, whose log line waits for the finish step")
    func samplerLoadsThroughWorker() throws {
        let loads = Mutex<Int>(0)
        let world = LV2World()
        world.setLogHandler { message in
            if message.text.hasPrefix("Loading") { loads.withLock { $0 += 1 } }
        }
        let unit = try makeUnit(Fixture.sampler, world: world)
        try unit.initialize()
        // The default state loads synchronously, before activation: straight to the world.
        #expect(loads.withLock { $0 } == 1)
        try unit.restoreState(try unit.saveState())
        var lines: [String] = []
        func drain() { _ = unit.drainMessages { if case .log(_, let line) = $0 { lines.append(line) } } }
        let render = OfflineRender(unit)
        let deadline = Date().addingTimeInterval(5)
        while !lines.contains(where: { $0.hasPrefix("Loading") }), Date() < deadline {
            _ = render.process([], frames: 256)
            Thread.sleep(forTimeInterval: 0.01)
            drain()
        }
        #expect(lines.contains { $0.hasPrefix("Loading") }, "\(lines)")
        #expect(loads.withLock { $0 } == 1)
        _ = render.process([], frames: 1024)
        #expect(unit.queueMIDI(.noteOn(note: 60, velocity: 127)))
        let played = render.process([], frames: 2048)
        #expect(rms(played[0][...]) > 0.001)
    }
}
