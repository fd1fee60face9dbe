import Glibc
import Synchronization
import CTrellisShim

/// Sets the cycles' CPU latency request a little before each cycle is due, so that the
/// cycle's first wake (of an isolated plugin's process) finds idle CPUs
/// polling rather than halted: setting it at the cycle's start leaves that first wake as
/// slow as ever, since a halted CPU takes as long to notice the request as the wake.
/// The audio thread lets go at the cycle's end, as it does without this thread.
///
/// One thread, asleep but for a `write` per cycle. It runs while the head node's
/// request is open, and is stopped before the descriptor is closed. Thread: control
/// (start, stop).
final class CPUWakeAhead: @unchecked Sendable {
    /// How long before a cycle is due the request is set: more than a timer's wake on a
    /// halted CPU takes (tens of µs on the machines this was measured on).
    static let lead: UInt64 = 150_000

    private final class Flag: Sendable {
        let value = Atomic<Bool>(true)
    }

    private let running = Flag()
    private var thread: ControlThread?

    /// Starts the thread; it reads the request's descriptor from `state.cycleCPULatency`
    /// (nothing while it is -1) and the cycles' timing from `state`.
    init(state: JACKRealtimeState) {
        thread = ControlThread.start { [state, running] in
            var parameters = sched_param(sched_priority: 1)
            _ = pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters)
            var kicked: UInt64 = 0
            while running.value.load(ordering: .relaxed) {
                let descriptor = state.cycleCPULatency.load(ordering: .relaxed)
                let start = state.lastCycleStart.load(ordering: .relaxed)
                let period = state.lastCyclePeriod.load(ordering: .relaxed)
                guard descriptor >= 0, period > 0, start > 0 else {
                    usleep(20_000)
                    continue
                }
                let due = start &+ period
                let lead = min(Self.lead, period / 2)
                let now = trellis_host_time_ns()
                guard due > kicked else {
                    // That cycle has not started: late, or no cycles run (the server went
                    // away). Past a period overdue, let go, as its end would have.
                    if now > due &+ period { CPULatencyRequest.write(descriptor, CPULatencyRequest.released) }
                    Self.sleep(until: now &+ min(period / 4, 20_000_000))
                    continue
                }
                if now &+ lead < due {
                    Self.sleep(until: due &- lead)
                    guard running.value.load(ordering: .relaxed) else { break }
                    CPULatencyRequest.write(descriptor, 0)
                    // Stopped holding meanwhile: the cycles no longer let go, so do it here.
                    if state.cycleCPULatency.load(ordering: .relaxed) < 0 {
                        CPULatencyRequest.write(descriptor, CPULatencyRequest.released)
                    }
                }
                kicked = due
                // Look again once that cycle should have started.
                Self.sleep(until: due &+ period / 4)
            }
        }
    }

    private static func sleep(until time: UInt64) {
        var deadline = timespec(tv_sec: Int(time / 1_000_000_000), tv_nsec: Int(time % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil) == EINTR {}
    }

    /// Ends the thread and waits for it (within a period or 20 ms).
    func stop() {
        running.value.store(false, ordering: .relaxed)
        thread?.join()
        thread = nil
    }

    deinit { stop() }
}
