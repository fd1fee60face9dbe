import TrellisCore
import TrellisUnits

/// Mixes any number of inputs to one output, as AVFAudio's `AVAudioMixerNode`: on
/// Trellis' multichannel mixer, each input with its own volume and pan.
public final class AVAudioMixerNode: AVAudioNode, @unchecked Sendable {
    public init() { super.init(unit: MultichannelMixer(inputCount: 8)) }

    /// The gain of the mix, 0...1.
    public var outputVolume: Float {
        get { value("volume") }
        set { set("volume", newValue) }
    }

    /// The first input bus nothing feeds; the mixer grows by eight when all are fed.
    public var nextAvailableInputBus: AVAudioNodeBus {
        let fed = engine.map { Set($0.inputConnections(of: self).keys) } ?? []
        return (0...).first { !fed.contains($0) }!
    }

    /// Makes room for input `bus`. Thread: control, before the bus is connected.
    func ensureInput(_ bus: Int) throws(AudioUnitError) {
        guard bus >= unit.elementCount(.input) else { return }
        try unit.setProperty(.elementCount, .int((bus / 8 + 1) * 8), scope: .input, element: 0)
    }
}
