/// Positions of the transport in the forms people write them, and the conversions
/// between them, as Core Audio's clock offers: frames (samples), seconds, bars|beats|ticks
/// and SMPTE timecode. A tempo and meter hold from transport zero. Thread: any.

/// A tempo and meter at a sample rate: what turns frames into beats and back.
public struct TempoMeter: Sendable, Equatable {
    public var sampleRate: Double
    /// Beats per minute, a beat being a `beatUnit` note.
    public var tempo: Double
    public var beatsPerBar: Double
    public var beatUnit: Int

    public init(sampleRate: Double, tempo: Double = 120, beatsPerBar: Double = 4, beatUnit: Int = 4) {
        self.sampleRate = sampleRate
        self.tempo = tempo
        self.beatsPerBar = beatsPerBar
        self.beatUnit = beatUnit
    }

    /// Frames a beat lasts.
    public var framesPerBeat: Double { 60 * sampleRate / tempo }

    /// Beats from transport zero at `frame`.
    public func beats(atFrame frame: Int64) -> Double { Double(frame) / framesPerBeat }

    /// The frame `beats` beats from transport zero, to the nearest frame.
    public func frame(atBeats beats: Double) -> Int64 { TimeContext.frame(clamping: (beats * framesPerBeat).rounded()) }

    /// `frame` as bars|beats|ticks.
    public func barBeatTick(atFrame frame: Int64) -> BarBeatTick {
        BarBeatTick(beats: beats(atFrame: frame), beatsPerBar: beatsPerBar)
    }

    public func frame(at position: BarBeatTick) -> Int64 { frame(atBeats: position.beats(beatsPerBar: beatsPerBar)) }
}

/// A musical position, counted as musicians count: bar 1, beat 1 is transport zero; a
/// beat has `ticksPerBeat` ticks (1920, as JACK's timebase masters commonly use).
public struct BarBeatTick: Sendable, Equatable, CustomStringConvertible {
    public static let ticksPerBeat = 1920

    public var bar: Int
    public var beat: Int
    public var tick: Int

    public init(bar: Int, beat: Int, tick: Int = 0) {
        self.bar = bar
        self.beat = beat
        self.tick = tick
    }

    /// The position `beats` beats from zero; ticks are rounded down, so a position
    /// always lies at or before the beats given (a tiny error up is not a beat late).
    public init(beats: Double, beatsPerBar: Double) {
        // Bounded so that no position or meter, however odd, can trap.
        let totalTicks = TimeContext.whole(clamping: (beats * Double(Self.ticksPerBeat) + 1e-6).rounded(.down), to: 1e15)
        let ticksPerBar = max(1, TimeContext.whole(clamping: (beatsPerBar * Double(Self.ticksPerBeat)).rounded(), to: 1e9))
        let bars = totalTicks >= 0 ? totalTicks / ticksPerBar : (totalTicks - ticksPerBar + 1) / ticksPerBar
        let inBar = totalTicks - bars * ticksPerBar
        bar = Int(bars) + 1
        beat = Int(inBar / Int64(Self.ticksPerBeat)) + 1
        tick = Int(inBar % Int64(Self.ticksPerBeat))
    }

    /// Beats from transport zero.
    public func beats(beatsPerBar: Double) -> Double {
        Double(bar - 1) * beatsPerBar + Double(beat - 1) + Double(tick) / Double(Self.ticksPerBeat)
    }

    /// `3|2|960`.
    public var description: String { "\(bar)|\(beat)|\(tick)" }
}

/// A timecode frame rate. 29.97 drop-frame counts 30 labels a second but skips the
/// labels :00 and :01 at the start of every minute not divisible by ten, so its clock
/// keeps up with 30000/1001 frames a second.
public enum SMPTERate: String, Sendable, CaseIterable, CustomStringConvertible {
    case fps24 = "24"
    case fps25 = "25"
    case fps2997Drop = "29.97df"
    case fps30 = "30"

    /// Frames a second of the picture.
    public var framesPerSecond: Double {
        switch self {
        case .fps24: 24
        case .fps25: 25
        case .fps2997Drop: 30000.0 / 1001.0
        case .fps30: 30
        }
    }

    /// Labels a second: 30 for drop-frame.
    public var nominal: Int {
        switch self {
        case .fps24: 24
        case .fps25: 25
        case .fps2997Drop, .fps30: 30
        }
    }

    public var description: String { rawValue }
}

/// `hh:mm:ss:ff` (drop-frame written `hh:mm:ss;ff`).
public struct SMPTETime: Sendable, Equatable, CustomStringConvertible {
    public var hours: Int
    public var minutes: Int
    public var seconds: Int
    public var frames: Int
    public var rate: SMPTERate

    public init(hours: Int, minutes: Int, seconds: Int, frames: Int, rate: SMPTERate) {
        self.hours = hours
        self.minutes = minutes
        self.seconds = seconds
        self.frames = frames
        self.rate = rate
    }

    /// The timecode of the picture frame that holds audio frame `frame`.
    public init(frame: Int64, sampleRate: Double, rate: SMPTERate) {
        var count = TimeContext.whole(clamping: (Double(frame) * rate.framesPerSecond / sampleRate + 1e-9).rounded(.down), to: 1e15)
        if rate == .fps2997Drop {
            // 17,982 frames in ten minutes; 1,798 in each minute after the first of them.
            let tens = count / 17_982, rest = count % 17_982
            count += 18 * tens + (rest < 2 ? 0 : 2 * ((rest - 2) / 1_798))
        }
        let nominal = Int64(rate.nominal)
        frames = Int(count % nominal)
        seconds = Int(count / nominal % 60)
        minutes = Int(count / (nominal * 60) % 60)
        hours = Int(count / (nominal * 3600))
        self.rate = rate
    }

