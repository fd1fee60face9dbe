import Synchronization
import TrellisCore
import TrellisGraph
import TrellisMedia

/// A bus streamed to one connection as raw frames (`tap stream`): a `Tap` whose
/// buffers go into the connection's outbox as interleaved little-endian float32, for
/// analysis tools (`trellis ctl NAME tap stream mix.0 | sox -t f32 -c 2 -r 48000 - out.wav`).
///
/// Nothing is sent before the reply is queued (`arm`); after `frameLimit` frames the
/// connection is closed. Buffers the client does not read in time are dropped whole and
/// counted (`droppedFrames`), so a stalled client never holds up the audio or the
/// session. Thread: the tap's delivery thread writes; control starts and ends it.
final class TapStream: @unchecked Sendable {
    let bus: BusName
    let tap: Tap
    let channelCount: Int
    private(set) var token: ObserverToken?
    private let flags = Flags()

    /// Streams `channelCount` channels to `peer`, ending after `frameLimit` frames (nil:
    /// until the connection closes). Thread: control.
    init(bus: BusName, channelCount: Int, frameLimit: Int?, peer: ControlPeer, deliver: @escaping @Sendable (UnsafeRawBufferPointer) -> Bool) {
        self.bus = bus
        self.channelCount = channelCount
        let flags = self.flags
        let limit = frameLimit ?? .max
        // The delivery thread's own scratch: one interleaved buffer, reused.
        let scratch = Scratch(capacity: 1024 * channelCount)
        tap = Tap(channelCount: channelCount, bufferSize: 1024, queueDepth: 32) { [weak peer] buffer in
            guard flags.armed.load(ordering: .acquiring), !flags.done.load(ordering: .relaxed) else { return }
            let already = flags.sent.load(ordering: .relaxed)
            let frames = min(buffer.frameCount, limit - already)
            guard frames > 0 else { return }
            let channels = min(channelCount, buffer.buffers.channelCount)
            for frame in 0..<frames {
                for channel in 0..<channelCount {
                    scratch.pointer[frame * channelCount + channel] = channel < channels ? buffer.buffers[channel][frame] : 0
                }
            }
            let bytes = UnsafeRawBufferPointer(start: scratch.pointer, count: frames * channelCount * MemoryLayout<Float>.size)
            if deliver(bytes) {
                flags.sent.add(frames, ordering: .relaxed)
            } else {
                flags.dropped.add(frames, ordering: .relaxed)
                // Dropped frames still count against a duration: it is of time, not data.
                flags.sent.add(frames, ordering: .relaxed)
            }
            if already + frames >= limit {
                flags.done.store(true, ordering: .relaxed)
                peer?.finish()
            }
        }
    }

    /// Attaches the tap to `node`'s bus. Thread: control, under the graph's lock.
    func attach(to graph: Graph, path: String, bus index: Int) throws(GraphError) {
        token = try graph.addObserver(tap, path: path, bus: index)
    }

    /// Takes the tap off the graph. Thread: control, under the graph's lock.
    func detach(from graph: Graph) {
        flags.done.store(true, ordering: .relaxed)
        if let token { try? graph.removeObserver(token) }
        token = nil
    }

    /// Sends nothing more; the graph it watched is gone (a `load`). Thread: any.
    func end() { flags.done.store(true, ordering: .relaxed) }

    func arm() { flags.armed.store(true, ordering: .releasing) }

    /// Frames the client did not read in time.
    var droppedFrames: Int { flags.dropped.load(ordering: .relaxed) + tap.droppedFrames }

    /// Shared by control and the tap's thread.
    private final class Flags: Sendable {
        let armed = Atomic<Bool>(false)
        let done = Atomic<Bool>(false)
        let sent = Atomic<Int>(0)
        let dropped = Atomic<Int>(0)
    }

    /// Interleaved frames, owned here, written only by the tap's thread.
    private final class Scratch: @unchecked Sendable {
        let pointer: UnsafeMutablePointer<Float>
        private let memory = Arena()
        init(capacity: Int) { pointer = memory.take(capacity) }
    }
}
