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

    /// Derives beat, bar and bar beat from the transport frame, tempo and meter, with a
    /// constant tempo since transport zero. Thread: any.
    @inlinable @inline(__always)
    public mutating func updateMusicalPosition() {
        beat = Double(transportFrame) * tempo / (60 * sampleRate)
        let quotient = beat / beatsPerBar
        var bars = Double(Int64(quotient))
        if bars > quotient { bars -= 1 }
        bar = Int64(bars)
        barBeat = beat - bars * beatsPerBar
    }
}

/// The internal transport clock: rolling or stopped, a position, a tempo and a meter.
/// It starts stopped at 120 BPM in 4/4 unless a session says otherwise. The engine owns
/// one and advances it once per cycle. Thread: audio (advance), control before rendering.
public struct TransportClock: BitwiseCopyable, Sendable {
    public var time: TimeContext

    public init(sampleRate: Double = 48_000, tempo: Double = 120, beatsPerBar: Double = 4, beatUnit: Int32 = 4, isRolling: Bool = false) {
        time = TimeContext(sampleRate: sampleRate, isRolling: isRolling, tempo: tempo, beatsPerBar: beatsPerBar, beatUnit: beatUnit)
    }

    /// The context for the cycle that starts now, then moves the transport on by
    /// `frames` when it rolls. Thread: audio.
    @inlinable @inline(__always)
    public mutating func cycle(frames: Int) -> TimeContext {
        let now = time
        if time.isRolling {
            time.transportFrame &+= Int64(frames)
            time.updateMusicalPosition()
        }
        return now
    }

    public mutating func setRolling(_ rolling: Bool) { time.isRolling = rolling }

    public mutating func locate(frame: Int64) {
        time.transportFrame = frame
        time.updateMusicalPosition()
    }

    public mutating func setTempo(_ tempo: Double) {
        time.tempo = tempo
        time.updateMusicalPosition()
    }

    public mutating func setMeter(beatsPerBar: Double, beatUnit: Int32) {
        time.beatsPerBar = beatsPerBar
        time.beatUnit = beatUnit
        time.updateMusicalPosition()
    }

    public mutating func setSampleRate(_ rate: Double) {
        time.sampleRate = rate
        time.updateMusicalPosition()
    }
}