    /// Picture frames from zero to this timecode.
    public var pictureFrames: Int64 {
        let nominal = Int64(rate.nominal)
        var count = ((Int64(hours) * 60 + Int64(minutes)) * 60 + Int64(seconds)) * nominal + Int64(frames)
        if rate == .fps2997Drop {
            let totalMinutes = Int64(hours) * 60 + Int64(minutes)
            count -= 2 * (totalMinutes - totalMinutes / 10)
        }
        return count
    }

    /// The first audio frame of this timecode's picture frame.
    public func frame(sampleRate: Double) -> Int64 {
        TimeContext.frame(clamping: (Double(pictureFrames) * sampleRate / rate.framesPerSecond - 1e-9).rounded(.up))
    }

    /// Whether the label exists: drop-frame has no :00 and :01 at most minutes' start.
    public var isValid: Bool {
        guard hours >= 0, (0..<60).contains(minutes), (0..<60).contains(seconds), (0..<rate.nominal).contains(frames) else { return false }
        return !(rate == .fps2997Drop && seconds == 0 && frames < 2 && minutes % 10 != 0)
    }

    public var description: String {
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(two(hours)):\(two(minutes)):\(two(seconds))\(rate == .fps2997Drop ? ";" : ":")\(two(frames))"
    }
}

/// A transport position as written in a command or a session: frames (`96000`),
/// seconds (`2.5s`), bars|beats|ticks (`3|1|0`, `3|1`) or SMPTE (`00:00:02:12`,
/// `00:01:00;02` for drop-frame).
public enum TransportTime: Sendable, Equatable, CustomStringConvertible {
    case frames(Int64)
    case seconds(Double)
    case bars(BarBeatTick)
    case smpte(hours: Int, minutes: Int, seconds: Int, frames: Int, dropFrame: Bool)

    /// Reads the text; nil when it is none of the forms, or lies past ten million seconds
    /// (frames past `TimeContext.maximumFrame`, timecode fields past 2,000).
    public init?(_ text: String) {
        if text.hasSuffix("s"), let seconds = Double(text.dropLast()), seconds.isFinite, seconds >= 0, seconds <= 1e7 {
            self = .seconds(seconds)
        } else if let frames = Int64(text), frames >= 0 {
            guard frames <= TimeContext.maximumFrame else { return nil }
            self = .frames(frames)
        } else if text.contains("|") {
            let parts = text.split(separator: "|", omittingEmptySubsequences: false).map { Int($0) }
            guard (2...3).contains(parts.count), parts.allSatisfy({ $0 != nil }) else { return nil }
            let bar = parts[0]!, beat = parts[1]!, tick = parts.count == 3 ? parts[2]! : 0
            guard (1...1_000_000).contains(bar), (1...64).contains(beat), (0..<BarBeatTick.ticksPerBeat).contains(tick) else { return nil }
            self = .bars(BarBeatTick(bar: bar, beat: beat, tick: tick))
        } else {
            let drop = text.contains(";")
            let parts = text.split(whereSeparator: { $0 == ":" || $0 == ";" }).map { Int($0) }
            guard parts.count == 4, parts.allSatisfy({ $0 != nil && $0! >= 0 && $0! <= 2_000 }), text.filter({ $0 == ";" }).count <= 1 else { return nil }
            self = .smpte(hours: parts[0]!, minutes: parts[1]!, seconds: parts[2]!, frames: parts[3]!, dropFrame: drop)
        }
    }

    /// The frame this position names, under `tempo` and at `smpte` (a timecode written
    /// with `;` is 29.97 drop-frame whatever `smpte` says); nil for a timecode label
    /// the rate does not have.
    public func frame(tempo: TempoMeter, smpte: SMPTERate) -> Int64? {
        switch self {
        case .frames(let frames): return frames
        case .seconds(let seconds): return TimeContext.frame(clamping: (seconds * tempo.sampleRate).rounded())
        case .bars(let position):
            guard Double(position.beat) <= tempo.beatsPerBar.rounded(.up) else { return nil }
            return tempo.frame(at: position)
        case .smpte(let hours, let minutes, let seconds, let frames, let dropFrame):
            let time = SMPTETime(hours: hours, minutes: minutes, seconds: seconds, frames: frames, rate: dropFrame ? .fps2997Drop : smpte)
            return time.isValid ? time.frame(sampleRate: tempo.sampleRate) : nil
        }
    }

    /// The frame this position names on a running transport: bars and beats count
    /// through its tempo changes (see `TimeContext.anchorBeat`).
    public func frame(on time: TimeContext, smpte: SMPTERate) -> Int64? {
        guard case .bars(let position) = self else { return frame(tempo: time.tempoMeter, smpte: smpte) }
        guard Double(position.beat) <= time.beatsPerBar.rounded(.up) else { return nil }
        return max(0, time.frame(atBeats: position.beats(beatsPerBar: time.beatsPerBar)))
    }

    public var description: String {
        switch self {
        case .frames(let frames): "\(frames)"
        case .seconds(let seconds): "\(seconds)s"
        case .bars(let position): position.description
        case .smpte(let hours, let minutes, let seconds, let frames, let drop):
            SMPTETime(hours: hours, minutes: minutes, seconds: seconds, frames: frames, rate: drop ? .fps2997Drop : .fps30).description
        }
    }
}
