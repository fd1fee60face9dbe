import Glibc
import TrellisCore

/// A wake-up call for a sleeping service thread (the engine's finish service, the media
/// disk and delivery threads): a monotonic-clock condition variable
/// with a flag, so a signal sent before the wait is not lost.
///
/// Thread: any but audio (signalling takes a mutex).
public final class Wakeup: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private let memory = Arena(firstBlock: 256)
    private var signalled = false

    public init() {
        (mutex, condition) = (memory.place(pthread_mutex_t()), memory.place(pthread_cond_t()))
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
    }

    public func signal() {
        pthread_mutex_lock(mutex)
        signalled = true
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Sleeps until signalled or until `nanoseconds` pass.
    public func wait(nanoseconds: Int) {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let total = Int(deadline.tv_nsec) + nanoseconds
        deadline.tv_sec += total / 1_000_000_000
        deadline.tv_nsec = total % 1_000_000_000
        pthread_mutex_lock(mutex)
        while !signalled {
            if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT { break }
        }
        signalled = false
        pthread_mutex_unlock(mutex)
    }
}
