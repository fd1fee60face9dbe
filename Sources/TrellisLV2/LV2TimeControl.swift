import TrellisCore

/// A control input designated with a `time:` property (`lv2:designation
/// time:beatsPerMinute`): the host writes the transport's value to it before each run,
/// as jalv and Ardour do, so tempo-synced plugins that read control ports (guitarix's
/// delays, calf's Pulsator and VintageDelay) follow the transport.
enum LV2TimeControl: UInt8 {
    case frame, speed, bar, barBeat, beat, beatUnit, beatsPerBar, beatsPerMinute

    init?(designation: String?) {
        switch designation {
        case LV2URI.timeFrame: self = .frame
        case LV2URI.timeSpeed: self = .speed
        case LV2URI.timeBar: self = .bar
        case LV2URI.timeBarBeat: self = .barBeat
        case LV2URI.timeBeat: self = .beat
        case LV2URI.timeBeatUnit: self = .beatUnit
        case LV2URI.timeBeatsPerBar: self = .beatsPerBar
        case LV2URI.timeBeatsPerMinute: self = .beatsPerMinute
        default: return nil
        }
    }

    /// The transport's value, as the `time:Position` object carries it. Thread: audio.
    @inline(__always)
    func value(in time: TimeContext) -> Float {
        switch self {
        case .frame: Float(time.transportFrame)
        case .speed: time.isRolling ? 1 : 0
        case .bar: Float(time.bar)
        case .barBeat: Float(time.barBeat)
        case .beat: Float(time.beat)
        case .beatUnit: Float(time.beatUnit)
        case .beatsPerBar: Float(time.beatsPerBar)
        case .beatsPerMinute: Float(time.tempo)
        }
    }
}
