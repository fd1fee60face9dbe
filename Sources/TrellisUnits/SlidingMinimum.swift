import TrellisCore

/// The minimum of the last `window` values pushed, in amortized constant time (a
/// monotonic queue), in storage taken once from its kernel's memory. Thread: audio for
/// `push`, control for `init`.
struct SlidingMinimum {
    private let values: UnsafeMutablePointer<Float>
    private let stamps: UnsafeMutablePointer<Int>
    private let capacity: Int
    /// The window's length; at most `longest`. Change it through `resize`.
    private(set) var window: Int
    private var head = 0
    private var count = 0
    private var time = 0

    /// A window of `window` values, which `resize` may change up to `longest`, in `memory`.
    init(window: Int, longest: Int? = nil, in memory: Arena) {
        self.window = max(1, window)
        capacity = max(self.window, longest ?? 0) + 1
        values = memory.take(capacity)
        stamps = memory.take(capacity)
    }

    /// Starts again, empty, with a window of `window` values (1 to the longest given at
    /// init). Thread: audio.
    mutating func resize(window: Int) {
        self.window = min(max(1, window), capacity - 1)
        reset()
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
