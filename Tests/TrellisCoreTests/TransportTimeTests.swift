import Testing
import TrellisCore

@Suite("Transport time: frames, seconds, bars|beats|ticks and SMPTE")
struct TransportTimeTests {
    let common = TempoMeter(sampleRate: 48_000, tempo: 120, beatsPerBar: 4, beatUnit: 4)

    @Test("at 120 BPM in 4/4 a beat is 24,000 frames and a bar 96,000")
    func barsAt120() {
        #expect(common.barBeatTick(atFrame: 0) == BarBeatTick(bar: 1, beat: 1, tick: 0))
        #expect(common.barBeatTick(atFrame: 24_000) == BarBeatTick(bar: 1, beat: 2, tick: 0))
        #expect(common.barBeatTick(atFrame: 12_000) == BarBeatTick(bar: 1, beat: 1, tick: 960))
        #expect(common.barBeatTick(atFrame: 96_000) == BarBeatTick(bar: 2, beat: 1, tick: 0))
        #expect(common.barBeatTick(atFrame: 95_999) == BarBeatTick(bar: 1, beat: 4, tick: 1919))
        // 3|2|480 is 2 bars, 1 beat and a quarter beat: 9.25 beats.
        #expect(common.frame(at: BarBeatTick(bar: 3, beat: 2, tick: 480)) == 222_000)
    }

    @Test("at 90 BPM in 3/4 a beat is 32,000 frames; in 6/8 at 180, 16,000")
    func otherMeters() {
        let waltz = TempoMeter(sampleRate: 48_000, tempo: 90, beatsPerBar: 3, beatUnit: 4)
        #expect(waltz.barBeatTick(atFrame: 96_000) == BarBeatTick(bar: 2, beat: 1))
        #expect(waltz.barBeatTick(atFrame: 64_000) == BarBeatTick(bar: 1, beat: 3))
        let jig = TempoMeter(sampleRate: 48_000, tempo: 180, beatsPerBar: 6, beatUnit: 8)
        #expect(jig.frame(at: BarBeatTick(bar: 2, beat: 4)) == 16_000 * 9)
    }

    @Test("frames round-trip through bars|beats|ticks to within a tick")
    func barsRoundTrip() {
        var frame: Int64 = 1
        while frame < 50_000_000 {
            let back = common.frame(at: common.barBeatTick(atFrame: frame))
            #expect(back <= frame && frame - back < 13, "\(frame) -> \(common.barBeatTick(atFrame: frame)) -> \(back)")
            frame = frame * 3 + 7
        }
    }

    @Test("SMPTE at 24, 25 and 30 fps counts whole picture frames")
    func plainTimecode() {
        // 00:01:02:12 at 25 fps: 62 s and 12 frames = 1,562 picture frames of 1,920 audio frames.
        #expect(SMPTETime(hours: 0, minutes: 1, seconds: 2, frames: 12, rate: .fps25).frame(sampleRate: 48_000) == 2_999_040)
        #expect(SMPTETime(frame: 2_999_040, sampleRate: 48_000, rate: .fps25).description == "00:01:02:12")
        #expect(SMPTETime(frame: 2_999_039, sampleRate: 48_000, rate: .fps25).description == "00:01:02:11")
        #expect(SMPTETime(hours: 0, minutes: 0, seconds: 1, frames: 12, rate: .fps24).frame(sampleRate: 48_000) == 72_000)
        #expect(SMPTETime(hours: 1, minutes: 0, seconds: 0, frames: 0, rate: .fps30).frame(sampleRate: 48_000) == 172_800_000)
    }

    @Test("29.97 drop-frame skips :00 and :01 at each minute but every tenth")
    func dropFrame() {
        // A picture frame lasts 1001/30000 s: 1,601.6 audio frames at 48 kHz.
        let minuteOne = SMPTETime(hours: 0, minutes: 1, seconds: 0, frames: 2, rate: .fps2997Drop)
        #expect(minuteOne.pictureFrames == 1_800)
        #expect(minuteOne.frame(sampleRate: 48_000) == 2_882_880)
        #expect(SMPTETime(frame: 2_882_880, sampleRate: 48_000, rate: .fps2997Drop).description == "00:01:00;02")
        #expect(SMPTETime(frame: 2_882_879, sampleRate: 48_000, rate: .fps2997Drop).description == "00:00:59;29")
        #expect(SMPTETime(hours: 0, minutes: 10, seconds: 0, frames: 0, rate: .fps2997Drop).pictureFrames == 17_982)
        #expect(SMPTETime(hours: 0, minutes: 11, seconds: 0, frames: 2, rate: .fps2997Drop).pictureFrames == 19_782)
        #expect(SMPTETime(hours: 1, minutes: 0, seconds: 0, frames: 0, rate: .fps2997Drop).pictureFrames == 107_892)
        #expect(!SMPTETime(hours: 0, minutes: 1, seconds: 0, frames: 0, rate: .fps2997Drop).isValid)
        #expect(SMPTETime(hours: 0, minutes: 10, seconds: 0, frames: 0, rate: .fps2997Drop).isValid)
        // Every label of two hours round-trips.
        for picture in stride(from: Int64(0), to: 215_784, by: 7) {
            let frame = Int64((Double(picture) * 1_601.6).rounded(.up))
            let time = SMPTETime(frame: frame, sampleRate: 48_000, rate: .fps2997Drop)
            #expect(time.isValid && time.pictureFrames == picture, "\(picture) -> \(time)")
            if time.pictureFrames != picture { break }
        }
    }

