import TrellisCore

/// A Standard MIDI File (format 0 or 1) read into memory: every channel message of
/// every track with its time in seconds through the file's tempo map, in time order.
/// Meta events other than tempo and end of track, and system exclusive messages, are
/// read past. Reading is bounded (16 MiB, 256 tracks, a million events) and a file
/// that breaks the format is refused naming the track and byte. Thread: any.
public struct StandardMIDIFile: Sendable {
    public struct Event: Sendable, Equatable {
        /// Seconds from the start of the file.
        public var seconds: Double
        /// The track it is in, from 0, among the tracks that hold channel messages.
        public var track: Int
        public var message: MIDIMessage
    }

    public var format: Int
    /// Ticks a quarter note lasts (the header's division).
    public var ticksPerQuarter: Int
    /// Channel messages of all tracks, in time order (a track's own order kept).
    public var events: [Event]
    /// How many tracks hold channel messages: the player's per-track buses.
    public var trackCount: Int
    /// Where the file ends: its last end of track, or its last event.
    public var length: Double
    /// The tempo changes: (tick, microseconds a quarter note), the first at tick 0.
    public var tempoMap: [(tick: Int, microsecondsPerQuarter: Int)]

    static let byteLimit = 16 * 1024 * 1024
    static let trackLimit = 256
    static let eventLimit = 1_000_000

    /// Why a file is not one Trellis can play.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var message: String
        public var description: String { message }
    }

    /// Reads `bytes`; `name` is how messages name the file.
    public init(bytes: [UInt8], name: String) throws(Failure) {
        func fail(_ text: String) -> Failure { Failure(message: "\(name): \(text)") }
        guard bytes.count <= Self.byteLimit else { throw fail("\(bytes.count) bytes is more than a MIDI file may have here (16 MiB)") }
        var reader = ByteReader(bytes: bytes)
        guard reader.tag() == "MThd", let headerLength = reader.u32(), headerLength >= 6,
              let format = reader.u16(), let count = reader.u16(), let division = reader.u16() else {
            throw fail("not a Standard MIDI File (it does not start with an MThd header)")
        }
        guard reader.skip(Int(headerLength) - 6) else { throw fail("its header is cut short") }
        guard format <= 1 else { throw fail("format \(format) (independent sequences) is not played; formats 0 and 1 are") }
        guard division & 0x8000 == 0, division > 0 else {
            throw fail("its division counts SMPTE frames; only files that count ticks a quarter note are played")
        }
        guard count >= 1, count <= Self.trackLimit else { throw fail("\(count) tracks; a file may have 1 to \(Self.trackLimit)") }
        self.format = Int(format)
        ticksPerQuarter = Int(division)

        // Each track: its channel messages by tick, and its tempo changes.
        var raw: [(tick: Int, track: Int, order: Int, message: MIDIMessage)] = []
        var tempos: [(tick: Int, order: Int, tempo: Int)] = []
        var lastTick = 0
        var channelTracks = 0
        for trackNumber in 1...Int(count) {
            let start = reader.offset
            guard reader.tag() == "MTrk", let length = reader.u32() else {
                throw fail("track \(trackNumber) at byte \(start): no MTrk chunk where the header promised one")
            }
            guard Int(length) <= reader.remaining else { throw fail("track \(trackNumber) at byte \(start): its length (\(length)) runs past the end of the file") }
            var track = ByteReader(bytes: bytes, offset: reader.offset, end: reader.offset + Int(length))
            reader.offset += Int(length)
            var tick = 0
            var running: UInt8 = 0
            var hasChannelMessages = false
            var ended = false
            while !ended, track.remaining > 0 {
                let at = track.offset
                func broken(_ text: String) -> Failure { fail("track \(trackNumber) at byte \(at): \(text)") }
                guard let delta = track.variableLength() else { throw broken("a delta time that is not a variable-length number") }
                tick += delta
                guard tick <= Int(Int32.max) else { throw broken("the track runs past 2^31 ticks") }
                guard var status = track.peek() else { throw broken("an event is cut short") }
                if status & 0x80 != 0 { _ = track.byte() } else {
                    guard running != 0 else { throw broken("a data byte with no status before it") }
                    status = running
                }
                switch status {
                case 0xFF:
                    running = 0
                    guard let type = track.byte(), let size = track.variableLength(), size <= track.remaining else { throw broken("a meta event is cut short") }
                    if type == 0x2F { ended = true }
                    if type == 0x51 {
                        guard size == 3, let a = track.byte(), let b = track.byte(), let c = track.byte() else { throw broken("a tempo event that is not 3 bytes") }
                        let tempo = Int(a) << 16 | Int(b) << 8 | Int(c)
                        guard tempo > 0 else { throw broken("a tempo of 0 microseconds a quarter note") }
                        tempos.append((tick, tempos.count, tempo))
                    } else {
                        _ = track.skip(size)
                    }
                case 0xF0, 0xF7:
                    running = 0
                    guard let size = track.variableLength(), track.skip(size) else { throw broken("a system exclusive message is cut short") }
                case 0xF1...0xFE:
                    throw broken("a system message (0x\(String(status, radix: 16))) has no place in a MIDI file")
                default:
                    running = status
                    let length = status & 0xF0 == 0xC0 || status & 0xF0 == 0xD0 ? 2 : 3
                    guard let data1 = track.byte(), length < 3 || track.peek() != nil else { throw broken("a channel message is cut short") }
                    let data2 = length == 3 ? track.byte()! : 0
                    guard data1 < 0x80, data2 < 0x80 else { throw broken("a data byte above 127") }
                    raw.append((tick, channelTracks, raw.count, MIDIMessage(status: status, data1: data1, data2: data2, length: UInt8(length))))
                    hasChannelMessages = true
                    guard raw.count <= Self.eventLimit else { throw fail("more than \(Self.eventLimit) events") }
                }
            }
            lastTick = max(lastTick, tick)
            if hasChannelMessages {
                // Events already read carry this track's number; the next track gets the next.
                channelTracks += 1
            }
        }
        trackCount = max(1, channelTracks)

        // The tempo map, from any track, by tick (120 BPM until the first change).
        tempos.sort { ($0.tick, $0.order) < ($1.tick, $1.order) }
        var map: [(tick: Int, microsecondsPerQuarter: Int)] = [(0, 500_000)]
        for change in tempos {
            if change.tick == map[map.count - 1].tick { map[map.count - 1].microsecondsPerQuarter = change.tempo } else { map.append((change.tick, change.tempo)) }
        }
        tempoMap = map
        raw.sort { ($0.tick, $0.order) < ($1.tick, $1.order) }
        let tempoMap = map, ticks = Double(ticksPerQuarter)
        func seconds(_ tick: Int) -> Double {
            var total = 0.0
            for (index, change) in tempoMap.enumerated() {
                let end = index + 1 < tempoMap.count ? min(tick, tempoMap[index + 1].tick) : tick
                guard end > change.tick else { break }
                total += Double(end - change.tick) / ticks * Double(change.microsecondsPerQuarter) / 1_000_000
            }
            return total
        }
        events = raw.map { Event(seconds: seconds($0.tick), track: $0.track, message: $0.message) }
        length = seconds(lastTick)
    }
}

