import Foundation

/// A value several threads may touch, behind a lock: a handler on another thread and the
/// test that reads what it saw.
public final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    public init(_ value: Value) { self.value = value }

    public func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }

    public var current: Value { withLock { $0 } }
}
