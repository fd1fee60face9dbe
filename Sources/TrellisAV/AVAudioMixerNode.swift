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
    public var nextAvailableInputBus: AVAudioNodeBus { firstUnfedInputBus }

    /// 3D settings kept for each input; volume and pan live in the unit.
    private var inputMixing: [AVAudioNodeBus: MixingSettings] = [:]
}

extension AVAudioMixerNode: MixingNode {
    func ensureInput(_ bus: Int) throws(AudioUnitError) { try growInputs(toInclude: bus) }

    func mixing(ofInput bus: AVAudioNodeBus) -> MixingSettings {
        var settings = inputMixing[bus] ?? MixingSettings()
        settings.volume = value("in\(bus).volume")
        settings.pan = value("in\(bus).pan")
        return settings
    }

    func setMixing(_ settings: MixingSettings, ofInput bus: AVAudioNodeBus) {
        inputMixing[bus] = settings
        set("in\(bus).volume", settings.volume)
        set("in\(bus).pan", settings.pan)
    }
}
