import Glibc
import TrellisCore

/// A plain thread running one closure, joined by its owner. Thread: control.
final class StageThread {
    private var handle = pthread_t()
    private var joined = false

    init(_ body: @escaping () -> Void) {
        let box = Unmanaged.passRetained(Body(body)).toOpaque()
        let status = pthread_create(&handle, nil, { raw in
            Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue().run()
            return nil
        }, box)
        precondition(status == 0, "cannot start an offline render stage: error \(status)")
    }

    /// Waits for the closure to return. Joining twice does nothing.
    func join() {
        guard !joined else { return }
        joined = true
        pthread_join(handle, nil)
    }

    deinit { join() }

    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }
}

/// A counting semaphore (POSIX, process-private). Thread: any but audio (waits block).
final class Semaphore: @unchecked Sendable {
    private let semaphore: UnsafeMutablePointer<sem_t>
    private let memory = Arena(firstBlock: 64)

    init(value: UInt32 = 0) {
        semaphore = memory.place(sem_t())
        sem_init(semaphore, 0, value)
    }

    deinit { sem_destroy(semaphore) }

    func post() { sem_post(semaphore) }

    func wait() {
        while sem_wait(semaphore) != 0 && errno == EINTR {}
    }
}
