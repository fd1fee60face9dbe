import CLilv
import Glibc
import Synchronization
import TrellisCore

/// The LV2 worker: the plugin schedules non-real-time work from `run` (requests ring,
/// audio → worker thread), the worker thread calls the plugin's `work`, whose
/// responses come back (responses ring, worker → audio) and are delivered by
/// `deliverResponses` right after `run`, followed by `end_run`, as the worker
/// extension says.
///
/// Made before instantiation (the schedule feature must exist then); `start` binds it
/// to the instance and starts the thread. Thread: see each method.
final class LV2Worker: @unchecked Sendable {
    static let ringCapacity = 1 << 16

    private let requests = ByteRing(capacity: ringCapacity)
    private let responses = ByteRing(capacity: ringCapacity)
    private let memory = Arena()
    private let semaphore: UnsafeMutablePointer<sem_t>
    private let workerScratch: UnsafeMutableRawPointer
    private let audioScratch: UnsafeMutableRawPointer
    private let stopping = Atomic<Bool>(false)
    private var thread: pthread_t?
    private var interface: UnsafePointer<LV2_Worker_Interface>?
    private var handle: LV2_Handle?
    /// The `worker:schedule` feature data; its handle is `requestEnd`.
    let scheduleFeature: UnsafeMutablePointer<LV2_Worker_Schedule>
    /// What `schedule_work` reaches from the plugin's `run`: plain memory, no reference.
    private let requestEnd: UnsafeMutablePointer<LV2WorkerRequests>
    /// The respond handle of work run synchronously: the responses ring's end.
    private let synchronousResponses: UnsafeMutablePointer<ByteRingEnd>
    /// Requests the worker thread has taken and not finished.
    private let busy = Atomic<Bool>(false)

    init() {
        semaphore = memory.place(sem_t())
        sem_init(semaphore, 0, 0)
        workerScratch = memory.takeBytes(Self.ringCapacity)
        audioScratch = memory.takeBytes(Self.ringCapacity)
        synchronousResponses = memory.place(responses.end)
        requestEnd = memory.place(LV2WorkerRequests(ring: requests.end, semaphore: semaphore, responses: synchronousResponses))
        scheduleFeature = memory.place(LV2_Worker_Schedule(
            handle: UnsafeMutableRawPointer(requestEnd),
            schedule_work: { handle, size, data in
                guard let handle else { return LV2_WORKER_ERR_UNKNOWN }
                return handle.assumingMemoryBound(to: LV2WorkerRequests.self).pointee.schedule(size: size, data: data)
            }))
    }

    deinit {
        stop()
        sem_destroy(semaphore)
    }

    /// Binds to an instance that has the worker interface and starts the thread.
    /// Thread: control.
    func start(interface: UnsafePointer<LV2_Worker_Interface>, handle: LV2_Handle) {
        self.interface = interface
        self.handle = handle
        requestEnd.pointee.work = interface.pointee.work
        requestEnd.pointee.handle = handle
        let context = Unmanaged.passRetained(self).toOpaque()
        var created = pthread_t()
        let status = pthread_create(&created, nil, { context in
            let worker = Unmanaged<LV2Worker>.fromOpaque(context!).takeRetainedValue()
            worker.loop()
            return nil
        }, context)
        if status == 0 { thread = created } else { Unmanaged<LV2Worker>.fromOpaque(context).release() }
    }

    /// Stops and joins the thread; pending requests are dropped. Thread: control.
    func stop() {
        guard let thread else { return }
        stopping.store(true, ordering: .releasing)
        sem_post(semaphore)
        pthread_join(thread, nil)
        self.thread = nil
    }


    private func respond(size: UInt32, data: UnsafeRawPointer?) -> LV2_Worker_Status {
        responses.write(data, count: Int(size)) ? LV2_WORKER_SUCCESS : LV2_WORKER_ERR_NO_SPACE
    }

    /// Offline (`true`): the plugin's `schedule_work` runs `work` at once, on the thread
    /// that calls it, so a render does not depend on when a thread gets to run; first
    /// the worker thread finishes what it has (at most `timeout` seconds), since the
    /// responses ring has one producer at a time. Live (`false`): the worker thread.
    /// Thread: control, while the plugin does not run.
    func setSynchronous(_ on: Bool, timeoutSeconds: Double = 10) {
        if on {
            let deadline = HostClock.now() + UInt64(timeoutSeconds * 1e9)
            while (requests.hasMessages || busy.load(ordering: .acquiring)) && HostClock.now() < deadline {
                var pause = timespec(tv_sec: 0, tv_nsec: 200_000)
                nanosleep(&pause, nil)
            }
        }
        requestEnd.pointee.synchronous = on
    }

