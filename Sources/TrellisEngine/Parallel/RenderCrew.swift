import Glibc
import Synchronization
import TrellisCore

/// What the audio thread and its render workers share: plain memory, no reference.
///
/// A parallel cycle is posted (`post`): the program goes into `job` and `generation`
/// moves on, waking the workers that sleep on it. Workers take tasks from the
/// program's queue until its cycle is done. The audio thread then retracts the job and
/// waits until no worker still holds it (`retract`), so a program is never used after
/// its cycle: the engine can retire it as if one thread had run it.
struct CrewState {
    /// Moves on at each parallel cycle and at stop; the workers sleep on it (a futex word).
    let generation: UnsafeMutablePointer<Atomic<UInt32>>
    /// The program whose cycle runs (an unretained `RenderProgram`), nil between cycles.
    let job: UnsafeMutablePointer<Atomic<UnsafeMutableRawPointer?>>
    /// Workers that read `job` and have not let go of it.
    let inside: UnsafeMutablePointer<Atomic<Int>>
    let stopping: UnsafeMutablePointer<Atomic<Bool>>
    let workerCount: Int
    /// Whether workers wake ahead of the next cycle and spin for it (live, see `work`).
    let anticipates: Bool
    /// When the next cycle is expected to be posted (host ns; 0: not known): the last
    /// post plus the time between the last two.
    let nextPost: UnsafeMutablePointer<Atomic<UInt64>>
    /// When the last cycle was posted. Audio thread only.
    let lastPost: UnsafeMutablePointer<UInt64>

    /// How long before an expected cycle a worker wakes, and how long past it it spins
    /// before sleeping until woken: waking a sleeping thread costs tens of µs on a halted
    /// CPU (a median 25–35 µs on the VMs this was measured on), a timed wake the same,
    /// and a period's jitter is far less than this.
    static let anticipation: UInt64 = 100_000
    static let patience: UInt64 = 150_000

    /// Each word on a cache line of its own in `memory` (the crew's). Thread: control.
    init(workerCount: Int, anticipates: Bool = false, in memory: Arena) {
        self.workerCount = workerCount
        self.anticipates = anticipates
        nextPost = memory.takeAtomics(1, initial: 0)
        lastPost = memory.take(1, repeating: 0)
        generation = memory.takeAtomics(1, initial: 0)
        job = memory.takeAtomics(1, initial: nil)
        inside = memory.takeAtomics(1, initial: 0)
        stopping = memory.takeAtomics(1, initial: false)
    }

    private var futexWord: UnsafeMutablePointer<UInt32> {
        UnsafeMutableRawPointer(generation).assumingMemoryBound(to: UInt32.self)
    }

    /// Hands `program`'s cycle to the workers and wakes them. Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    func post(_ program: UnsafeMutableRawPointer) {
        if anticipates {
            let now = hostNanoseconds()
            let interval = now &- lastPost.pointee
            lastPost.pointee = now
            // A period is at most 8192 frames at 8 kHz (about 1 s); a longer gap is a pause.
            nextPost.pointee.store(interval < 1_100_000_000 ? now &+ interval : 0, ordering: .relaxed)
        }
        job.pointee.store(program, ordering: .sequentiallyConsistent)
        generation.pointee.wrappingAdd(1, ordering: .releasing)
        futexWake(futexWord, count: Int32(truncatingIfNeeded: workerCount))
    }

    /// Takes the job back and waits until no worker holds it; its tasks are all done
    /// by then, so a worker still inside is only on its way out. Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    func retract() {
        job.pointee.store(nil, ordering: .sequentiallyConsistent)
        while inside.pointee.load(ordering: .sequentiallyConsistent) > 0 { spinHint() }
    }

    /// A worker's life: sleep until a cycle is posted, run tasks of it on `lane`,
    /// sleep again. Offline it does not spin between cycles: measured here, a worker
    /// spinning for the next offline cycle took the core the disk thread needed. Live
    /// (`anticipates`), cycles come a period apart, and a worker woken by the post starts
    /// tens of µs late on a halted CPU; so it sleeps until shortly before the expected
    /// post and spins for it, yielding to threads of its priority, until a little past
    /// it; then it sleeps until woken. Thread: the worker.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    func work(lane: Int) {
        var seen = generation.pointee.load(ordering: .acquiring)
        var spins = 0
        while !stopping.pointee.load(ordering: .acquiring) {
            let now = generation.pointee.load(ordering: .acquiring)
            if now == seen {
                let expected = anticipates ? nextPost.pointee.load(ordering: .relaxed) : 0
                let time = expected == 0 ? 0 : hostNanoseconds()
                if expected == 0 || time >= expected &+ Self.patience {
                    futexWait(futexWord, while: seen)
                } else if time &+ Self.anticipation < expected {
                    futexWait(futexWord, while: seen, until: expected &- Self.anticipation)
                } else {
                    spins &+= 1
                    if spins & 63 == 0 { yieldProcessor() } else { spinHint() }
                }
                continue
            }
            seen = now
            inside.pointee.wrappingAdd(1, ordering: .sequentiallyConsistent)
            if let program = job.pointee.load(ordering: .sequentiallyConsistent) {
                Unmanaged<RenderProgram>.fromOpaque(program)._withUnsafeGuaranteedRef { $0.work(lane: lane) }
            }
            inside.pointee.wrappingSubtract(1, ordering: .releasing)
        }
    }

    /// Ends every worker's loop. Thread: control.
    func stop() {
        stopping.pointee.store(true, ordering: .releasing)
        generation.pointee.wrappingAdd(1, ordering: .releasing)
        futexWake(futexWord, count: Int32.max)
    }
}

