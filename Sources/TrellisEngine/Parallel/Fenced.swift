import CTrellisShim

// The C calls the parallel runner makes on the audio thread and the workers, fenced
// for the real-time checker, which cannot see into C: each is a single instruction or
// a vDSO read, except the futex wake (one system call per parallel cycle, the only one
// on the fast path), and the futex waits and yields (workers only, between cycles).

/// The processor's spin hint (x86 `pause`).
@inline(__always)
func spinHint() { _unsafePerformance { trellis_cpu_relax() } }

/// Monotonic nanoseconds (the vDSO's clock, no system call).
@inline(__always)
func hostNanoseconds() -> UInt64 { _unsafePerformance { trellis_host_time_ns() } }

@inline(__always)
func futexWake(_ word: UnsafeMutablePointer<UInt32>, count: Int32) { _unsafePerformance { trellis_futex_wake(word, count) } }

@inline(__always)
func futexWait(_ word: UnsafeMutablePointer<UInt32>, while expected: UInt32) { _unsafePerformance { trellis_futex_wait(word, expected) } }

@inline(__always)
func futexWait(_ word: UnsafeMutablePointer<UInt32>, while expected: UInt32, until deadline: UInt64) {
    _unsafePerformance { trellis_futex_wait_until(word, expected, deadline) }
}

/// `sched_yield`: a worker spinning for a cycle lets a thread of its priority run.
@inline(__always)
func yieldProcessor() { _unsafePerformance { trellis_yield() } }
