import TrellisCore

/// The pan a source node sets on the mixer input it feeds, as AVFAudio's.
public protocol AVAudioStereoMixing: AnyObject {
    var pan: Float { get set }
}

/// Where a source sits for the environment node it feeds, as AVFAudio's. What each
/// property does here is said on `AVAudioEnvironmentNode`.
public protocol AVAudio3DMixing: AnyObject {
    var renderingAlgorithm: AVAudio3DMixingRenderingAlgorithm { get set }
    var sourceMode: AVAudio3DMixingSourceMode { get set }
    var pointSourceInHeadMode: AVAudio3DMixingPointSourceInHeadMode { get set }
    var rate: Float { get set }
    var reverbBlend: Float { get set }
    var obstruction: Float { get set }
    var occlusion: Float { get set }
    var position: AVAudio3DPoint { get set }
}

/// What a source node sets on the mixer or environment input it feeds, as AVFAudio's
/// `AVAudioMixing`: kept on the node, and applied to every such input it is connected to.
public protocol AVAudioMixing: AVAudioStereoMixing, AVAudio3DMixing {
    var volume: Float { get set }
    func destination(forMixer mixer: AVAudioNode, bus: AVAudioNodeBus) -> AVAudioMixingDestination?
}

/// Everything `AVAudioMixing` sets, for one source or one input bus.
struct MixingSettings {
    var volume: Float = 1
    var pan: Float = 0
    var renderingAlgorithm = AVAudio3DMixingRenderingAlgorithm.equalPowerPanning
    var sourceMode = AVAudio3DMixingSourceMode.spatializeIfMono
    var pointSourceInHeadMode = AVAudio3DMixingPointSourceInHeadMode.mono
    var rate: Float = 1
    var reverbBlend: Float = 0
    var obstruction: Float = 0
    var occlusion: Float = 0
    var position = AVAudio3DPoint()
}

/// A node whose input buses take a source's mixing settings: the mixer and the
/// environment node. Thread: control.
protocol MixingNode: AVAudioNode {
    var nextAvailableInputBus: AVAudioNodeBus { get }
    /// Makes room for input `bus`, before it is connected.
    func ensureInput(_ bus: Int) throws(AudioUnitError)
    func mixing(ofInput bus: AVAudioNodeBus) -> MixingSettings
    func setMixing(_ settings: MixingSettings, ofInput bus: AVAudioNodeBus)
}

extension MixingNode {
    /// The first input bus nothing feeds.
    var firstUnfedInputBus: AVAudioNodeBus {
        let fed = engine.map { Set($0.inputConnections(of: self).keys) } ?? []
        return (0...).first { !fed.contains($0) }!
    }

    /// Grows the unit's inputs by eights until `bus` is one of them.
    func growInputs(toInclude bus: Int) throws(AudioUnitError) {
        guard bus >= unit.elementCount(.input) else { return }
        try unit.setProperty(.elementCount, .int((bus / 8 + 1) * 8), scope: .input, element: 0)
    }
}

/// One mixer or environment input a source node feeds, as AVFAudio's `AVAudioMixingDestination`.
public final class AVAudioMixingDestination: AVAudioMixing, @unchecked Sendable {
    public let connectionPoint: AVAudioConnectionPoint
    let mixer: any MixingNode

    init(mixer: any MixingNode, bus: AVAudioNodeBus) {
        self.mixer = mixer
        connectionPoint = AVAudioConnectionPoint(node: mixer, bus: bus)
    }

    private var settings: MixingSettings {
        get { mixer.mixing(ofInput: connectionPoint.bus) }
        set { mixer.setMixing(newValue, ofInput: connectionPoint.bus) }
    }

    public var volume: Float { get { settings.volume } set { settings.volume = newValue } }
    public var pan: Float { get { settings.pan } set { settings.pan = newValue } }
    public var renderingAlgorithm: AVAudio3DMixingRenderingAlgorithm {
        get { settings.renderingAlgorithm } set { settings.renderingAlgorithm = newValue }
    }
    public var sourceMode: AVAudio3DMixingSourceMode { get { settings.sourceMode } set { settings.sourceMode = newValue } }
    public var pointSourceInHeadMode: AVAudio3DMixingPointSourceInHeadMode {
        get { settings.pointSourceInHeadMode } set { settings.pointSourceInHeadMode = newValue }
    }
    public var rate: Float { get { settings.rate } set { settings.rate = newValue } }
    public var reverbBlend: Float { get { settings.reverbBlend } set { settings.reverbBlend = newValue } }
    public var obstruction: Float { get { settings.obstruction } set { settings.obstruction = newValue } }
    public var occlusion: Float { get { settings.occlusion } set { settings.occlusion = newValue } }
    public var position: AVAudio3DPoint { get { settings.position } set { settings.position = newValue } }

