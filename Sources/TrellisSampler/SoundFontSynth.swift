import CFluidSynth
import TrellisCore

/// One libfluidsynth synthesizer with one SoundFont loaded: the owner of its settings and
/// synth, freed in one place (`deinit`). Made with no reverb or chorus (put Trellis' own
/// after it) and with fluidsynth's API lock off: only the owning kernel calls it.
/// Thread: made and freed on the control side; `synth` is the audio thread's while a
/// program runs the kernel.
final class SoundFontSynth: @unchecked Sendable {
    /// The voices allocated up front; the polyphony parameter uses up to this many.
    static let voiceCapacity = 256

    let settings: OpaquePointer
    let synth: OpaquePointer
    let fontID: Int32
    let sampleRate: Double

    /// Loads `path` for `sampleRate`. Thread: control (reads the file, allocates).
    init(path: String, sampleRate: Double, unit: String) throws(AudioUnitError) {
        guard trellis_fluidsynth_load() != 0 else {
            throw .failedToInitialize("SoundFonts need libfluidsynth (apt-get install libfluidsynth3): \(String(cString: trellis_fluidsynth_error()))", unit: unit)
        }
        _ = Self.quiet
        guard let settings = new_fluid_settings() else { throw .failedToInitialize("libfluidsynth could not make its settings", unit: unit) }
        fluid_settings_setnum(settings, "synth.sample-rate", sampleRate)
        fluid_settings_setint(settings, "synth.polyphony", Int32(Self.voiceCapacity))
        fluid_settings_setint(settings, "synth.reverb.active", 0)
        fluid_settings_setint(settings, "synth.chorus.active", 0)
        fluid_settings_setint(settings, "synth.threadsafe-api", 0)
        fluid_settings_setint(settings, "synth.dynamic-sample-loading", 0)
        fluid_settings_setnum(settings, "synth.gain", 1)
        guard let synth = new_fluid_synth(settings) else {
            delete_fluid_settings(settings)
            throw .failedToInitialize("libfluidsynth could not make a synthesizer", unit: unit)
        }
        let id = fluid_synth_sfload(synth, path, 1)
        guard id != FLUID_FAILED else {
            delete_fluid_synth(synth)
            delete_fluid_settings(settings)
            throw .failedToInitialize("the SoundFont \(path) could not be loaded (damaged, or not a SoundFont 2 file)", unit: unit)
        }
        self.settings = settings
        self.synth = synth
        fontID = id
        self.sampleRate = sampleRate
    }

    deinit {
        delete_fluid_synth(synth)
        delete_fluid_settings(settings)
    }

    /// Whether `path` starts like a SoundFont 2 file. Thread: control (reads the file's head).
    static func isSoundFont(_ path: String) -> Bool {
        _ = quiet
        return fluid_is_soundfont(path) != 0
    }

    /// libfluidsynth's own messages off: Trellis' errors name the file and say what failed.
    private static let quiet: Void = {
        for level in Int32(FLUID_PANIC.rawValue)...Int32(FLUID_DBG.rawValue) { fluid_set_log_function(level, nil, nil) }
    }()

    /// The presets the font holds, as (bank, program, name). Thread: control.
    var presets: [(bank: Int, program: Int, name: String)] {
        guard let font = fluid_synth_get_sfont_by_id(synth, fontID) else { return [] }
        var result: [(Int, Int, String)] = []
        fluid_sfont_iteration_start(font)
        while let preset = fluid_sfont_iteration_next(font) {
            let name = fluid_preset_get_name(preset).map { String(cString: $0) } ?? ""
            result.append((Int(fluid_preset_get_banknum(preset)), Int(fluid_preset_get_num(preset)), name))
        }
        return result
    }
}
