import Synchronization
/// A borrowed view of one bus's non-interleaved float channels for one render call.
///
/// A view owns nothing and costs nothing to copy, so it may cross into the audio
/// thread freely; whoever made the memory keeps it alive for as long as views exist.
public struct AudioBuffers: @unchecked Sendable, BitwiseCopyable {
    public let channelPointers: UnsafePointer<UnsafeMutablePointer<Float>>?
    public let channelCount: Int

    public init(channelPointers: UnsafePointer<UnsafeMutablePointer<Float>>?, channelCount: Int) {
        self.channelPointers = channelPointers
        self.channelCount = channelCount
    }

    public static let empty = AudioBuffers(channelPointers: nil, channelCount: 0)

    /// The samples of one channel. Thread: any.
    @inlinable @inline(__always)
    public subscript(channel: Int) -> UnsafeMutablePointer<Float> {
        channelPointers.unsafelyUnwrapped[channel]
    }

    /// Writes zeros into `frameCount` frames of every channel. Thread: any.
    @inlinable @inline(__always)
    public func clear(frameCount: Int) {
        for channel in 0..<channelCount {
            self[channel].update(repeating: 0, count: frameCount)
        }
    }

    /// Copies `frameCount` frames channel by channel from `source`; a source with fewer
    /// channels leaves the extra channels silent. Thread: any.
    @inlinable @inline(__always)
    public func copy(from source: AudioBuffers, frameCount: Int) {
        for channel in 0..<channelCount {
            if channel < source.channelCount {
                copySamples(from: source[channel], to: self[channel], count: frameCount)
            } else {
                self[channel].update(repeating: 0, count: frameCount)
            }
        }
    }
}

/// Views of several buses, indexed by element. Thread: any.
public struct BusBuffers: @unchecked Sendable, BitwiseCopyable {
    public let buses: UnsafePointer<AudioBuffers>?
    public let count: Int

    @inlinable
    public init(buses: UnsafePointer<AudioBuffers>?, count: Int) {
        self.buses = buses
        self.count = count
    }

    public static let none = BusBuffers(buses: nil, count: 0)

    @inlinable @inline(__always)
    public subscript(bus: Int) -> AudioBuffers {
        buses.unsafelyUnwrapped[bus]
    }

    /// These buses `frames` frames in, written into `scratch`'s channel tables (which
    /// must have the same shape) and returned as `scratch`. Thread: audio.
    @inlinable @inline(__always)
    public func offset(by frames: Int, into scratch: BusBuffers) -> BusBuffers {
        for bus in 0..<count {
            let source = self[bus], target = scratch[bus]
            let table = UnsafeMutablePointer(mutating: target.channelPointers.unsafelyUnwrapped)
            for channel in 0..<source.channelCount { table[channel] = source[channel] + frames }
        }
        return scratch
    }
}

/// Owns the memory of one or more buses of non-interleaved float channels, allocated
/// once at a fixed capacity and freed when the list is released.
///
/// Thread: made and freed on the control side; its views are used on any thread.
public final class AudioBufferList: @unchecked Sendable {
    /// Lists made so far, which staggers where each one starts.
    private static let made = Atomic<Int>(0)
    public let channelCounts: [Int]
    public let frameCapacity: Int
    private let samples: UnsafeMutablePointer<Float>
    private let channelTable: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    private let busTable: UnsafeMutablePointer<AudioBuffers>
    /// The samples and the two tables, in one block.
    private let memory: Arena

    /// One bus of `channelCount` channels.
    public convenience init(channelCount: Int, frameCapacity: Int) {
        self.init(channelCounts: [channelCount], frameCapacity: frameCapacity)
    }

    /// One bus per entry of `channelCounts`, zero-filled.
    public init(channelCounts: [Int], frameCapacity: Int) {
        precondition(frameCapacity > 0 && channelCounts.allSatisfy { $0 >= 0 })
        self.channelCounts = channelCounts
        self.frameCapacity = frameCapacity
        let totalChannels = channelCounts.reduce(0, +)
        // Each channel starts on a 64-byte boundary so kernels can use aligned vectors,
        // 64 bytes further into its 4 KiB page than the channel before, and each list
        // starts at another such offset than the list made before it: a kernel reading
        // one buffer and writing another never has both at the same place in their
        // pages, where loads wait on stores to other addresses (4K aliasing).
        let stride = ((frameCapacity + 15) & ~15) + 16
        let stagger = Self.made.wrappingAdd(1, ordering: .relaxed).oldValue % 32 * 16
        let count = max(1, totalChannels * stride + stagger)
        memory = Arena(firstBlock: count * 4 + totalChannels * 8 + channelCounts.count * 16 + 3 * Arena.alignment)
        samples = memory.take(count, repeating: 0)
        channelTable = memory.take(totalChannels)
        for channel in 0..<totalChannels {
            (channelTable + channel).initialize(to: samples + stagger + channel * stride)
        }
        busTable = memory.take(channelCounts.count)
        var first = 0
        for (bus, count) in channelCounts.enumerated() {
            (busTable + bus).initialize(to: AudioBuffers(channelPointers: UnsafePointer(channelTable + first), channelCount: count))
            first += count
        }
    }

    public var busCount: Int { channelCounts.count }

    /// The view of one bus. Thread: any.
    public subscript(bus: Int) -> AudioBuffers { busTable[bus] }

    /// Views of all buses. Thread: any.
    public var buses: BusBuffers { BusBuffers(buses: UnsafePointer(busTable), count: channelCounts.count) }

    /// Copies the samples of one channel out, for tests and control-side inspection.
    public func samples(bus: Int = 0, channel: Int, frameCount: Int? = nil) -> [Float] {
        let view = self[bus]
        return Array(UnsafeBufferPointer(start: view[channel], count: frameCount ?? frameCapacity))
    }
}

/// Copies `count` samples, eight at a time. Written out because the standard library's
/// `update(from:count:)` is not provably free of releases, and the real-time checker
/// refuses it; a plain scalar loop is not always turned into a block copy. Thread: any.
@inlinable @inline(__always)
public func copySamples(from source: UnsafePointer<Float>, to destination: UnsafeMutablePointer<Float>, count: Int) {
    let from = UnsafeRawPointer(source), to = UnsafeMutableRawPointer(destination)
    var frame = 0
    while frame &+ 8 <= count {
        to.storeBytes(of: from.loadUnaligned(fromByteOffset: frame &* 4, as: SIMD8<Float>.self), toByteOffset: frame &* 4, as: SIMD8<Float>.self)
        frame &+= 8
    }
    while frame < count {
        destination[frame] = source[frame]
        frame &+= 1
    }
}

@inlinable @inline(__always)
public func copySamples(from source: UnsafeMutablePointer<Float>, to destination: UnsafeMutablePointer<Float>, count: Int) {
    copySamples(from: UnsafePointer(source), to: destination, count: count)
}
