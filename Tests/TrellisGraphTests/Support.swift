import Foundation
import TrellisCore
import TrellisEngine
import TrellisGraph
import TrellisUnits

/// Pulls a graph's engine for `frames` frames in slices and returns each output channel.
func pull(_ graph: Graph, frames: Int, slice: Int = 256, start: Int64 = 0, input: AudioBufferList? = nil) -> [[Float]] {
    let channels = max(1, graph.plan?.outputChannelCount ?? 2)
    let output = AudioBufferList(channelCount: channels, frameCapacity: slice)
    var result = Array(repeating: [Float](), count: channels)
    var done = 0
    while done < frames {
        let count = min(slice, frames - done)
        let status = graph.engine.render(
            frameCount: count, timeStamp: AudioTimeStamp(sampleTime: start + Int64(done)),
            input: input?[0] ?? .empty, output: output[0])
        precondition(status == .ok, "render failed: \(status)")
        for channel in 0..<channels { result[channel] += output.samples(channel: channel, frameCount: count) }
        done += count
    }
    return result
}

/// A sine of `frequency` Hz at `amplitude`, computed directly, for comparisons.
func sine(frequency: Double, amplitude: Float, sampleRate: Double = 48_000, frames: Int) -> [Float] {
    (0..<frames).map { amplitude * Float(sin(2 * Double.pi * frequency * Double($0) / sampleRate)) }
}

func decibels(_ gain: Double) -> Float { Float(pow(10, gain / 20)) }

func maxDifference(_ a: [Float], _ b: [Float]) -> Float {
    zip(a, b).map { abs($0 - $1) }.max() ?? 0
}

/// tone -> gain(dB) -> ... -> output, returning the graph and its node ids.
func chain(gains: [Float], frequency: Float = 440, amplitude: Float = 0.5) throws -> (Graph, [NodeID]) {
    let graph = Graph(registry: BuiltInUnits.registry())
    let tone = try graph.addNode(named: "tone")
    try graph.setParameter(tone, "freq", frequency)
    try graph.setParameter(tone, "amp", amplitude)
    var previous = tone
    var ids = [tone]
    for gain in gains {
        let node = try graph.addNode(named: "gain")
        try graph.setParameter(node, "gain", gain)
        try graph.connect(previous, to: node)
        previous = node
        ids.append(node)
    }
    let output = try graph.addNode(named: "output")
    try graph.connect(previous, to: output)
    ids.append(output)
    return (graph, ids)
}
