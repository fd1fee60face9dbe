import CTrellisShim
import Glibc
import Synchronization
import TrellisEngine

/// A plain (not real-time) thread that services a set of clients in turn: the butler
/// that keeps players' rings full and drains recorders', the notifier that delivers
/// notifications, a tap's delivery thread.
///
/// Each pass calls every client's work; when none had anything to do, the thread sleeps
/// for `interval` or until `wake()`. The audio thread never wakes it (that would take a
/// lock); the interval is short against the rings' depth instead. Clients are held
/// weakly: a client that goes away drops out. Thread: any but audio.
final class ServiceThread: Sendable {
    private struct Entry {
        let key: UInt64
        let owner: ObjectIdentifier
        /// Does one pass of work; true when it did something, nil once the owner is gone.
        let work: @Sendable () -> Bool?
    }

    let name: String
    private let intervalNanoseconds: Int
    private let entries = Mutex<[Entry]>([])
    private let wakeup = Wakeup()
    private let stopping = Atomic<Bool>(false)
    private let thread = Mutex<pthread_t?>(nil)
    private let nextKey = Atomic<UInt64>(0)

    init(name: String, intervalNanoseconds: Int) {
        self.name = name
        self.intervalNanoseconds = intervalNanoseconds
        let body = ThreadBody { [self] in
            trellis_name_thread(name)
            run()
        }
        var handle = pthread_t()
        let status = pthread_create(&handle, nil, { raw in
            let body = Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue()
            body.run()
            return nil
        }, Unmanaged.passRetained(body).toOpaque())
        precondition(status == 0, "cannot start thread \(name): error \(status)")
        thread.withLock { $0 = handle }
    }

    /// Adds `owner`'s work to every pass (once per owner), until `remove` or until
    /// `owner` is freed.
    func add<Owner: AnyObject & Sendable>(_ owner: Owner, work: @escaping @Sendable (Owner) -> Bool) {
        let key = nextKey.add(1, ordering: .relaxed).newValue
        let entry = Entry(key: key, owner: ObjectIdentifier(owner)) { [weak owner] in
            guard let owner else { return nil }
            return work(owner)
        }
        // A dead owner at the same address leaves its place to the new one.
        entries.withLock { list in
            list.removeAll { $0.owner == entry.owner }
            list.append(entry)
        }
        wake()
    }

    func remove(_ owner: AnyObject) {
        let id = ObjectIdentifier(owner)
        entries.withLock { $0.removeAll { $0.owner == id } }
    }

    /// Starts a pass now instead of after the interval.
    func wake() { wakeup.signal() }

    /// Ends the thread after its current pass and waits for it, unless called from the
    /// thread itself. Thread: control.
    func stop() {
        stopping.store(true, ordering: .releasing)
        wake()
        guard let handle = thread.withLock({ value -> pthread_t? in
            defer { value = nil }
            return value
        }) else { return }
        if pthread_equal(handle, pthread_self()) != 0 {
            pthread_detach(handle)
        } else {
            pthread_join(handle, nil)
        }
    }

    private func run() {
        while !stopping.load(ordering: .acquiring) {
            let current = entries.withLock { $0 }
            var busy = false
            var gone: [UInt64] = []
            for entry in current {
                switch entry.work() {
                case .some(true): busy = true
                case .some(false): break
                case .none: gone.append(entry.key)
                }
            }
            if !gone.isEmpty {
                entries.withLock { list in list.removeAll { gone.contains($0.key) } }
            }
            if !busy { wakeup.wait(nanoseconds: intervalNanoseconds) }
        }
    }
}

private final class ThreadBody: @unchecked Sendable {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}
