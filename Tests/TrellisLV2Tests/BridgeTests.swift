import Foundation
import Testing
import TrellisCore
import TrellisTestSupport
@testable import TrellisLV2

/// Renders `signal` through `uri` in this process and in a bridge process, with the
/// same parameter settings.
private func bothWays(_ uri: String, settings: [String: Float], signal: [[Float]], frames: Int) throws -> (local: [[Float]], bridged: [[Float]]) {
    BridgeSupport.useBuiltTrellis()
    var outputs: [[[Float]]] = []
    for isolated in [false, true] {
        let unit = try makeUnit(uri, maxFrames: 256)
        unit.isolation = isolated ? Isolation() : nil
        // Offline: a busy machine may make a live cycle late, and late is silent.
        try unit.setProperty(.offlineRender, .bool(true), scope: .global, element: 0)
        for (name, value) in settings { try unit.setParameter(named: name, value) }
        try unit.initialize()
        outputs.append(OfflineRender(unit, blockSize: 256).process(signal, frames: frames))
        unit.uninitialize()
    }
    return (outputs[0], outputs[1])
}

/// A fault fixture in a bridge process, 256 frames a cycle; offline (2 s a cycle before
/// the deadline), unless `live` (`deadline` of the cycle's 5.3 ms).
private func faulty(_ name: String, live: Bool = false, deadline: Double = 0.5, maxFrames: Int = 256) throws -> LV2PluginUnit {
    BridgeSupport.useBuiltTrellis()
    let unit = try makeUnit("urn:trellis:fixtures:" + name, world: LV2World(path: try BridgeSupport.faultyFolder()), maxFrames: maxFrames)
    unit.isolation = Isolation(deadline: deadline)
    try unit.setProperty(.offlineRender, .bool(!live), scope: .global, element: 0)
    try unit.initialize()
    return unit
}

/// The failures the unit reported within `seconds`.
private func failures(of unit: LV2PluginUnit, within seconds: Double = 2) -> [String] {
    let end = Date().addingTimeInterval(seconds)
    var found: [String] = []
    while found.isEmpty && Date() < end {
        _ = unit.drainMessages { message in if case .failed(let cause, _) = message { found.append(cause) } }
        if found.isEmpty { usleep(5_000) }
    }
    return found
}

@Suite("Plugins in bridge processes")
struct BridgeTests {
    @Test("eg-amp, mda Overdrive and mda Delay in a bridge process output what they output here, bit for bit")
    func bridgedEqualsLocal() throws {
        var noise = Noise()
        let signal = [noise.samples(10_000), noise.samples(10_000)]
        for (uri, settings) in [
            ("http://lv2plug.in/plugins/eg-amp", ["gain": -7.5]),
            ("http://drobilla.net/plugins/mda/Overdrive", ["drive": 0.8, "muffle": 0.3]),
            ("http://drobilla.net/plugins/mda/Delay", ["l_delay": 0.3, "feedback": 0.6]),
        ] as [(String, [String: Float])] {
            let (local, bridged) = try bothWays(uri, settings: settings, signal: signal, frames: 10_000)
            #expect(local.flatMap { $0 }.contains { $0 != 0 }, "\(uri) outputs sound")
            #expect(local.map { $0.map(\.bitPattern) } == bridged.map { $0.map(\.bitPattern) }, "\(uri)")
        }
    }

    @Test("a plugin that segfaults in its bridge is silenced, named by its signal, and plays again after a restart")
    func segfaultIsContained() throws {
        let unit = try faulty("segfaults")
        defer { unit.uninitialize() }
        let render = OfflineRender(unit, blockSize: 256)
        var noise = Noise()
        let signal = [noise.samples(512)]
        #expect(render.process(signal, frames: 512) == signal, "passes through before the fault")
        try unit.setParameter(named: "trigger", 1)
        #expect(render.process(signal, frames: 512)[0].allSatisfy { $0 == 0 })
        let causes = failures(of: unit)
        #expect(causes.count == 1 && causes[0].contains("signal 11 (SIGSEGV"), "\(causes)")
        #expect(unit.isolationFailure != nil)

        try unit.setParameter(named: "trigger", 0)
        try unit.restartIsolated()
        #expect(unit.isolationFailure == nil)
        #expect(render.process(signal, frames: 512) == signal, "passes through after the restart")
    }

