/// The host's time for one cycle, as AUv3's musical context and transport state give
/// it: where the cycle is on the sample clock and on the transport, and the musical
/// position there. Plain data; the engine fills it before the program runs.
public struct TimeContext: BitwiseCopyable, Sendable, Equatable {
    public var sampleRate: Double
    /// Whether the transport moves.
    public var isRolling: Bool
    /// The transport position of the cycle's first frame, in frames.
    public var transportFrame: Int64
    /// Beats per minute.
    public var tempo: Double
    /// Beats in a bar (the meter's numerator).
    public var beatsPerBar: Double
    /// The note value of a beat (the meter's denominator).
    public var beatUnit: Int32
    /// Beats from transport zero to the cycle's first frame.
    public var beat: Double
    /// The bar the first frame is in, counted from 0.
    public var bar: Int64
    /// Beats from the start of that bar.
    public var barBeat: Double
    /// Where the tempo last changed: the frame and its beat. The tempo holds from
    /// there, so a change of tempo never moves the beat the transport is on.
    public var anchorFrame: Int64 = 0
    public var anchorBeat: Double = 0
    /// The transport started, stopped, moved, or changed tempo or meter at this
    /// cycle's first frame: units that follow it (an LV2 plugin's `time:Position`) are
    /// told anew.
    public var changed = false

    @inlinable
    public init(
        sampleRate: Double = 48_000, isRolling: Bool = false, transportFrame: Int64 = 0,
        tempo: Double = 120, beatsPerBar: Double = 4, beatUnit: Int32 = 4
    ) {
        self.sampleRate = sampleRate
        self.isRolling = isRolling
        self.transportFrame = transportFrame
        self.tempo = tempo
        self.beatsPerBar = beatsPerBar
        self.beatUnit = beatUnit
        beat = 0
        bar = 0
        barBeat = 0
        updateMusicalPosition()
    }

    /// The farthest transport position taken, 2^43 frames: more than ten million seconds
    /// (115 days) at 768 kHz. Positions are checked against it where they enter, and
    /// the clock's arithmetic stays inside it, so no value can make it trap.
    @inlinable
    public static var maximumFrame: Int64 { 1 << 43 }

    /// `frames` as a frame number no farther than `maximumFrame` either way (NaN is 0).
    @inlinable
    public static func frame(clamping frames: Double) -> Int64 {
        let limit = Double(maximumFrame)
        guard frames == frames else { return 0 }
        return Int64(min(max(frames, -limit), limit))
    }

    /// `value` as a whole number no larger in magnitude than `limit` (NaN is 0).
    @inlinable
    public static func whole(clamping value: Double, to limit: Double = 9.0e15) -> Int64 {
        guard value == value else { return 0 }
        return Int64(min(max(value, -limit), limit))
    }

    /// Frames a beat lasts at the tempo now.
    @inlinable
    public var framesPerBeat: Double { 60 * sampleRate / tempo }

    /// Derives beat, bar and bar beat from the transport frame, the tempo since its
    /// anchor, and the meter. Thread: any.
    @inlinable @inline(__always)
    public mutating func updateMusicalPosition() {
        beat = beats(atFrame: transportFrame)
        let quotient = beat / beatsPerBar
        var bars = Double(Self.whole(clamping: quotient))
        if bars > quotient { bars -= 1 }
        bar = Self.whole(clamping: bars)
        barBeat = beat - bars * beatsPerBar
    }

    /// Beats from transport zero at `frame`.
    @inlinable
    public func beats(atFrame frame: Int64) -> Double {
        anchorBeat + Double(frame &- anchorFrame) / framesPerBeat
    }

    /// The frame at `beats` beats from transport zero, to the nearest frame.
    public func frame(atBeats beats: Double) -> Int64 {
        Self.frame(clamping: Double(anchorFrame) + ((beats - anchorBeat) * framesPerBeat).rounded())
    }

    /// The tempo and meter now, as if they had held from transport zero.
    public var tempoMeter: TempoMeter {
        TempoMeter(sampleRate: sampleRate, tempo: tempo, beatsPerBar: beatsPerBar, beatUnit: Int(beatUnit))
    }
}

