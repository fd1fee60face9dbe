import TrellisCore
import TrellisGraph

/// A node of an `AVAudioEngine`: one Trellis unit in the engine's graph, as AVFAudio's
/// `AVAudioNode`. Thread: the engine's control thread (any one at a time), never the
/// audio thread.
open class AVAudioNode: @unchecked Sendable {
    private(set) var unit: any AudioUnit
    /// The node in the engine's graph while attached.
    var nodeID: NodeID?
    /// What `AVAudioMixing` asked for before the node was connected to a mixer.
    var mixing = MixingSettings()
    /// Taps by output bus, put into the graph once the node is attached.
    var taps: [AVAudioNodeBus: InstalledTap] = [:]
    public internal(set) weak var engine: AVAudioEngine?

    init(unit: any AudioUnit) { self.unit = unit }

    /// The node's unit after the graph took `fresh` in its place. Thread: control.
    func replaceUnit(with fresh: any AudioUnit) { unit = fresh }

    public var numberOfInputs: Int { unit.elementCount(.input) }
    public var numberOfOutputs: Int { unit.elementCount(.output) }

    public func inputFormat(forBus bus: AVAudioNodeBus) -> AVAudioFormat { format(.input, bus) }
    public func outputFormat(forBus bus: AVAudioNodeBus) -> AVAudioFormat { format(.output, bus) }

    public func name(forInputBus bus: AVAudioNodeBus) -> String? { bus < numberOfInputs ? "input \(bus)" : nil }
    public func name(forOutputBus bus: AVAudioNodeBus) -> String? { bus < numberOfOutputs ? "output \(bus)" : nil }

    /// Clears the node's state: delay lines, envelopes, tails.
    public func reset() { unit.reset() }

    /// Seconds from the node's input to its output.
    public var latency: Double { Double(unit.latencyFrames) / sampleRate }
    /// Seconds the node keeps sounding after its input falls silent.
    public var tailTime: Double { unit.tailTime }
    /// The engine's last render, while it renders.
    public var lastRenderTime: AVAudioTime? { engine?.lastRenderTime }

    var sampleRate: Double { (try? unit.format(scope: .output, element: 0).sampleRate) ?? engine?.graph.sampleRate ?? 48_000 }

    func format(_ scope: Scope, _ bus: Int) -> AVAudioFormat {
        let stream = try? unit.format(scope: scope, element: bus)
        let rate = stream?.sampleRate ?? engine?.graph.sampleRate ?? 48_000
        return AVAudioFormat(standardFormatWithSampleRate: rate, channels: AVAudioChannelCount(max(1, stream?.channelCount ?? 2)))
            ?? AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
    }

    /// The parameter the unit names `identifier`, clamped into its range as Apple's
    /// audio units clamp.
    func set(_ identifier: String, _ value: Float) {
        guard let info = try? unit.parameter(named: identifier) else { return }
        let clamped = min(max(value.isNaN ? info.defaultValue : value, info.range.lowerBound), info.range.upperBound)
        try? unit.setParameter(info.address, clamped, rampFrames: 0)
    }

    func value(_ identifier: String) -> Float {
        guard let info = try? unit.parameter(named: identifier) else { return 0 }
        return (try? unit.parameterValue(info.address)) ?? info.defaultValue
    }
}

extension AVAudioNode: Hashable {
    public static func == (a: AVAudioNode, b: AVAudioNode) -> Bool { a === b }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