    @Test("a plugin that aborts in its bridge is named by SIGABRT")
    func abortIsContained() throws {
        let unit = try faulty("aborts")
        defer { unit.uninitialize() }
        try unit.setParameter(named: "trigger", 1)
        #expect(OfflineRender(unit, blockSize: 256).process([[0.5]], frames: 256)[0].allSatisfy { $0 == 0 })
        let causes = failures(of: unit)
        #expect(causes.count == 1 && causes[0].contains("SIGABRT"), "\(causes)")
    }

    @Test("a plugin that hangs answers no cycle in time for 40 ms: each cycle returns in time, silent, and then the bridge is killed")
    func hangMissesDeadline() throws {
        let unit = try faulty("hangs", live: true)
        defer { unit.uninitialize() }
        try unit.setParameter(named: "trigger", 1)
        let render = OfflineRender(unit, blockSize: 256)
        var slowest = 0.0, silent = true
        // Cycles at the pace of 256 frames at 48 kHz, for twice the time a hang is allowed.
        for _ in 0..<16 {
            let started = Date()
            silent = render.process([[0.5]], frames: 256)[0].allSatisfy { $0 == 0 } && silent
            slowest = max(slowest, Date().timeIntervalSince(started))
            usleep(5_333)
        }
        // Half of a 256-frame period at 48 kHz is 2.7 ms; a busy machine may add some.
        #expect(slowest < 0.5)
        #expect(silent)
        let causes = failures(of: unit)
        #expect(causes.count == 1 && causes[0].contains("missed its deadline"), "\(causes)")
    }

    @Test("a cycle answered past the deadline is output silent and counted late; the plugin plays on, and no fault is reported")
    func lateCycleIsNotAFault() throws {
        // 4096 frames, the whole 85 ms period as the deadline: only the sleep makes a
        // cycle late, however busy the machine.
        let unit = try faulty("oversleeps", live: true, deadline: 1, maxFrames: 4096)
        defer { unit.uninitialize() }
        try unit.setParameter(named: "sleep_ms", 200)
        let render = OfflineRender(unit, blockSize: 4096)
        let signal: [[Float]] = [(0..<4096).map { Float($0) / 4096 }]
        #expect(render.process(signal, frames: 4096) == signal)
        try unit.setParameter(named: "trigger", 1)
        #expect(render.process(signal, frames: 4096)[0].allSatisfy { $0 == 0 }, "the late cycle is silent")
        try unit.setParameter(named: "trigger", 0)
        usleep(300_000)
        #expect(render.process(signal, frames: 4096) == signal, "plays on")
        var late = 0, failed: [String] = []
        _ = unit.drainMessages { message in
            if case .late(let cycles) = message { late += cycles }
            if case .failed(let cause, _) = message { failed.append(cause) }
        }
        #expect(late == 1 && failed.isEmpty, "late \(late), failed \(failed)")
        #expect(unit.isolationFailure == nil)
    }

