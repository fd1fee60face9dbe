import Glibc
import Synchronization

/// When a live session asks the kernel to keep idle CPUs responsive (its CPU latency
/// QoS, `/dev/cpu_dma_latency`, held at 0 µs): idle CPUs then poll instead of halting.
///
/// A cycle that wakes another thread (a bridged plugin's process) waits for it: on a
/// halted CPU that wake takes tens of µs in a virtual machine and up to hundreds from a
/// deep C-state on bare metal; on a polling CPU a few µs. Polling costs power and, on a
/// shared host, CPU time (and xruns: measured on a VM at 64 frames), so by default it
/// is held only around the cycles that need it.
public enum CPULatencyPolicy: String, Sendable, CaseIterable {
    /// While the running program runs isolated plugins, around each cycle: from shortly
    /// before it is due (`CPUWakeAhead`) to its end. (Render workers anticipate the
    /// cycle instead, see `CrewState.work`.)
    case auto
    /// Held for as long as the client runs on a real-time server.
    case hold
    /// Never asked for.
    case off
}

/// What became of the request, for the status. Thread: any (a plain value).
public enum CPULatencyState: Sendable, Equatable, CustomStringConvertible {
    /// Not asked for: the policy is `off`, or the server does not run in real time.
    case notAsked
    /// Open, but not needed by the program now (`auto`: no isolated plugin).
    case released
    /// Idle CPUs poll, for the whole run (`hold`).
    case held
    /// Idle CPUs poll while a cycle runs (`auto`: the audio thread asks at the start of
    /// each cycle and lets go at its end).
    case heldDuringCycles
    /// The kernel refused it (most often: only root may write `/dev/cpu_dma_latency`).
    case refused(String)

    /// One word for a status: not-asked, released, held or refused.
    public var word: String {
        switch self {
        case .notAsked: "not-asked"
        case .released: "released"
        case .held: "held"
        case .heldDuringCycles: "cycles"
        case .refused: "refused"
        }
    }

    public var description: String {
        switch self {
        case .notAsked: "not asked"
        case .released: "released"
        case .held: "held at 0 µs"
        case .heldDuringCycles: "held at 0 µs during cycles"
        case .refused(let reason): "refused: \(reason)"
        }
    }
}

/// The one open `/dev/cpu_dma_latency` of a head node: the request lives while the file
/// is open, and its value is what was last written. Opening alone asks nothing.
/// Thread: any (its own lock, taken inside no other).
final class CPULatencyRequest: Sendable {
    static let device = "/dev/cpu_dma_latency"
    /// The kernel's "no constraint" (PM_QOS_CPU_LATENCY_DEFAULT_VALUE, 2000 s in µs).
    static let released: Int32 = 2_000_000_000

    /// Sets an open request's value: one system call that never blocks (the kernel takes
    /// a spinlock and sends idle CPUs an interrupt). Thread: any, audio included.
    @inline(__always)
    static func write(_ descriptor: Int32, _ microseconds: Int32) {
        var value = microseconds
        _ = Glibc.write(descriptor, &value, MemoryLayout<Int32>.size)
    }

    /// Has the cycles hold the request (`slot`, which the audio thread reads at the start
    /// of each cycle, gets the open descriptor), or stop; nothing while the device is not
    /// open. Under the lock, so `close` never leaves a closed descriptor in the slot.
    func holdDuringCycles(_ on: Bool, slot: borrowing Atomic<Int32>) {
        request.withLock { request in
            let held = slot.load(ordering: .relaxed) >= 0
            slot.store(on && request.descriptor >= 0 ? request.descriptor : -1, ordering: .relaxed)
            // What a wake-ahead set before a cycle that now will not let go of it.
            if held, !on, request.descriptor >= 0 { Self.write(request.descriptor, Self.released) }
        }
    }

    private struct Request {
        var descriptor: Int32 = -1
        var state = CPULatencyState.notAsked
    }

    private let request = Mutex(Request())

    /// Opens the device unless it is open; false, with the state saying why, when the
    /// kernel refuses.
    func open() -> Bool {
        request.withLock { request in
            guard request.descriptor < 0 else { return true }
            let descriptor = Glibc.open(Self.device, O_WRONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                request.state = .refused("\(Self.device): \(String(cString: strerror(errno)))")
                return false
            }
            request.descriptor = descriptor
            request.state = .released
            return true
        }
    }

    /// Holds idle CPUs at 0 µs, or lets go; nothing when the device is not open.
    func hold(_ on: Bool) {
        request.withLock { request in
            guard request.descriptor >= 0, (request.state == .held) != on else { return }
            var value = on ? 0 : Self.released
            let written = Glibc.write(request.descriptor, &value, MemoryLayout<Int32>.size)
            if written == MemoryLayout<Int32>.size {
                request.state = on ? .held : .released
            } else {
                request.state = .refused("\(Self.device): \(String(cString: strerror(errno)))")
                Glibc.close(request.descriptor)
                request.descriptor = -1
            }
        }
    }

    /// Closes the device, which withdraws the request; the cycles stop holding it
    /// (`slot`). Call it while no cycle runs.
    func close(slot: borrowing Atomic<Int32>) {
        request.withLock { request in
            slot.store(-1, ordering: .relaxed)
            if request.descriptor >= 0 { Glibc.close(request.descriptor) }
            request.descriptor = -1
            if case .refused = request.state { return }
            request.state = .notAsked
        }
    }

    var state: CPULatencyState { request.withLock { $0.state } }

    deinit {
        request.withLock { request in
            if request.descriptor >= 0 { Glibc.close(request.descriptor) }
        }
    }
}
