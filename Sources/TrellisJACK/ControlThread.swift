import Glibc

/// A plain POSIX thread running one closure, joined by whoever started it.
/// Thread: start and join on the control side.
final class ControlThread: @unchecked Sendable {
    private var handle = pthread_t()
    private let body: @Sendable () -> Void

    private init(body: @escaping @Sendable () -> Void) {
        self.body = body
    }

    /// Starts `body` on a new thread; nil if the system refused to make one.
    static func start(_ body: @escaping @Sendable () -> Void) -> ControlThread? {
        let thread = ControlThread(body: body)
        let context = Unmanaged.passRetained(thread).toOpaque()
        let result = pthread_create(&thread.handle, nil, { context in
            let thread = Unmanaged<ControlThread>.fromOpaque(context!).takeRetainedValue()
            thread.body()
            return nil
        }, context)
        if result != 0 {
            Unmanaged<ControlThread>.fromOpaque(context).release()
            return nil
        }
        return thread
    }

    /// Waits for the body to return; from the thread itself (a listener stopping the head
    /// node) it lets the thread finish on its own instead.
    func join() {
        if pthread_equal(handle, pthread_self()) != 0 {
            pthread_detach(handle)
        } else {
            pthread_join(handle, nil)
        }
    }
}
