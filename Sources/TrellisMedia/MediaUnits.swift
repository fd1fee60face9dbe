import TrellisCore
import TrellisSampler
import TrellisTimePitch

/// The media units, for a registry: the file player (`player`, augn:afpl:trls) and
/// the recorder (`recorder`, auou:rcrd:trls; an output-type unit since it ends in a
/// file, though it also passes its input on), the MIDI file player, the sampler, and the
/// time-pitch and varispeed units (which hand their rate to the player feeding them).
public enum MediaUnits {
    public static let components: [Component] = [
        Component(description: FilePlayer.componentDescription, shortName: "player", displayName: "File Player") { FilePlayer() },
        Component(description: FileRecorder.componentDescription, shortName: "recorder", displayName: "File Recorder") { FileRecorder() },
        Component(description: MIDIFilePlayer.componentDescription, shortName: "midi-player", displayName: "MIDI File Player") { MIDIFilePlayer() },
        Component(description: Sampler.componentDescription, shortName: "sampler", displayName: "Sampler") { Sampler() },
        Component(description: TimePitch.componentDescription, shortName: "timepitch", displayName: "Time-Pitch") { TimePitch() },
        Component(description: Varispeed.componentDescription, shortName: "varispeed", displayName: "Varispeed") { Varispeed() },
    ]

    /// Thread: control.
    public static func register(into registry: ComponentRegistry) throws(RegistryError) {
        for component in components { try registry.register(component) }
    }
}
