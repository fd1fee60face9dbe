/// Reads and writes LV2 atom sequences in raw port buffers, the layout the atom
/// extension fixes: an 8-byte atom header (size, type), an 8-byte sequence body
/// (unit, pad), then events of an 8-byte frame time, an 8-byte atom header and the
/// data, each padded to 8 bytes. `size` in the header counts the bytes after it.
/// Thread: any; nothing here allocates.
enum AtomSequence {
    static let headerSize = 8
    static let eventsStart = 16

    @inline(__always)
    static func padded(_ size: Int) -> Int { (size + 7) & ~7 }

    /// Makes `buffer` an empty input sequence.
    @inline(__always)
    static func clear(_ buffer: UnsafeMutableRawPointer, sequenceType: UInt32) {
        buffer.storeBytes(of: UInt32(8), toByteOffset: 0, as: UInt32.self)
        buffer.storeBytes(of: sequenceType, toByteOffset: 4, as: UInt32.self)
        buffer.storeBytes(of: UInt64(0), toByteOffset: 8, as: UInt64.self)
    }

    /// Offers an output buffer's whole capacity to the plugin, as a chunk.
    @inline(__always)
    static func prepareOutput(_ buffer: UnsafeMutableRawPointer, capacity: Int, chunkType: UInt32) {
        buffer.storeBytes(of: UInt32(capacity - headerSize), toByteOffset: 0, as: UInt32.self)
        buffer.storeBytes(of: chunkType, toByteOffset: 4, as: UInt32.self)
    }

    /// Appends one event; false when it does not fit.
    @inline(__always)
    static func append(
        _ buffer: UnsafeMutableRawPointer, capacity: Int, frame: Int64, type: UInt32,
        data: UnsafeRawPointer, size: Int
    ) -> Bool {
        let used = Int(buffer.load(fromByteOffset: 0, as: UInt32.self))
        let position = headerSize + used
        let total = 16 + padded(size)
        guard position + total <= capacity else { return false }
        buffer.storeBytes(of: frame, toByteOffset: position, as: Int64.self)
        buffer.storeBytes(of: UInt32(size), toByteOffset: position + 8, as: UInt32.self)
        buffer.storeBytes(of: type, toByteOffset: position + 12, as: UInt32.self)
        copyBytes(from: data, to: buffer + position + 16, count: size)
        buffer.storeBytes(of: UInt32(used + total), toByteOffset: 0, as: UInt32.self)
        return true
    }

    /// Calls `body` with each event of a sequence (frame, type, data, size); does
    /// nothing when the buffer does not hold a sequence.
    @inline(__always)
    static func forEachEvent(
        _ buffer: UnsafeRawPointer, capacity: Int, sequenceType: UInt32,
        _ body: (Int64, UInt32, UnsafeRawPointer, Int) -> Void
    ) {
        guard buffer.load(fromByteOffset: 4, as: UInt32.self) == sequenceType else { return }
        let end = min(headerSize + Int(buffer.load(fromByteOffset: 0, as: UInt32.self)), capacity)
        var position = eventsStart
        while position + 16 <= end {
            let frame = buffer.load(fromByteOffset: position, as: Int64.self)
            let size = Int(buffer.load(fromByteOffset: position + 8, as: UInt32.self))
            let type = buffer.load(fromByteOffset: position + 12, as: UInt32.self)
            guard position + 16 + size <= end else { return }
            body(frame, type, buffer + position + 16, size)
            position += 16 + padded(size)
        }
    }

    /// One event of a sequence, read without a closure (for the audio thread).
    struct Event {
        var frame: Int64
        var type: UInt32
        var data: UnsafeRawPointer
        var size: Int
        /// Where the next event starts.
        var next: Int
    }

    /// Where a sequence's events end, or `eventsStart` when the buffer does not hold a
    /// sequence (so there are none).
    @inline(__always)
    static func eventsEnd(_ buffer: UnsafeRawPointer, capacity: Int, sequenceType: UInt32) -> Int {
        guard buffer.load(fromByteOffset: 4, as: UInt32.self) == sequenceType else { return eventsStart }
        return min(headerSize + Int(buffer.load(fromByteOffset: 0, as: UInt32.self)), capacity)
    }

    /// The event at `position`, or nil past the last one.
    @inline(__always)
    static func event(_ buffer: UnsafeRawPointer, at position: Int, end: Int) -> Event? {
        guard position + 16 <= end else { return nil }
        let size = Int(buffer.load(fromByteOffset: position + 8, as: UInt32.self))
        guard position + 16 + size <= end else { return nil }
        return Event(
            frame: buffer.load(fromByteOffset: position, as: Int64.self),
            type: buffer.load(fromByteOffset: position + 12, as: UInt32.self),
            data: buffer + position + 16, size: size, next: position + 16 + padded(size))
    }
}
