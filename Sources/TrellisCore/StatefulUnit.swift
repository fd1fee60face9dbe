/// A unit with state beyond its parameters that a session saves as text and restores:
/// an LV2 plugin's state (as lilv writes it), a sampler's loaded file. The text is
/// opaque to the host; `restoreState` accepts whatever `stateText` produced.
public protocol StatefulUnit: AudioUnit {
    /// The unit's state now. Thread: control.
    func stateText() throws(AudioUnitError) -> String
    /// Replaces the unit's state; may apply at the next `initialize`. Thread: control.
    func restore(stateText text: String) throws(AudioUnitError)
}

/// A unit whose format has its own place for user presets (an LV2 plugin's is a
/// preset bundle in `~/.lv2`, which every LV2 host reads). Saved presets join the
/// unit's `FactoryPresets` at once, so `PresentPreset` applies them.
public protocol UserPresetUnit: AudioUnit {
    /// Saves the unit's state now as a preset named `label`, replacing a user preset
    /// of that name; returns the file written. Thread: control.
    func saveUserPreset(label: String) throws(AudioUnitError) -> String
}