    @Test("a position is read from each form a command may write")
    func parsing() {
        #expect(TransportTime("96000")?.frame(tempo: common, smpte: .fps25) == 96_000)
        #expect(TransportTime("2.5s")?.frame(tempo: common, smpte: .fps25) == 120_000)
        #expect(TransportTime("3|1")?.frame(tempo: common, smpte: .fps25) == 192_000)
        #expect(TransportTime("1|3|960")?.frame(tempo: common, smpte: .fps25) == 60_000)
        #expect(TransportTime("00:00:02:12")?.frame(tempo: common, smpte: .fps25) == 119_040)
        #expect(TransportTime("00:01:00;02")?.frame(tempo: common, smpte: .fps25) == 2_882_880)
        #expect(TransportTime("1|5")?.frame(tempo: common, smpte: .fps25) == nil)
        #expect(TransportTime("00:01:00;00")?.frame(tempo: common, smpte: .fps25) == nil)
        #expect(TransportTime("soon") == nil)
        #expect(TransportTime("-5") == nil)
        #expect(TransportTime("0|1") == nil)
    }
}

@Suite("Transport arithmetic at the edges")
struct TransportEdgeTests {
    @Test("a position past ten million seconds is not a position, in any form")
    func positionsAreBounded() {
        #expect(TransportTime("\(TimeContext.maximumFrame)") == .frames(TimeContext.maximumFrame))
        #expect(TransportTime("\(TimeContext.maximumFrame + 1)") == nil)
        #expect(TransportTime("9223372036854775807") == nil)
        #expect(TransportTime("10000001s") == nil)
        #expect(TransportTime("2001:00:00:00") == nil)
    }

    @Test("locating to the largest frame, changing tempo and locating by bars keeps every figure finite and in range")
    func locateTempoLocate() throws {
        var clock = TransportClock(sampleRate: 48_000)
        clock.locate(frame: .max)
        #expect(clock.time.transportFrame == TimeContext.maximumFrame)
        clock.setTempo(90)
        let frame = try #require(TransportTime("2|1|0")?.frame(on: clock.time, smpte: .fps25))
        clock.locate(frame: frame)
        // Bars count through the tempo change at the far end: beat 4 lies before it.
        #expect(clock.time.transportFrame == 0)
        #expect(clock.time.beat.isFinite && clock.time.barBeat.isFinite)
    }

    @Test("extreme tempos and positions clamp where a frame number is made: none traps")
    func extremesClamp() {
        for tempo in [1e-300, 1e-9, 1e300] {
            var time = TimeContext(sampleRate: 48_000, transportFrame: TimeContext.maximumFrame)
            time.tempo = tempo
            time.updateMusicalPosition()
            #expect(abs(time.frame(atBeats: 1e300)) <= TimeContext.maximumFrame)
            #expect(abs(time.frame(atBeats: -1e300)) <= TimeContext.maximumFrame)
            #expect(time.frame(atBeats: .nan) == 0 || abs(time.frame(atBeats: .nan)) <= TimeContext.maximumFrame)
            _ = BarBeatTick(beats: time.beat, beatsPerBar: 1e-9)
            _ = SMPTETime(frame: TimeContext.maximumFrame, sampleRate: 1, rate: .fps2997Drop)
        }
        #expect(TempoMeter(sampleRate: 48_000, tempo: 1e-300).frame(atBeats: 1e10) == TimeContext.maximumFrame)
    }

    @Test("a timebase master's nonsense (NaN, infinite or huge bars and beats) is not taken")
    func foreignTransportIsChecked() {
        var clock = TransportClock(sampleRate: 48_000)
        for (beat, tempo, beatsPerBar) in [(Double.nan, 120.0, 4.0), (1e300, 120, 4), (4, .infinity, 4), (4, 120, 1e30), (4, 120, 0.001)] {
            clock.follow(ExternalTransport(isRolling: true, frame: .max, hasBars: true, beat: beat, tempo: tempo, beatsPerBar: beatsPerBar, beatUnit: 4))
            #expect(clock.time.tempo == 120 && clock.time.beatsPerBar == 4)
            #expect(clock.time.transportFrame == TimeContext.maximumFrame)
            #expect(clock.time.beat.isFinite)
        }
    }
}