/// A change to the transport from the control side, applied at a cycle's start.
public enum TransportCommand: BitwiseCopyable, Sendable, Equatable {
    case play
    case stop
    case locate(frame: Int64)
    case tempo(Double)
    case meter(beatsPerBar: Double, beatUnit: Int32)
    /// The graph runs at another rate: the beat stays where it is.
    case sampleRate(Double)
}

/// The internal transport clock: rolling or stopped, a position, a tempo and a meter.
/// It starts stopped at 120 BPM in 4/4 unless a session says otherwise. The engine owns
/// one and advances it once per cycle. Thread: audio (advance), control before rendering.
public struct TransportClock: BitwiseCopyable, Sendable {
    public var time: TimeContext

    public init(sampleRate: Double = 48_000, tempo: Double = 120, beatsPerBar: Double = 4, beatUnit: Int32 = 4, isRolling: Bool = false) {
        time = TimeContext(sampleRate: sampleRate, isRolling: isRolling, tempo: tempo, beatsPerBar: beatsPerBar, beatUnit: beatUnit)
        time.changed = true
    }

    /// The context for the cycle that starts now, then moves the transport on by
    /// `frames` when it rolls. Thread: audio.
    @inlinable @inline(__always)
    public mutating func cycle(frames: Int) -> TimeContext {
        let now = time
        time.changed = false
        if time.isRolling {
            time.transportFrame &+= Int64(frames)
            time.updateMusicalPosition()
        }
        return now
    }

    /// Applies a change; the next cycle's context says it changed. Thread: audio, or
    /// control while no backend renders.
    @inlinable
    public mutating func apply(_ command: TransportCommand) {
        switch command {
        case .play: time.isRolling = true
        case .stop: time.isRolling = false
        case .locate(let frame): time.transportFrame = min(max(0, frame), TimeContext.maximumFrame)
        case .tempo(let tempo):
            guard tempo.isFinite, tempo > 0 else { return }
            time.anchorBeat = time.beat
            time.anchorFrame = time.transportFrame
            time.tempo = tempo
        case .meter(let beatsPerBar, let beatUnit):
            guard beatsPerBar.isFinite, beatsPerBar > 0, beatUnit > 0 else { return }
            time.beatsPerBar = beatsPerBar
            time.beatUnit = beatUnit
        case .sampleRate(let rate):
            setSampleRate(rate)
            return
        }
        time.updateMusicalPosition()
        time.changed = true
    }

    /// Takes the server's transport for the cycle that starts now: its state and frame,
    /// and its bars and beats when a timebase master gives them. The cycle's context says
    /// it changed when it did not just move on as this clock would have. Thread: audio.
    @inlinable
    public mutating func follow(_ external: ExternalTransport) {
        var next = time
        next.isRolling = external.isRolling
        next.transportFrame = min(max(0, external.frame), TimeContext.maximumFrame)
        // Another client's bars and beats are taken only when they make sense.
        if external.hasBars, (1...999).contains(external.tempo), (1...64).contains(external.beatsPerBar), (1...64).contains(external.beatUnit),
           external.beat.isFinite, abs(external.beat) < 1e12 {
            next.tempo = external.tempo
            next.beatsPerBar = external.beatsPerBar
            next.beatUnit = external.beatUnit
            next.anchorFrame = next.transportFrame
            next.anchorBeat = external.beat
        }
        next.updateMusicalPosition()
        let moved = next.transportFrame != time.transportFrame || next.isRolling != time.isRolling || next.tempo != time.tempo
            || next.beatsPerBar != time.beatsPerBar || next.beatUnit != time.beatUnit
        next.changed = time.changed || moved
        time = next
    }

    public mutating func setRolling(_ rolling: Bool) { apply(rolling ? .play : .stop) }

    public mutating func locate(frame: Int64) { apply(.locate(frame: frame)) }

    public mutating func setTempo(_ tempo: Double) { apply(.tempo(tempo)) }

    public mutating func setMeter(beatsPerBar: Double, beatUnit: Int32) { apply(.meter(beatsPerBar: beatsPerBar, beatUnit: beatUnit)) }

    @inlinable
    public mutating func setSampleRate(_ rate: Double) {
        guard rate > 0, rate != time.sampleRate else { return }
        // The beat the transport is on stays; frames are of the new rate from here.
        time.anchorBeat = time.beat
        time.anchorFrame = time.transportFrame
        time.sampleRate = rate
        time.updateMusicalPosition()
        time.changed = true
    }
}
