import TrellisUnits

/// The engine's ends, as AVFAudio's `AVAudioIONode`.
public class AVAudioIONode: AVAudioNode, @unchecked Sendable {
    /// Seconds the backend adds between this end and the world (0 offline).
    public var presentationLatency: Double { 0 }
}

/// What the engine renders to: the graph's output, which a backend pulls (JACK's
/// playback ports, or `renderOffline`).
public final class AVAudioOutputNode: AVAudioIONode, @unchecked Sendable {
    init(channels: Int) { super.init(unit: GenericOutput(channelCount: channels)) }
}

/// What the engine takes in: the graph's input (JACK's capture ports).
public final class AVAudioInputNode: AVAudioIONode, @unchecked Sendable {
    /// What manual rendering reads the input from.
    var manualInput: ManualRenderingInput?

    init(channels: Int) { super.init(unit: GraphInput(channelCount: channels)) }
}
