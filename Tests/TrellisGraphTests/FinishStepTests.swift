import Foundation
import Synchronization
import Testing
import TrellisCore
import TrellisEngine
import TrellisGraph
import TrellisUnits

@Suite("The finish step")
struct FinishStepTests {
    private func emptyProgram() -> RenderProgram { RenderProgram(plan: ProgramPlan(), maximumFrames: 64) }

    private func cycle(_ engine: RenderEngine, at sampleTime: Int64, _ output: AudioBufferList) {
        _ = engine.render(frameCount: 64, timeStamp: AudioTimeStamp(sampleTime: sampleTime), input: .empty, output: output[0])
    }

    @Test("a program the audio thread let go of is freed without a further publish")
    func retiredProgramIsFreedPromptly() {
        let engine = RenderEngine()
        engine.startRendering()
        defer { engine.stopRendering() }
        let output = AudioBufferList(channelCount: 1, frameCapacity: 64)
        weak var first: RenderProgram?
        do {
            let program = emptyProgram()
            first = program
            engine.publish(program)
        }
        cycle(engine, at: 0, output)
        engine.publish(emptyProgram())
        #expect(first != nil, "the audio thread still runs the first program")
        cycle(engine, at: 64, output)
        let deadline = Date().addingTimeInterval(1)
        while first != nil && Date() < deadline { usleep(1_000) }
        #expect(first == nil)
    }

    @Test("waiting on a published program returns once a backend cycle adopts it")
    func waitReturnsAfterACycle() {
        // A quiet minute: within this test only a cycle can adopt.
        let engine = RenderEngine(quietBeforeAdopting: .seconds(60))
        engine.startRendering()
        defer { engine.stopRendering() }
        let ticket = engine.publish(emptyProgram())
        #expect(!ticket.wait(timeout: .milliseconds(20)))
        #expect(!ticket.isAdopted)
        let rendered = Atomic<Bool>(false)
        let backend = Thread {
            usleep(30_000)
            let output = AudioBufferList(channelCount: 1, frameCapacity: 64)
            _ = engine.render(frameCount: 64, timeStamp: .zero, input: .empty, output: output[0])
            rendered.store(true, ordering: .releasing)
        }
        backend.start()
        #expect(ticket.wait(timeout: .seconds(10)))
        #expect(ticket.isAdopted)
        while !rendered.load(ordering: .acquiring) { usleep(1_000) }
    }

    @Test("waiting while the engine is not rendering adopts the program at once")
    func waitWithoutBackendAdoptsAtOnce() {
        let engine = RenderEngine()
        let ticket = engine.publish(emptyProgram())
        #expect(ticket.wait(timeout: .zero))
        #expect(!engine.hasPendingProgram)
    }

    @Test("waiting while rendering but no cycle starts adopts the program once the engine has been quiet")
    func waitAfterCyclesStopAdoptsOnceQuiet() {
        let engine = RenderEngine(quietBeforeAdopting: .milliseconds(30))
        engine.startRendering()
        defer { engine.stopRendering() }
        let output = AudioBufferList(channelCount: 1, frameCapacity: 64)
        engine.publish(emptyProgram())
        cycle(engine, at: 0, output)
        let ticket = engine.publish(emptyProgram())
        let started = ContinuousClock.now
        #expect(ticket.wait(timeout: .seconds(10)))
        #expect(ContinuousClock.now - started >= .milliseconds(30))
        #expect(!engine.hasPendingProgram)
    }

    @Test("switching rate and period 100 times while a render thread runs flat out renders only silence or the signal")
    func reconfigureUnderFullSpeedRendering() throws {
        let graph = Graph(registry: BuiltInUnits.registry(), maximumFrames: 256)
        let tone = try graph.addNode(named: "tone")
        try graph.setParameter(tone, "amp", 0.5)
        var previous = tone
        // Units that free their render memory when uninitialized.
        for name in ["delay", "eq", "limiter", "graphic-eq"] {
            let node = try graph.addNode(named: name)
            try graph.connect(previous, to: node)
            previous = node
        }
        try graph.connect(previous, to: try graph.addNode(named: "output"))
        try graph.initialize()
        graph.engine.startRendering()
        defer { graph.engine.stopRendering() }
        let renderer = RenderThread(graph: graph, slice: 256, capacity: 48_000 * 10)
        renderer.start()
        renderer.waitForCycles(10)
        for round in 0..<100 {
            try graph.prepare(frames: round % 3 == 0 ? 512 : 256, sampleRate: round % 2 == 0 ? 44_100 : 48_000)
            renderer.waitForCycles(renderer.cyclesSeen.load(ordering: .acquiring) + 2)
        }
        renderer.stop()
        #expect(renderer.nonFinite == 0)
        let recorded = UnsafeBufferPointer(start: renderer.recorded, count: min(renderer.frames, renderer.capacity))
        #expect(recorded.allSatisfy { abs($0) <= 2 }, "largest \(recorded.map(abs).max() ?? 0)")
        #expect(recorded.contains { abs($0) > 0.1 }, "the signal played between the switches")
    }
}

@Suite("The finish step's upkeep")
struct UpkeepTests {
    @Test("an upkeep run by a million finish passes is released without a chain of thunks to unwind")
    func upkeepStaysOneClosure() {
        let engine = RenderEngine()
        let runs = Atomic<Int>(0)
        engine.setUpkeep {
            runs.add(1, ordering: .relaxed)
            return []
        }
        // A million passes is four hours of a live session; each one used to wrap the
        // closure in another thunk, and releasing the chain overflowed the stack.
        for _ in 0..<1_000_000 { engine.upkeepPass() }
        engine.setUpkeep(nil)
        #expect(runs.load(ordering: .relaxed) == 1_000_000)
    }
}
