/// A unit with state beyond its parameters that a session saves as text and restores:
/// an LV2 plugin's state (as lilv writes it), a sampler's loaded file. The text is
/// opaque to the host; `restoreState` accepts whatever `stateText` produced.
public protocol StatefulUnit: AudioUnit {
    /// The unit's state now. Thread: control.
    func stateText() throws(AudioUnitError) -> String
    /// Replaces the unit's state; may apply at the next `initialize`. Thread: control.
    func restore(stateText text: String) throws(AudioUnitError)
}