    private func loop() {
        while true {
            sem_wait(semaphore)
            if stopping.load(ordering: .acquiring) { return }
            busy.store(true, ordering: .releasing)
            defer { busy.store(false, ordering: .releasing) }
            while let size = requests.read(into: workerScratch, capacity: Self.ringCapacity) {
                guard let work = interface?.pointee.work else { continue }
                let respondHandle = Unmanaged.passUnretained(self).toOpaque()
                _ = work(handle, { handle, size, data in
                    guard let handle else { return LV2_WORKER_ERR_UNKNOWN }
                    return Unmanaged<LV2Worker>.fromOpaque(handle).takeUnretainedValue().respond(size: size, data: data)
                }, respondHandle, UInt32(size), workerScratch)
            }
        }
    }

    /// The audio side of the worker for the bound instance: the responses ring and the
    /// plugin's `work_response` and `end_run`. Thread: control, after `start`.
    var responder: LV2WorkerResponder? {
        guard let interface else { return nil }
        return LV2WorkerResponder(
            responses: responses.end, workResponse: interface.pointee.work_response, endRun: interface.pointee.end_run,
            handle: handle, scratch: audioScratch, scratchCapacity: Self.ringCapacity)
    }
}

/// `worker:schedule` as the plugin calls it from `run`: the requests ring and the
/// semaphore that wakes the worker thread; offline, the plugin's `work` to run at once.
struct LV2WorkerRequests {
    let ring: ByteRingEnd
    let semaphore: UnsafeMutablePointer<sem_t>
    /// Where work run at once responds: the responses ring's end.
    let responses: UnsafeMutablePointer<ByteRingEnd>
    var synchronous = false
    var work: (@convention(c) (LV2_Handle?, LV2_Worker_Respond_Function?, LV2_Worker_Respond_Handle?, UInt32, UnsafeRawPointer?) -> LV2_Worker_Status)?
    var handle: LV2_Handle?

    /// Queues a request, or offline runs it. Thread: audio (from `run`), or the control
    /// thread during state restore while the render gate keeps `run` out.
    func schedule(size: UInt32, data: UnsafeRawPointer?) -> LV2_Worker_Status {
        if synchronous, let work {
            // Offline only: the render thread does the plugin's non-real-time work itself.
            return _unsafePerformance {
                work(handle, { handle, size, data in
                    guard let handle else { return LV2_WORKER_ERR_UNKNOWN }
                    let written = handle.assumingMemoryBound(to: ByteRingEnd.self).pointee.write(data, count: Int(size))
                    return written ? LV2_WORKER_SUCCESS : LV2_WORKER_ERR_NO_SPACE
                }, UnsafeMutableRawPointer(responses), size, data)
            }
        }
        guard ring.write(data, count: Int(size)) else { return LV2_WORKER_ERR_NO_SPACE }
        // sem_post is async-signal-safe and never blocks; it is the one system call on
        // the audio path, as in jalv, and the checker cannot see into it.
        _unsafePerformance { _ = sem_post(semaphore) }
        return LV2_WORKER_SUCCESS
    }
}

/// Hands the worker's responses to the plugin right after `run`, then calls `end_run`,
/// as the worker extension says. Plain memory. Thread: audio.
struct LV2WorkerResponder: BitwiseCopyable {
    let responses: ByteRingEnd
    let workResponse: (@convention(c) (LV2_Handle?, UInt32, UnsafeRawPointer?) -> LV2_Worker_Status)?
    let endRun: (@convention(c) (LV2_Handle?) -> LV2_Worker_Status)?
    let handle: LV2_Handle?
    let scratch: UnsafeMutableRawPointer
    let scratchCapacity: Int

    @inline(__always)
    func deliverResponses() {
        if let workResponse {
            while let size = responses.read(into: scratch, capacity: scratchCapacity) {
                // The plugin's own code, behind a function pointer: fenced like `run`.
                _ = _unsafePerformance { workResponse(handle, UInt32(size), scratch) }
            }
        }
        if let endRun { _ = _unsafePerformance { endRun(handle) } }
    }
}