    @Test("events of cycles a busy bridge missed reach it with the next cycle it gets: a trigger switched off while it sleeps stays off")
    func missedEventsArriveLate() throws {
        // As above: an 85 ms deadline, a 200 ms sleep.
        let unit = try faulty("oversleeps", live: true, deadline: 1, maxFrames: 4096)
        defer { unit.uninitialize() }
        try unit.setParameter(named: "sleep_ms", 200)
        let trigger = Int32(try #require(unit.parameters.firstIndex { $0.identifier == "trigger" }))
        let render = OfflineRender(unit, blockSize: 4096)
        func cycle(_ events: [RenderEvent]) -> [Float] {
            for frame in 0..<4096 { render.inputs[0][0][frame] = 0.25 }
            _ = events.withUnsafeBufferPointer { render.renderBlock(frames: 4096, events: RenderEventList(base: $0.baseAddress, count: $0.count)) }
            return Array(UnsafeBufferPointer(start: render.outputs[0][0], count: 4096))
        }
        #expect(cycle([.parameter(index: trigger, value: 1, rampFrames: 0, offset: 0)]).allSatisfy { $0 == 0 }, "sleeps past the deadline")
        // The bridge still sleeps: this cycle's event waits for the next one it gets.
        #expect(cycle([.parameter(index: trigger, value: 0, rampFrames: 0, offset: 0)]).allSatisfy { $0 == 0 })
        usleep(300_000)
        #expect(cycle([]).allSatisfy { $0 == 0.25 }, "the trigger arrived off: no sleep, in time")
        #expect(unit.isolationFailure == nil)
    }

    @Test("live, a bridge is not waited for past the end of its cycle's period, whatever its deadline")
    func noWaitPastTheCycle() throws {
        // 4096 frames: an 85 ms period, all of it the deadline; the plugin sleeps 200 ms.
        let unit = try faulty("oversleeps", live: true, deadline: 1, maxFrames: 4096)
        defer { unit.uninitialize() }
        try unit.setParameter(named: "sleep_ms", 200)
        try unit.setParameter(named: "trigger", 1)
        let render = OfflineRender(unit, blockSize: 4096)
        // The cycle began 80 ms ago: 5 ms of it are left.
        let started = Date()
        _ = render.renderBlock(frames: 4096, hostTime: HostClock.now() - 80_000_000)
        #expect(Date().timeIntervalSince(started) < 0.04, "waited \(Date().timeIntervalSince(started)) s")
        #expect(UnsafeBufferPointer(start: render.outputs[0][0], count: 4096).allSatisfy { $0 == 0 }, "late: silent")
    }

    @Test("a plugin whose instantiate crashes fails to initialize with the signal named; this process lives on")
    func crashOnInstantiate() throws {
        BridgeSupport.useBuiltTrellis()
        let unit = try makeUnit("urn:trellis:fixtures:crashes-on-instantiate", world: LV2World(path: try BridgeSupport.faultyFolder()), maxFrames: 256)
        unit.isolation = Isolation()
        #expect {
            try unit.initialize()
        } throws: { error in
            "\(error)".contains("SIGSEGV")
        }
    }

    @Test("an isolated plugin reports its latency, takes presets, and saves a state this process restores alike")
    func latencyPresetsAndStateCross() throws {
        BridgeSupport.useBuiltTrellis()
        func unit(_ uri: String, isolated: Bool) throws -> LV2PluginUnit {
            let unit = try makeUnit(uri, maxFrames: 256)
            unit.isolation = isolated ? Isolation() : nil
            try unit.setProperty(.offlineRender, .bool(true), scope: .global, element: 0)
            try unit.initialize()
            return unit
        }
        let limiter = "http://gareus.org/oss/lv2/dpl#stereo"
        let localLimiter = try unit(limiter, isolated: false), bridgedLimiter = try unit(limiter, isolated: true)
        defer { localLimiter.uninitialize(); bridgedLimiter.uninitialize() }
        #expect(localLimiter.latencyFrames > 0)
        #expect(bridgedLimiter.latencyFrames == localLimiter.latencyFrames)

        let local = try unit(Fixture.epiano, isolated: false), bridged = try unit(Fixture.epiano, isolated: true)
        defer { local.uninitialize(); bridged.uninitialize() }
        try local.applyPreset(labelOrURI: "Bright")
        try bridged.applyPreset(labelOrURI: "Bright")
        let values = { (unit: LV2PluginUnit) in unit.parameters.indices.map { unit.values[$0] } }
        #expect(values(local) != values(try unit(Fixture.epiano, isolated: false)), "the preset changes something")
        #expect(values(bridged) == values(local))
        try bridged.setParameter(named: "env_decay", 0.123)
        let fresh = try unit(Fixture.epiano, isolated: false)
        defer { fresh.uninitialize() }
        try fresh.restoreState(try bridged.saveState())
        #expect(values(fresh) == values(bridged))
    }
}
