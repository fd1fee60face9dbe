import TrellisCore
import TrellisEngine

/// `transport`: the session's clock (Core Audio's CAClock), played, stopped, moved and
/// re-timed through the engine, which applies each change at a cycle's start.
extension ControlDispatcher {
    /// The frame rate SMPTE positions are read and shown at: the session's, or 25.
    var smpteRate: SMPTERate { target.session.loadedDocument.transport?.smpte ?? .fps25 }

    func clock(_ request: ClockRequest) throws(ControlError) -> ControlReply {
        let engine = graph.engine
        var clock = TransportClock()
        clock.time = engine.transportTime
        let command: TransportCommand
        switch request {
        case .show: return Self.clockReply(clock.time, smpte: smpteRate)
        case .play: command = .play
        case .stop: command = .stop
        case .locate(let position):
            guard let frame = position.frame(on: clock.time, smpte: smpteRate) else {
                throw ControlError(.badValue, "transport locate: \(position) is no position in \(Int(clock.time.beatsPerBar))/\(clock.time.beatUnit) at \(smpteRate) fps (a beat past the bar's last, or a skipped drop-frame label)")
            }
            command = .locate(frame: frame)
        case .tempo(let tempo): command = .tempo(tempo)
        case .meter(let beats, let unit): command = .meter(beatsPerBar: Double(beats), beatUnit: Int32(unit))
        }
        // Following JACK, play, stop and locate move JACK's transport, every client's; the
        // engine follows it at the next cycle.
        let movedJACK = target.liveBackend?.moveSharedTransport(command) ?? false
        if !movedJACK, !engine.changeTransport(command) {
            throw ControlError(.busy, "transport: 64 changes already wait for the audio thread; try again")
        }
        // The reply says where the change leaves the clock; the audio thread makes it so
        // at its next cycle.
        clock.apply(command)
        let reply = Self.clockReply(clock.time, smpte: smpteRate)
        if case .ok(let text, let value) = reply { broadcast(ControlEvent(kind: .transport, text: text, data: value)) }
        return reply
    }

    /// `rolling=true frame=96000 bars=2|1|0 seconds=2.000 smpte=00:00:02:00 tempo=120 meter=4/4`.
    static func clockReply(_ time: TimeContext, smpte: SMPTERate) -> ControlReply {
        let position = BarBeatTick(beats: time.beat, beatsPerBar: time.beatsPerBar)
        let seconds = Double(time.transportFrame) / time.sampleRate
        let timecode = SMPTETime(frame: time.transportFrame, sampleRate: time.sampleRate, rate: smpte)
        let tempo = time.tempo == time.tempo.rounded() ? String(Int(time.tempo)) : String(time.tempo)
        let meter = "\(Int(time.beatsPerBar))/\(time.beatUnit)"
        let text = "rolling=\(time.isRolling) frame=\(time.transportFrame) bars=\(position) seconds=\(String(format: "%.3f", seconds)) smpte=\(timecode) tempo=\(tempo) meter=\(meter)"
        return .ok(text: text, value: .object([
            ("rolling", .bool(time.isRolling)), ("frame", .number(Double(time.transportFrame))), ("bars", .string(position.description)),
            ("seconds", .number(seconds)), ("smpte", .string(timecode.description)), ("tempo", .number(time.tempo)), ("meter", .string(meter)),
        ]))
    }
}
