import Synchronization
import TrellisCore

/// The unit under `AVAudioPlayerNode`: no input, one output, a kernel playing the regions
/// the node queues. It owns the queue, the clock and both rings for its whole life.
///
/// Thread: `send` and `takeDone` from the node's control side (one thread at a time);
/// the kernel on the audio thread.
final class ScheduledPlayerUnit: AudioUnitBase, @unchecked Sendable {
    static let description = ComponentDescription(type: ComponentType.generator, subtype: "splr", manufacturer: Manufacturer.trellis)

    private let commands = SPSCRing<PlayerCommand>(capacity: 256)
    private let done = SPSCRing<PlayerRegionDone>(capacity: 512)
    private let queue: UnsafeMutablePointer<PlayerQueue>
    private let regions: UnsafeMutablePointer<PlayerRegion>
    let clock: PlayerClock
    /// The node's schedule, kept here because it holds the buffers the kernel's regions
    /// point into: they must live as long as any program that runs this unit.
    let schedule = PlayerSchedule()
    private var storage: KernelStorage<ScheduledPlayerKernel>?

    init(channels: Int) {
        regions = .allocate(capacity: PlayerQueue.capacity)
        queue = .allocate(capacity: 1)
        queue.initialize(to: PlayerQueue(regions: regions))
        let values = UnsafeMutablePointer<Atomic<Int64>>.allocate(capacity: PlayerClock.fields)
        for field in 0..<PlayerClock.fields { (values + field).initialize(to: Atomic(0)) }
        clock = PlayerClock(values: values)
        super.init(description: Self.description, shortName: "player-node", inputs: [], outputs: [channels])
    }

    deinit {
        storage = nil
        queue.deinitialize(count: 1)
        queue.deallocate()
        regions.deallocate()
        clock.values.deinitialize(count: PlayerClock.fields)
        clock.values.deallocate()
    }

    override func allocateRenderResources() throws(AudioUnitError) {
        storage = KernelStorage(ScheduledPlayerKernel(queue: queue, commands: commands.end, done: done.end, clock: clock),
                                render: { ScheduledPlayerKernel.render($0, $1) }, reset: { _ in })
    }

    override func deallocateRenderResources() { storage = nil }

    override var renderKernel: RenderKernel? { storage?.kernel }

    /// Queues `command` for the next cycle; false when the ring is full.
    func send(_ command: PlayerCommand) -> Bool { commands.push(command) }

    /// The next region the kernel is done with.
    func takeDone() -> PlayerRegionDone? { done.pop() }
}
