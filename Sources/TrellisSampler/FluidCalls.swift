import CFluidSynth

/// The libfluidsynth calls the sampler's kernel makes, fenced for the real-time checker,
/// which cannot see into C. With the API lock off and every voice allocated when the
/// synth is made, none of them locks or allocates (fluidsynth's own real-time path).
/// Thread: audio.
enum FluidCalls {
    @inline(__always)
    static func write(_ synth: OpaquePointer, _ frames: Int, _ left: UnsafeMutablePointer<Float>, _ right: UnsafeMutablePointer<Float>) {
        _ = _unsafePerformance { fluid_synth_write_float(synth, Int32(frames), left, 0, 1, right, 0, 1) }
    }

    /// One MIDI channel message.
    @inline(__always)
    static func send(_ synth: OpaquePointer, status: UInt8, data1: UInt8, data2: UInt8) {
        let channel = Int32(status & 0x0F), a = Int32(data1 & 0x7F), b = Int32(data2 & 0x7F)
        _ = _unsafePerformance { () -> Int32 in
            switch status & 0xF0 {
            case 0x80: return fluid_synth_noteoff(synth, channel, a)
            case 0x90: return b == 0 ? fluid_synth_noteoff(synth, channel, a) : fluid_synth_noteon(synth, channel, a, b)
            case 0xA0: return fluid_synth_key_pressure(synth, channel, a, b)
            case 0xB0: return fluid_synth_cc(synth, channel, a, b)
            case 0xC0: return fluid_synth_program_change(synth, channel, a)
            case 0xD0: return fluid_synth_channel_pressure(synth, channel, a)
            case 0xE0: return fluid_synth_pitch_bend(synth, channel, b << 7 | a)
            default: return 0
            }
        }
    }

    @inline(__always)
    static func setGain(_ synth: OpaquePointer, _ gain: Float) {
        _unsafePerformance { fluid_synth_set_gain(synth, gain) }
    }

    @inline(__always)
    static func setPolyphony(_ synth: OpaquePointer, _ voices: Int) {
        _ = _unsafePerformance { fluid_synth_set_polyphony(synth, Int32(voices)) }
    }

    /// Sets a SoundFont generator (tuning in cents, pan in tenths of a percent) on every channel.
    @inline(__always)
    static func setGenerator(_ synth: OpaquePointer, _ generator: Int32, _ value: Float) {
        for channel in Int32(0)..<16 { _ = _unsafePerformance { fluid_synth_set_gen(synth, channel, generator, value) } }
    }

    @inline(__always)
    static func programSelect(_ synth: OpaquePointer, font: Int32, bank: Int, program: Int) {
        _ = _unsafePerformance { fluid_synth_program_select(synth, 0, font, Int32(bank), Int32(program)) }
    }

    @inline(__always)
    static func soundsOff(_ synth: OpaquePointer) {
        _ = _unsafePerformance { fluid_synth_all_sounds_off(synth, -1) }
    }
}
