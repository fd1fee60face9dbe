import Foundation

/// Standard MIDI Files built byte by byte, as the format's document lays them out.
public enum TestMIDIFile {
    /// A variable-length quantity.
    public static func vlq(_ value: Int) -> [UInt8] {
        var bytes = [UInt8(value & 0x7F)]
        var rest = value >> 7
        while rest > 0 {
            bytes.insert(UInt8(rest & 0x7F) | 0x80, at: 0)
            rest >>= 7
        }
        return bytes
    }

    /// A track chunk of (tick, event bytes), ticks absolute and in order, ended.
    public static func track(_ events: [(tick: Int, bytes: [UInt8])]) -> [UInt8] {
        var data: [UInt8] = []
        var last = 0
        for (tick, bytes) in events {
            data += vlq(tick - last) + bytes
            last = tick
        }
        data += [0x00, 0xFF, 0x2F, 0x00]
        return Array("MTrk".utf8) + bigEndian(UInt32(data.count)) + data
    }

    public static func header(format: Int, tracks: Int, division: Int) -> [UInt8] {
        Array("MThd".utf8) + bigEndian(UInt32(6)) + bigEndian(UInt16(format)) + bigEndian(UInt16(tracks)) + bigEndian(UInt16(division))
    }

    public static func tempo(_ microsecondsPerQuarter: Int) -> [UInt8] {
        [0xFF, 0x51, 0x03, UInt8(microsecondsPerQuarter >> 16 & 0xFF), UInt8(microsecondsPerQuarter >> 8 & 0xFF), UInt8(microsecondsPerQuarter & 0xFF)]
    }

    /// Format 1 at 480 ticks a quarter: track 1 holds the tempo map, 120 BPM then 60
    /// from tick 960; track 2 five short notes at ticks 0, 480, 960, 1440 and 1920 —
    /// 0, 0.5, 1, 2 and 3 seconds, frames 0, 24,000, 48,000, 96,000 and 144,000 at 48 kHz.
    public static let twoTrackSong: [UInt8] = {
        let tempoTrack = track([(0, tempo(500_000)), (960, tempo(1_000_000))])
        var notes: [(tick: Int, bytes: [UInt8])] = []
        for (index, tick) in [0, 480, 960, 1440, 1920].enumerated() {
            notes.append((tick, [0x90, UInt8(60 + index), 100]))
            notes.append((tick + 120, [0x80, UInt8(60 + index), 0]))
        }
        notes.sort { $0.tick < $1.tick }
        return header(format: 1, tracks: 2, division: 480) + tempoTrack + track(notes)
    }()

    /// Frames at 48 kHz where `twoTrackSong`'s notes start.
    public static let twoTrackOnsets = [0, 24_000, 48_000, 96_000, 144_000]

    static func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }
}

/// Where sounds start in a signal: the first non-zero frame after at least `quiet`
/// frames of exact silence (or at the very start).
public func soundOnsets(_ samples: [Float], quiet: Int = 1000) -> [Int] {
    var onsets: [Int] = []
    var silent = quiet
    for (index, sample) in samples.enumerated() {
        if sample == 0 {
            silent += 1
            continue
        }
        if silent >= quiet { onsets.append(index) }
        silent = 0
    }
    return onsets
}
