import Glibc
import Synchronization
import TrellisCore
import TrellisEngine

/// The unit under `AVAudioPlayerNode`: no input, one output, a kernel playing the regions
/// the node queues. It owns the queue, the clock and both rings for its whole life.
///
/// Thread: `send` and `takeDone` from the node's control side (one thread at a time);
/// the kernel on the audio thread.
final class ScheduledPlayerUnit: AudioUnitBase, @unchecked Sendable {
    static let componentDescription = ComponentDescription(type: ComponentType.generator, subtype: "splr", manufacturer: Manufacturer.trellis)

    private let commands = SPSCRing<PlayerCommand>(capacity: 256)
    private let done = SPSCRing<PlayerRegionDone>(capacity: 512)
    /// The queue, its regions, the clock and the rate settings.
    private let memory = Arena()
    private let queue: UnsafeMutablePointer<PlayerQueue>
    private let regions: UnsafeMutablePointer<PlayerRegion>
    let clock: PlayerClock
    /// The node's schedule, kept here because it holds the buffers the kernel's regions
    /// point into: they must live as long as any program that runs this unit.
    let schedule = PlayerSchedule()
    /// The rate a time effect it feeds asked for, and the memory for reading at it.
    private let rate: UnsafeMutablePointer<PlayerRateSettings>
    private var rateMemory: UnsafeMutablePointer<PlayerRateMemory>?
    /// What `rateMemory` is taken from: made with it, dropped with the render resources.
    private var rateArena: Arena?
    private var followed: RateRequest?
    /// The node that schedules into this unit, which an offline render waits on (see
    /// `waitForStreaming`).
    weak var node: AVAudioPlayerNode?

    init(channels: Int) {
        regions = memory.take(PlayerQueue.capacity)
        queue = memory.place(PlayerQueue(regions: regions))
        clock = PlayerClock(values: memory.takeAtomics(PlayerClock.fields, initial: Int64(0)))
        rate = memory.place(PlayerRateSettings())
        super.init(description: Self.componentDescription, shortName: "player-node", inputs: [], outputs: [channels])
    }

    deinit {
        kernelStorage = nil
        freeRateMemory()
    }

    override func allocateRenderResources() throws(AudioUnitError) {
        kernelStorage = KernelStorage(ScheduledPlayerKernel(queue: queue, commands: commands.end, done: done.end, clock: clock, rate: rate),
                                      render: { ScheduledPlayerKernel.render($0, $1) }, reset: { _ in })
        if followed != nil { try makeRateMemory() }
    }

    override func deallocateRenderResources() {
        kernelStorage = nil
        freeRateMemory()
    }

    /// Queues `command` for the next cycle; false when the ring is full.
    func send(_ command: PlayerCommand) -> Bool { commands.push(command) }

    /// The next region the kernel is done with.
    func takeDone() -> PlayerRegionDone? { done.pop() }
}

extension ScheduledPlayerUnit: RateSource {
    /// Plays as a time effect it feeds asks: `rate` times as fast, the pitch kept and moved
    /// by `cents` (time-pitch, through a stretcher) or moved with the speed (varispeed).
    /// Player time counts the frames read, as Apple's does. Thread: control; a call the
    /// effect makes on the audio thread (as it applies a parameter event) only publishes
    /// the speed, and the same change's call on the control side does the rest.
    func follow(_ request: RateRequest?) {
        let settings = Self.settings(request)
        defer {
            rate.pointee.keepsPitch.store(settings.keepsPitch, ordering: .relaxed)
            rate.pointee.pitchShifted.store(settings.pitchScale != 1, ordering: .relaxed)
            rate.pointee.speed.store(settings.speed.bitPattern, ordering: .releasing)
        }
        guard !AudioThread.isCurrent, request != followed else { return }
        followed = request
        if let memory = rateMemory, settings.keepsPitch {
            holdingStretcher { memory.pointee.stretcher.set(timeRatio: 1 / settings.speed, pitchScale: settings.pitchScale) }
        }
        if request != nil, rateMemory == nil, isInitialized { try? makeRateMemory() }
    }

    private static func settings(_ request: RateRequest?) -> (speed: Double, pitchScale: Double, keepsPitch: Bool) {
        guard let request else { return (1, 1, true) }
        let shift = _exp2(request.cents / 1200)
        let limit = PlayerRateMemory.maximumSpeed
        if request.keepsPitch { return (min(limit, max(1 / limit, request.rate)), shift, true) }
        return (min(limit, max(1 / limit, request.rate * shift)), 1, false)
    }

    /// Makes the reading memory at the rate asked for and hands it to the kernel.
    private func makeRateMemory() throws(AudioUnitError) {
        guard rateMemory == nil else { return }
        let settings = Self.settings(followed)
        let channels = try format(scope: .output, element: 0).channelCount
        let arena = Arena()
        guard let memory = PlayerRateMemory.make(channels: channels, maximumFrames: maximumFramesPerSlice, sampleRate: sampleRate,
                                                 timeRatio: 1 / settings.speed, pitchScale: settings.pitchScale, in: arena) else {
            throw .failedToInitialize("Rubber Band could not make a stretcher", unit: name)
        }
        rateArena = arena
        rateMemory = memory
        rate.pointee.memory.store(UInt(bitPattern: memory), ordering: .releasing)
    }

    /// Thread: control, once no program runs the kernel.
    private func freeRateMemory() {
        rate.pointee.memory.store(0, ordering: .releasing)
        rateMemory?.pointee.stretcher.free()
        rateMemory = nil
        rateArena = nil
    }

    /// Runs `body` while the kernel leaves the stretcher alone: it plays a cycle of
    /// silence rather than wait, and this waits at most the cycle it is in.
    private func holdingStretcher(_ body: () -> Void) {
        rate.pointee.controlHolds.store(true, ordering: .sequentiallyConsistent)
        while rate.pointee.kernelHolds.load(ordering: .sequentiallyConsistent) { sched_yield() }
        body()
        rate.pointee.controlHolds.store(false, ordering: .releasing)
    }
}

extension ScheduledPlayerUnit: OfflineStreaming {
    /// An offline render finds its units in the plan, so the unit answers for its node:
    /// before each slice the node reads its files far enough ahead, instead of the render
    /// outrunning the schedule's timer.
    func waitForStreaming(frameCount: Int) { node?.waitForStreaming(frameCount: frameCount) }
}
