import Foundation
import Synchronization
import Testing
import TrellisCore
@testable import TrellisLV2

@Suite("The LV2 worker")
struct WorkerTests {
    @Test("eg-sampler restored while active loads its sample on the worker thread, then plays it")
    func samplerLoadsThroughWorker() throws {
        let caller = pthread_self()
        let loads = Mutex<[Bool]>([])
        let world = LV2World()
        world.setLogHandler { message in
            guard message.text.hasPrefix("Loading") else { return }
            let elsewhere = pthread_equal(pthread_self(), caller) == 0
            loads.withLock { $0.append(elsewhere) }
        }
        let unit = try makeUnit(Fixture.sampler, world: world)
        try unit.initialize()
        // The default state loads synchronously, before activation, on this thread.
        #expect(loads.withLock { $0 } == [false])
        try unit.restoreState(try unit.saveState())
        let render = OfflineRender(unit)
        let deadline = Date().addingTimeInterval(5)
        while loads.withLock({ $0.count }) < 2, Date() < deadline {
            _ = render.process([], frames: 256)
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(loads.withLock { $0 } == [false, true])
        _ = render.process([], frames: 1024)
        #expect(unit.queueMIDI(.noteOn(note: 60, velocity: 127)))
        let played = render.process([], frames: 2048)
        #expect(rms(played[0][...]) > 0.001)
    }
}
