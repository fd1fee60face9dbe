import CRubberBand
import CTrellisRubberBand
import TrellisCore

/// What a stretch does: time (output duration over input duration), pitch (a frequency
/// factor) and whether formants stay where they are.
public struct StretchSettings: Sendable, Equatable {
    public var timeRatio: Double
    public var pitchScale: Double
    public var preservesFormants: Bool

    public init(timeRatio: Double = 1, pitchScale: Double = 1, preservesFormants: Bool = false) {
        self.timeRatio = timeRatio
        self.pitchScale = pitchScale
        self.preservesFormants = preservesFormants
    }

    /// A rate (input time per output time, AVAudioPlayer's and AUNewTimePitch's `rate`)
    /// and a pitch shift in cents.
    public init(rate: Double, cents: Double, preservesFormants: Bool = false) {
        self.init(timeRatio: 1 / rate, pitchScale: _exp2(cents / 1200), preservesFormants: preservesFormants)
    }

    public var isIdentity: Bool { timeRatio == 1 && pitchScale == 1 }
}

/// One Rubber Band stretcher (librubberband 3, the R3 "finer" engine), the owner of its
/// state, freed in `deinit`. Offline, it studies the whole input first and then gives
/// exactly `input × timeRatio` frames, as the `rubberband` command does; in real time it
/// streams, starts `startDelay` frames late (after `startPad` frames of silence fed
/// first, which `prime` does) and may take new settings as it goes.
/// Thread: one at a time; never the audio thread, except `process`/`retrieve` on a
/// real-time stretcher made with `setMaximumBlock` (Rubber Band allocates nothing there).
public final class TimeStretcher: @unchecked Sendable {
    public let channels: Int
    public let realTime: Bool
    public private(set) var settings: StretchSettings
    let state: RubberBandState

    public init(sampleRate: Double, channels: Int, realTime: Bool, settings: StretchSettings, maximumBlock: Int = 4096) {
        self.channels = channels
        self.realTime = realTime
        self.settings = settings
        var options = Int32(RubberBandOptionEngineFiner.rawValue) | Int32(RubberBandOptionThreadingNever.rawValue)
        if realTime { options |= Int32(RubberBandOptionProcessRealTime.rawValue) | Int32(RubberBandOptionPitchHighConsistency.rawValue) }
        if settings.preservesFormants { options |= Int32(RubberBandOptionFormantPreserved.rawValue) }
        rubberband_set_default_debug_level(0)
        state = trellis_rubberband_new_quiet(UInt32(sampleRate), UInt32(channels), options, settings.timeRatio, settings.pitchScale)
        rubberband_set_max_process_size(state, UInt32(maximumBlock))
    }

    deinit { rubberband_delete(state) }

    /// New settings: at once in real time; offline, only before the first study.
    public func update(_ new: StretchSettings) {
        if new.timeRatio != settings.timeRatio { rubberband_set_time_ratio(state, new.timeRatio) }
        if new.pitchScale != settings.pitchScale { rubberband_set_pitch_scale(state, new.pitchScale) }
        if new.preservesFormants != settings.preservesFormants {
            rubberband_set_formant_option(state, Int32(new.preservesFormants ? RubberBandOptionFormantPreserved.rawValue : RubberBandOptionFormantShifted.rawValue))
        }
        settings = new
    }

    /// Frames of silence a real-time stretcher wants first, and how many output frames
    /// to drop after them so output lines up with input.
    public var startPad: Int { Int(rubberband_get_preferred_start_pad(state)) }
    public var startDelay: Int { Int(rubberband_get_start_delay(state)) }

    public func reset() { rubberband_reset(state) }

    /// Offline: the input's length, before studying.
    public func expect(frames: Int) { rubberband_set_expected_input_duration(state, UInt32(frames)) }

    /// Offline: one block of the whole input, in order; `final` on the last.
    public func study(_ input: UnsafePointer<UnsafePointer<Float>?>, frames: Int, final: Bool) {
        rubberband_study(state, input, UInt32(frames), final ? 1 : 0)
    }

    /// Frames the stretcher needs before it can give more.
    public var framesRequired: Int { Int(rubberband_get_samples_required(state)) }

    @inline(__always)
    public func process(_ input: UnsafePointer<UnsafePointer<Float>?>, frames: Int, final: Bool) {
        rubberband_process(state, input, UInt32(frames), final ? 1 : 0)
    }

    /// Frames ready to retrieve; −1 once everything has been retrieved after the final block.
    @inline(__always)
    public var available: Int { Int(rubberband_available(state)) }

    @inline(__always)
    public func retrieve(_ output: UnsafePointer<UnsafeMutablePointer<Float>?>, frames: Int) -> Int {
        Int(rubberband_retrieve(state, output, UInt32(frames)))
    }

    /// Frames of latency in real time (what a graph compensates).
    public var latency: Int { Int(rubberband_get_latency(state)) }
}

extension TimeStretcher {
    /// A whole signal stretched offline, as the `rubberband` command does it: studied,
    /// then processed, exactly `frames × timeRatio` frames out (rounded).
    /// Thread: control (allocates).
    public static func stretch(_ signal: [[Float]], sampleRate: Double, settings: StretchSettings, block: Int = 1024) -> [[Float]] {
        let channels = signal.count, frames = signal.first?.count ?? 0
        guard channels > 0, frames > 0 else { return signal }
        let stretcher = TimeStretcher(sampleRate: sampleRate, channels: channels, realTime: false, settings: settings, maximumBlock: block)
        stretcher.expect(frames: frames)
        let memory = Arena()
        defer { withExtendedLifetime(memory) {} }
        let inputs = signal.map { _ in memory.take(frames, of: Float.self) }
        for (channel, samples) in signal.enumerated() { inputs[channel].initialize(from: samples, count: frames) }
        var output = Array(repeating: [Float](), count: channels)
        let scratch = (0..<channels).map { _ in memory.take(block, of: Float.self) }
        func pointers(at offset: Int) -> [UnsafePointer<Float>?] { inputs.map { UnsafePointer<Float>($0 + offset) } }
        var offset = 0
        while offset < frames {
            let count = min(block, frames - offset)
            stretcher.study(pointers(at: offset), frames: count, final: offset + count == frames)
            offset += count
        }
        func drain() {
            while true {
                let ready = stretcher.available
                guard ready > 0 else { return }
                let got = stretcher.retrieve(scratch.map { Optional<UnsafeMutablePointer<Float>>($0) }, frames: min(ready, block))
                for channel in 0..<channels { output[channel] += UnsafeBufferPointer(start: scratch[channel], count: got) }
            }
        }
        offset = 0
        while offset < frames {
            let count = min(block, frames - offset)
            stretcher.process(pointers(at: offset), frames: count, final: offset + count == frames)
            offset += count
            drain()
        }
        while stretcher.available >= 0 { drain(); if stretcher.available == 0 { break } }
        return output
    }
}