/// Big-endian reading of a byte array, bounded by `end`.
struct ByteReader {
    let bytes: [UInt8]
    var offset: Int
    let end: Int

    init(bytes: [UInt8], offset: Int = 0, end: Int? = nil) {
        self.bytes = bytes
        self.offset = offset
        self.end = min(end ?? bytes.count, bytes.count)
    }

    var remaining: Int { end - offset }

    func peek() -> UInt8? { offset < end ? bytes[offset] : nil }

    mutating func byte() -> UInt8? {
        guard offset < end else { return nil }
        offset += 1
        return bytes[offset - 1]
    }

    mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, count <= remaining else { return false }
        offset += count
        return true
    }

    mutating func u16() -> UInt16? {
        guard let a = byte(), let b = byte() else { return nil }
        return UInt16(a) << 8 | UInt16(b)
    }

    mutating func u32() -> UInt32? {
        guard let a = u16(), let b = u16() else { return nil }
        return UInt32(a) << 16 | UInt32(b)
    }

    mutating func tag() -> String? {
        guard remaining >= 4 else { return nil }
        defer { offset += 4 }
        return String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
    }

    /// A variable-length quantity: at most four bytes, seven bits each.
    mutating func variableLength() -> Int? {
        var value = 0
        for _ in 0..<4 {
            guard let next = byte() else { return nil }
            value = value << 7 | Int(next & 0x7F)
            if next & 0x80 == 0 { return value }
        }
        return nil
    }
}
