import CTrellisShim
import Glibc
import Synchronization
import TrellisCore

/// The thread that makes a real-time pitch shift's pitch moves: the audio thread hands it
/// the stretcher and posts its semaphore; it makes the move and hands the stretcher back
/// (`PitchShifterCore.makeMoves`). Real-time priority below JACK's where the system allows,
/// so a busy machine does not keep it waiting. Owns the thread and the semaphore.
/// Thread: control (`init`, `stop`).
final class PitchMover: @unchecked Sendable {
    let semaphore: UnsafeMutablePointer<sem_t>
    private let core: UnsafeMutablePointer<PitchShifterCore>
    private let stopping = Atomic<Bool>(false)
    private var thread: pthread_t?
    private let memory = Arena(firstBlock: 64)

    init(core: UnsafeMutablePointer<PitchShifterCore>) {
        self.core = core
        semaphore = memory.place(sem_t())
        sem_init(semaphore, 0, 0)
        var handle = pthread_t()
        let status = pthread_create(&handle, nil, { raw in
            let mover = Unmanaged<PitchMover>.fromOpaque(raw!).takeRetainedValue()
            mover.run()
            return nil
        }, Unmanaged.passRetained(self).toOpaque())
        if status == 0 { thread = handle }
    }

    /// False when the system would not start a thread: moves are then made in place.
    var isRunning: Bool { thread != nil }

    /// Ends the thread after the move it is making; the stretcher is the caller's again.
    func stop() {
        guard let thread else { return }
        stopping.store(true, ordering: .releasing)
        sem_post(semaphore)
        pthread_join(thread, nil)
        self.thread = nil
    }

    deinit {
        sem_destroy(semaphore)
    }

    private func run() {
        trellis_name_thread("trellis-pitch")
        var parameters = sched_param(sched_priority: 1)
        _ = pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters)
        while true {
            while sem_wait(semaphore) != 0 {}
            if stopping.load(ordering: .acquiring) { break }
            core.pointee.makeMoves()
        }
    }
}
