import TrellisCore

/// What a source node sets on the mixer input it feeds, as AVFAudio's `AVAudioMixing`
/// (`AVAudioStereoMixing`'s pan included): kept on the node, and applied to the
/// mixer's input bus whenever the node is connected to one.
public protocol AVAudioMixing: AnyObject {
    var volume: Float { get set }
    var pan: Float { get set }
    func destination(forMixer mixer: AVAudioNode, bus: AVAudioNodeBus) -> AVAudioMixingDestination?
}

struct MixingSettings {
    var volume: Float = 1
    var pan: Float = 0
}

/// One mixer input a source node feeds, as AVFAudio's `AVAudioMixingDestination`.
public final class AVAudioMixingDestination: @unchecked Sendable {
    public let connectionPoint: AVAudioConnectionPoint
    let mixer: AVAudioMixerNode

    init(mixer: AVAudioMixerNode, bus: AVAudioNodeBus) {
        self.mixer = mixer
        connectionPoint = AVAudioConnectionPoint(node: mixer, bus: bus)
    }

    public var volume: Float {
        get { mixer.value("in\(connectionPoint.bus).volume") }
        set { mixer.set("in\(connectionPoint.bus).volume", newValue) }
    }

    public var pan: Float {
        get { mixer.value("in\(connectionPoint.bus).pan") }
        set { mixer.set("in\(connectionPoint.bus).pan", newValue) }
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

extension AVAudioNode: AVAudioMixing {
    /// The gain of the mixer input this node feeds, 0...1.
    public var volume: Float {
        get { mixing.volume }
        set {
            mixing.volume = newValue
            for destination in mixerDestinations { destination.volume = newValue }
        }
    }

    /// The stereo position on the mixer input this node feeds, −1 (left) ... 1 (right).
    public var pan: Float {
        get { mixing.pan }
        set {
            mixing.pan = newValue
            for destination in mixerDestinations { destination.pan = newValue }
        }
    }

    public func destination(forMixer mixer: AVAudioNode, bus: AVAudioNodeBus) -> AVAudioMixingDestination? {
        mixerDestinations.first { $0.mixer === mixer && $0.connectionPoint.bus == bus }
    }

    /// The mixer inputs this node's outputs feed.
    var mixerDestinations: [AVAudioMixingDestination] {
        guard let engine else { return [] }
        return engine.outputConnectionPoints(for: self).compactMap { point in
            (point.node as? AVAudioMixerNode).map { AVAudioMixingDestination(mixer: $0, bus: point.bus) }
        }
    }
}
