import TrellisCore

/// Writes the host's transport as a `time:Position` object into an atom sequence, with
/// the properties jalv and Ardour send: frame, speed, bar, barBeat, beat, beatUnit,
/// beatsPerBar and beatsPerMinute. The object is laid out by hand in memory allocated
/// once (an object body: id and type, then each property's key, context, atom header
/// and value, padded to 8 bytes), so writing allocates nothing. Thread: audio for
/// `write`, control for `init`.
struct TimePositionWriter {
    private let objectType, positionType, longType, floatType, doubleType, intType: UInt32
    private let frameKey, speedKey, barKey, barBeatKey, beatKey, beatUnitKey, beatsPerBarKey, tempoKey: UInt32
    private let scratch: UnsafeMutableRawPointer
    static let scratchSize = 256

    /// Its scratch in `memory` (the kernel's).
    init(urids: URIDMap, in memory: Arena) {
        objectType = urids.map(LV2URI.atomObject)
        positionType = urids.map(LV2URI.timePosition)
        longType = urids.map(LV2URI.atomLong)
        floatType = urids.map(LV2URI.atomFloat)
        doubleType = urids.map(LV2URI.atomDouble)
        intType = urids.map(LV2URI.atomInt)
        frameKey = urids.map(LV2URI.timeFrame)
        speedKey = urids.map(LV2URI.timeSpeed)
        barKey = urids.map(LV2URI.timeBar)
        barBeatKey = urids.map(LV2URI.timeBarBeat)
        beatKey = urids.map(LV2URI.timeBeat)
        beatUnitKey = urids.map(LV2URI.timeBeatUnit)
        beatsPerBarKey = urids.map(LV2URI.timeBeatsPerBar)
        tempoKey = urids.map(LV2URI.timeBeatsPerMinute)
        scratch = UnsafeMutableRawPointer(memory.take(Self.scratchSize, repeating: UInt8(0)))
    }

    /// One property: key, context 0, the value's atom header, the value padded to 8.
    @inline(__always)
    private static func put<T: BitwiseCopyable>(_ scratch: UnsafeMutableRawPointer, _ offset: inout Int, _ key: UInt32, _ type: UInt32, _ value: T) {
        scratch.storeBytes(of: key, toByteOffset: offset, as: UInt32.self)
        scratch.storeBytes(of: UInt32(0), toByteOffset: offset + 4, as: UInt32.self)
        scratch.storeBytes(of: UInt32(MemoryLayout<T>.size), toByteOffset: offset + 8, as: UInt32.self)
        scratch.storeBytes(of: type, toByteOffset: offset + 12, as: UInt32.self)
        scratch.storeBytes(of: UInt64(0), toByteOffset: offset + 16, as: UInt64.self)
        scratch.storeBytes(of: value, toByteOffset: offset + 16, as: T.self)
        offset += 24
    }

    /// Appends the position at `frame` of the sequence in `buffer`; false when it does
    /// not fit.
    @inline(__always)
    func write(_ time: TimeContext, frame: Int64, into buffer: UnsafeMutableRawPointer, capacity: Int) -> Bool {
        scratch.storeBytes(of: UInt32(0), toByteOffset: 0, as: UInt32.self)
        scratch.storeBytes(of: positionType, toByteOffset: 4, as: UInt32.self)
        var offset = 8
        Self.put(scratch, &offset, frameKey, longType, time.transportFrame)
        Self.put(scratch, &offset, speedKey, floatType, Float(time.isRolling ? 1 : 0))
        Self.put(scratch, &offset, barKey, longType, time.bar)
        Self.put(scratch, &offset, barBeatKey, floatType, Float(time.barBeat))
        Self.put(scratch, &offset, beatKey, doubleType, time.beat)
        Self.put(scratch, &offset, beatUnitKey, intType, time.beatUnit)
        Self.put(scratch, &offset, beatsPerBarKey, floatType, Float(time.beatsPerBar))
        Self.put(scratch, &offset, tempoKey, floatType, Float(time.tempo))
        return AtomSequence.append(buffer, capacity: capacity, frame: frame, type: objectType, data: scratch, size: offset)
    }
}