/// Called on each render worker as it starts and as it ends, with its lane (1 and up):
/// where a test arms a per-thread allocation counter and reads it back.
public struct WorkerHooks: Sendable {
    public var started: @Sendable (_ lane: Int) -> Void
    public var ending: @Sendable (_ lane: Int) -> Void

    public init(started: @escaping @Sendable (Int) -> Void, ending: @escaping @Sendable (Int) -> Void) {
        self.started = started
        self.ending = ending
    }
}

/// An engine's render workers: the threads, and the state they share with the audio
/// thread. Started and stopped on the control side while no cycle runs.
final class RenderCrew: @unchecked Sendable {
    let state: CrewState
    /// The words of `state`; freed after `deinit` has joined the workers.
    private let memory = Arena()
    private var threads: [pthread_t] = []

    /// Starts `workerCount` workers, on lanes 1 through `workerCount`, with `starter`
    /// (a plain thread when it is nil or fails). Thread: control.
    /// Workers started by a backend's `starter` (a live server's real-time threads)
    /// anticipate its cycles (`CrewState.work`).
    init(workerCount: Int, starter: WorkerThreadStarter?, hooks: WorkerHooks?) {
        state = CrewState(workerCount: workerCount, anticipates: starter != nil, in: memory)
        for lane in stride(from: 1, through: workerCount, by: 1) {
            let context = Unmanaged.passRetained(WorkerBody(state: state, lane: lane, hooks: hooks)).toOpaque()
            if let started = starter?(WorkerBody.entry, context) {
                threads.append(started)
                continue
            }
            var handle = pthread_t()
            let status = pthread_create(&handle, nil, WorkerBody.entry, context)
            precondition(status == 0, "cannot start a render worker: error \(status)")
            threads.append(handle)
        }
    }

    /// Ends and joins the workers. Thread: control, while no cycle runs.
    func stop() {
        guard !threads.isEmpty else { return }
        state.stop()
        for thread in threads { pthread_join(thread, nil) }
        threads = []
    }

    deinit {
        stop()
    }

    private final class WorkerBody {
        let state: CrewState
        let lane: Int
        let hooks: WorkerHooks?

        init(state: CrewState, lane: Int, hooks: WorkerHooks?) {
            self.state = state
            self.lane = lane
            self.hooks = hooks
        }

        static let entry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { raw in
            let body = Unmanaged<WorkerBody>.fromOpaque(raw!).takeRetainedValue()
            let floatState = AudioThread.enter()
            body.hooks?.started(body.lane)
            body.state.work(lane: body.lane)
            body.hooks?.ending(body.lane)
            AudioThread.leave(restoring: floatState)
            return nil
        }
    }
}
