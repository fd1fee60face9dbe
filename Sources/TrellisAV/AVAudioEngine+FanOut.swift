import TrellisCore
import TrellisGraph
import TrellisUnits

/// One output bus of one node, fanned out to several inputs through a splitter the
/// engine keeps out of sight.
struct FanOut: Hashable {
    let node: NodeID
    let bus: AVAudioNodeBus
}

extension AVAudioEngine {
    /// Connects `sourceNode`'s output `sourceBus` to every point in `destNodes`, each of
    /// which gets the whole signal (a splitter underneath). What the source bus and the
    /// destination buses were connected to before is let go.
    public func connect(_ sourceNode: AVAudioNode, to destNodes: [AVAudioConnectionPoint], fromBus sourceBus: AVAudioNodeBus, format: AVAudioFormat?) {
        edit { fanOut(sourceNode, to: destNodes, fromBus: sourceBus, format: format) }
    }

    private func fanOut(_ sourceNode: AVAudioNode, to destNodes: [AVAudioConnectionPoint], fromBus sourceBus: AVAudioNodeBus, format: AVAudioFormat?) {
        let points = destNodes.compactMap { point in point.node.map { ($0, point.bus) } }
        guard points.count > 1 else {
            if let (node, bus) = points.first { connect(sourceNode, to: node, fromBus: sourceBus, toBus: bus, format: format) } else { disconnectNodeOutput(sourceNode, bus: sourceBus) }
            return
        }
        attach(sourceNode)
        for (node, _) in points { attach(node) }
        guard let from = sourceNode.nodeID else { return }
        disconnectNodeOutput(sourceNode, bus: sourceBus)
        let channels = Int(format?.channelCount ?? sourceNode.outputFormat(forBus: sourceBus).channelCount)
        do {
            let splitter = try graph.addNode(Splitter(channelCount: channels, outputs: points.count))
            fanOuts[FanOut(node: from, bus: sourceBus)] = splitter
            if !graph.isInitialized { try setChannels(channels, of: sourceNode.unit, .output, sourceBus) }
            try graph.connect(from, sourceBus, to: splitter, 0, converting: true)
            for (index, (node, bus)) in points.enumerated() {
                guard let to = node.nodeID else { continue }
                try (node as? any MixingNode)?.ensureInput(bus)
                if let existing = graph.connections.first(where: { $0.destination == to && $0.destinationBus == bus }) {
                    try graph.disconnect(existing.destination, existing.destinationBus)
                }
                if !graph.isInitialized { try setChannels(channels, of: node.unit, .input, bus) }
                try graph.connect(splitter, index, to: to, bus, converting: true)
                carryMixing(of: sourceNode, to: node, bus: bus)
            }
        } catch {
            refuse("connect \(sourceNode.unit.name) bus \(sourceBus) to \(points.count) points: \(error)")
        }
    }

    /// Removes the splitter fanning out `node`'s output `bus`, with its connections.
    func removeFanOut(of node: NodeID, bus: AVAudioNodeBus) {
        guard let splitter = fanOuts.removeValue(forKey: FanOut(node: node, bus: bus)) else { return }
        try? graph.removeNode(splitter)
    }

    /// The fan-out a splitter node serves, if it is one of the engine's.
    func fanOut(servedBy splitter: NodeID) -> FanOut? {
        fanOuts.first { $0.value == splitter }?.key
    }
}