    /// A destination names only itself.
    public func destination(forMixer mixer: AVAudioNode, bus: AVAudioNodeBus) -> AVAudioMixingDestination? {
        mixer === self.mixer && bus == connectionPoint.bus ? self : nil
    }
}

/// A node and one of its buses, as AVFAudio's `AVAudioConnectionPoint`.
public final class AVAudioConnectionPoint: @unchecked Sendable {
    public private(set) weak var node: AVAudioNode?
    public let bus: AVAudioNodeBus

    public init(node: AVAudioNode, bus: AVAudioNodeBus) {
        self.node = node
        self.bus = bus
    }
}

// The nodes that are sources of a mix, as in AVFAudio.
extension AVAudioPlayerNode: AVAudioMixing {}
extension AVAudioInputNode: AVAudioMixing {}
extension AVAudioMixerNode: AVAudioMixing {}
extension AVAudioEnvironmentNode: AVAudioMixing {}
extension AVAudioSourceNode: AVAudioMixing {}
extension AVAudioUnitMIDIInstrument: AVAudioMixing {}
extension FilePlayerNode: AVAudioMixing {}

extension AVAudioMixing where Self: AVAudioNode {
    /// The gain of the mixer input this node feeds, 0...1.
    public var volume: Float { get { mixing.volume } set { mix { $0.volume = newValue } } }
    /// The stereo position on the mixer input this node feeds, −1 (left) ... 1 (right).
    public var pan: Float { get { mixing.pan } set { mix { $0.pan = newValue } } }
    public var renderingAlgorithm: AVAudio3DMixingRenderingAlgorithm {
        get { mixing.renderingAlgorithm } set { mix { $0.renderingAlgorithm = newValue } }
    }
    public var sourceMode: AVAudio3DMixingSourceMode { get { mixing.sourceMode } set { mix { $0.sourceMode = newValue } } }
    public var pointSourceInHeadMode: AVAudio3DMixingPointSourceInHeadMode {
        get { mixing.pointSourceInHeadMode } set { mix { $0.pointSourceInHeadMode = newValue } }
    }
    public var rate: Float { get { mixing.rate } set { mix { $0.rate = newValue } } }
    public var reverbBlend: Float { get { mixing.reverbBlend } set { mix { $0.reverbBlend = newValue } } }
    public var obstruction: Float { get { mixing.obstruction } set { mix { $0.obstruction = newValue } } }
    public var occlusion: Float { get { mixing.occlusion } set { mix { $0.occlusion = newValue } } }
    /// Where this node sits for the environment node it feeds.
    public var position: AVAudio3DPoint { get { mixing.position } set { mix { $0.position = newValue } } }

    public func destination(forMixer mixer: AVAudioNode, bus: AVAudioNodeBus) -> AVAudioMixingDestination? {
        mixerDestinations.first { $0.mixer === mixer && $0.connectionPoint.bus == bus }
    }

    /// Changes one setting on the node and on every input it feeds.
    func mix(_ change: (inout MixingSettings) -> Void) {
        change(&mixing)
        for destination in mixerDestinations {
            var settings = destination.mixer.mixing(ofInput: destination.connectionPoint.bus)
            change(&settings)
            destination.mixer.setMixing(settings, ofInput: destination.connectionPoint.bus)
        }
    }
}

extension AVAudioNode {
    /// The mixer and environment inputs this node's outputs feed.
    var mixerDestinations: [AVAudioMixingDestination] {
        guard let engine else { return [] }
        return engine.outputConnectionPoints(for: self).compactMap { point in
            (point.node as? any MixingNode).map { AVAudioMixingDestination(mixer: $0, bus: point.bus) }
        }
    }
}
