/// The minimum of the last `window` values pushed, in amortized constant time (a
/// monotonic queue). Storage is allocated once. Thread: audio for `push`, control for
/// `init`/`deallocate`.
struct SlidingMinimum {
    private let values: UnsafeMutablePointer<Float>
    private let stamps: UnsafeMutablePointer<Int>
    private let capacity: Int
    let window: Int
    private var head = 0
    private var count = 0
    private var time = 0

    init(window: Int) {
        self.window = max(1, window)
        capacity = self.window + 1
        values = .allocate(capacity: capacity)
        stamps = .allocate(capacity: capacity)
    }

    func deallocate() {
        values.deallocate()
        stamps.deallocate()
    }

    mutating func reset() {
        head = 0
        count = 0
        time = 0
    }

    @inline(__always)
    private func wrap(_ index: Int) -> Int { index >= capacity ? index - capacity : index }

    /// Adds a value and returns the minimum over the window that ends with it.
    @inline(__always)
    mutating func push(_ value: Float) -> Float {
        while count > 0 {
            let back = wrap(head + count - 1)
            guard values[back] >= value else { break }
            count -= 1
        }
        let slot = wrap(head + count)
        values[slot] = value
        stamps[slot] = time
        count += 1
        if stamps[head] <= time - window {
            head = wrap(head + 1)
            count -= 1
        }
        time += 1
        return values[head]
    }
}
