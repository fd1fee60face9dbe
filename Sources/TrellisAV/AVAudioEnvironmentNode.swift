import Foundation
import TrellisCore
import TrellisUnits

/// Places mono sources around a listener, as AVFAudio's `AVAudioEnvironmentNode`: on
/// Trellis' 3D mixer, with equal-power panning over the speakers of the output format
/// (stereo, quad or 5.1).
///
/// What each source's `AVAudio3DMixing` setting does here:
/// - `position`: with the listener's position and orientation, sets the input's
///   azimuth, elevation and distance; the distance fades it by
///   `distanceAttenuationParameters`.
/// - `renderingAlgorithm`: `.stereoPassThrough` plays the source at the centre with no
///   fading by distance; every other algorithm is equal-power panning (no HRTF here).
/// - `obstruction` and `occlusion` (dB, −100 ... 0): plain attenuation of the source,
///   without Apple's low-pass filtering.
/// - `volume` scales the source; `pan`, `rate`, `reverbBlend`, `sourceMode` and
///   `pointSourceInHeadMode` are kept but change nothing.
/// A stereo input is not placed: it passes through at its volume, as Apple's does.
/// `reverbParameters` are kept but not rendered: put an `AVAudioUnitReverb` after the node.
public final class AVAudioEnvironmentNode: AVAudioNode, @unchecked Sendable {
    private var listener = ListenerFrame()
    private var inputMixing: [AVAudioNodeBus: MixingSettings] = [:]
    private var storedOutputVolume: Float = 1

    /// How sources fade with distance; changing a field moves every source.
    public private(set) lazy var distanceAttenuationParameters = AVAudioEnvironmentDistanceAttenuationParameters(node: self)
    /// Kept, not rendered.
    public let reverbParameters = AVAudioEnvironmentReverbParameters()
    /// Kept: the output's speakers are its format's channels.
    public var outputType = AVAudioEnvironmentOutputType.auto

    public init() {
        super.init(unit: Mixer3D(inputCount: 8))
        applyAttenuation()
    }

    /// The gain of every source, 0...1.
    public var outputVolume: Float {
        get { storedOutputVolume }
        set {
            storedOutputVolume = max(0, newValue)
            placeAll()
        }
    }

    public var listenerPosition: AVAudio3DPoint {
        get { listener.position }
        set {
            listener.position = newValue
            placeAll()
        }
    }

    /// Where the listener looks (default −z) and which way is up (default +y).
    public var listenerVectorOrientation: AVAudio3DVectorOrientation {
        get { listener.vectorOrientation }
        set {
            listener.orient(newValue)
            placeAll()
        }
    }

    /// The same orientation as yaw, pitch and roll in degrees.
    public var listenerAngularOrientation: AVAudio3DAngularOrientation {
        get { listener.angularOrientation }
        set {
            listener.orient(newValue)
            placeAll()
        }
    }

    /// The algorithms that render differently here.
    public var applicableRenderingAlgorithms: [NSNumber] {
        [AVAudio3DMixingRenderingAlgorithm.equalPowerPanning, .stereoPassThrough].map { NSNumber(value: $0.rawValue) }
    }

    /// The first input bus nothing feeds; the node grows by eight inputs when all are fed.
    public var nextAvailableInputBus: AVAudioNodeBus { firstUnfedInputBus }

    func applyAttenuation() {
        let parameters = distanceAttenuationParameters
        let model: DistanceModel = switch parameters.distanceAttenuationModel {
        case .exponential: .exponentialClamped
        case .inverse: .inverseClamped
        case .linear: .linearClamped
        }
        set("model", Float(model.rawValue))
        set("reference", parameters.referenceDistance)
        set("maxDistance", parameters.maximumDistance)
        set("rolloff", parameters.rolloffFactor)
    }

    private func placeAll() {
        for bus in inputMixing.keys { place(bus) }
    }

    /// Sets input `bus`'s direction, distance and gain from its source's settings.
    private func place(_ bus: AVAudioNodeBus) {
        let settings = inputMixing[bus] ?? MixingSettings()
        let stereo = (try? unit.format(scope: .input, element: bus).channelCount) == 2
        let passThrough = stereo || settings.renderingAlgorithm == .stereoPassThrough
        let (azimuth, elevation, distance) = passThrough ? (0, 0, 0) : listener.place(settings.position)
        let level = max(0, settings.volume) * storedOutputVolume
            * Decibels.gain(min(0, settings.obstruction)) * Decibels.gain(min(0, settings.occlusion))
        set("in\(bus).azimuth", azimuth)
        set("in\(bus).elevation", elevation)
        set("in\(bus).distance", distance)
        let audible = level >= Decibels.gain(-120)
        set("in\(bus).gain", audible ? Decibels.fromAmplitude(level) : -120)
        set("in\(bus).mute", audible ? 0 : 1)
    }
}

extension AVAudioEnvironmentNode: MixingNode {
    func ensureInput(_ bus: Int) throws(AudioUnitError) { try growInputs(toInclude: bus) }

    func mixing(ofInput bus: AVAudioNodeBus) -> MixingSettings { inputMixing[bus] ?? MixingSettings() }

    func setMixing(_ settings: MixingSettings, ofInput bus: AVAudioNodeBus) {
        inputMixing[bus] = settings
        place(bus)
    }
}

/// How an environment node's sources fade with distance, as AVFAudio's: none nearer
/// than `referenceDistance`, no further fading past `maximumDistance`.
public final class AVAudioEnvironmentDistanceAttenuationParameters: @unchecked Sendable {
    private unowned let node: AVAudioEnvironmentNode

    init(node: AVAudioEnvironmentNode) { self.node = node }

    /// Inverse: `reference / (reference + rolloff · (distance − reference))`; linear:
    /// `1 − rolloff · (distance − reference) / (maximum − reference)`; exponential:
    /// `(distance / reference)^−rolloff`.
    public var distanceAttenuationModel = AVAudioEnvironmentDistanceAttenuationModel.inverse {
        didSet { node.applyAttenuation() }
    }
    /// Meters, 0.01 ... 10 000.
    public var referenceDistance: Float = 1 { didSet { node.applyAttenuation() } }
    /// Meters, 0.01 ... 100 000.
    public var maximumDistance: Float = 100_000 { didSet { node.applyAttenuation() } }
    /// 0 ... 100.
    public var rolloffFactor: Float = 1 { didSet { node.applyAttenuation() } }
}

/// The environment's reverb as AVFAudio describes it, kept for code that sets it: no
/// reverb is rendered by the node here.
public final class AVAudioEnvironmentReverbParameters: @unchecked Sendable {
    public var enable = false
    /// Decibels, −40 ... 40.
    public var level: Float = 0
    private let filter = AVAudioUnitEQ(numberOfBands: 1)
    private var preset = AVAudioUnitReverbPreset.mediumHall

    /// A one-band EQ's settings, kept as Apple's filters the reverb with them.
    public var filterParameters: AVAudioUnitEQFilterParameters { filter.bands[0] }

    public func loadFactoryReverbPreset(_ preset: AVAudioUnitReverbPreset) { self.preset = preset }
}
