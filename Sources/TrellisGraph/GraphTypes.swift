import TrellisCore

/// A node's identity within its graph; stable for the node's life.
public struct NodeID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public var description: String { "#\(rawValue)" }
    public static func < (lhs: NodeID, rhs: NodeID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A unit in a graph, with the name sessions and messages use.
public struct Node: @unchecked Sendable {
    public let id: NodeID
    public let name: String
    public let unit: any AudioUnit
}

/// One output bus feeding one input bus. `converts` asks the compiler to map channels
/// where the two ends differ in width, instead of refusing the connection.
public struct Connection: Hashable, Sendable {
    public var source: NodeID
    public var sourceBus: Int
    public var destination: NodeID
    public var destinationBus: Int
    public var converts: Bool

    public init(source: NodeID, sourceBus: Int = 0, destination: NodeID, destinationBus: Int = 0, converts: Bool = false) {
        self.source = source
        self.sourceBus = sourceBus
        self.destination = destination
        self.destinationBus = destinationBus
        self.converts = converts
    }
}

/// One MIDI output bus feeding one MIDI input bus. Unlike audio, MIDI fans out and in
/// freely: an output may feed any number of inputs, and an input hears every output
/// connected to it, merged in time order.
public struct MIDIConnection: Hashable, Sendable {
    public var source: NodeID
    public var sourceBus: Int
    public var destination: NodeID
    public var destinationBus: Int

    public init(source: NodeID, sourceBus: Int = 0, destination: NodeID, destinationBus: Int = 0) {
        self.source = source
        self.sourceBus = sourceBus
        self.destination = destination
        self.destinationBus = destinationBus
    }
}

/// One end of a connection, named for messages: `eq1 output 0`, `arp midi output 0`.
public struct Endpoint: Hashable, Sendable, CustomStringConvertible {
    public var node: String
    public var scope: Scope
    public var bus: Int
    public var isMIDI = false
    public var description: String { "\(node) \(isMIDI ? "midi " : "")\(scope) \(bus)" }
}

/// What is wrong with a graph or an edit. The graph is unchanged after any of them.
public enum GraphError: Error, CustomStringConvertible {
    case unknownNode(NodeID)
    case unknownNodeName(String, suggestions: [String])
    case duplicateNodeName(String)
    case fanOut(source: Endpoint, feeds: Endpoint, attempted: Endpoint)
    case inputTaken(destination: Endpoint, by: Endpoint)
    case feedback(cycle: [String])
    case invalidElement(Endpoint, available: Int)
    case formatMismatch(from: Endpoint, StreamFormat, to: Endpoint, StreamFormat)
    case noOutputNode
    case multipleOutputNodes([String])
    case multipleInputNodes([String])
    case notConnected(Endpoint)
    case alreadyConnected(from: Endpoint, to: Endpoint)
    case unit(node: String, AudioUnitError)
    case registry(RegistryError)
    case subgraph(node: String, reason: String)
    /// A path (`strip/trim`) that goes through a node which is not a subgraph.
    case notASubgraph(node: String, path: String)
    /// A program that would allocate more than the graph's `memoryBudget`.
    case overBudget(bytes: Int, budget: Int, nodes: Int, frames: Int)

    public var description: String {
        switch self {
        case .unknownNode(let id):
            return "no node \(id) in the graph"
        case .unknownNodeName(let name, let suggestions):
            return "no node named \"\(name)\"\(Suggestions.didYouMean(suggestions))"
        case .duplicateNodeName(let name):
            return "a node named \"\(name)\" already exists"
        case .fanOut(let source, let feeds, let attempted):
            return "\(source) already feeds \(feeds); it cannot also feed \(attempted): one output feeds one input, so fan-out needs a splitter"
        case .inputTaken(let destination, let source):
            return "\(destination) is already fed by \(source); disconnect it first or mix with a mixer"
        case .feedback(let cycle):
            return "the connection would make a cycle: \(cycle.joined(separator: " -> "))"
        case .invalidElement(let endpoint, let available):
            return "\(endpoint) does not exist (the node has \(available) \(endpoint.isMIDI ? "MIDI " : "")\(endpoint.scope) bus\(available == 1 ? "" : "es"))"
        case .formatMismatch(let from, let fromFormat, let to, let toFormat):
            return "format mismatch: \(from) is \(fromFormat) but \(to) is \(toFormat); set matching formats or connect with conversion"
        case .noOutputNode:
            return "the graph has no output node (a generic output, short name `output`) to render"
        case .multipleOutputNodes(let names):
            return "the graph has more than one output node: \(names.joined(separator: ", "))"
        case .multipleInputNodes(let names):
            return "the graph has more than one input node: \(names.joined(separator: ", "))"
        case .notConnected(let endpoint):
            return "\(endpoint) is not connected"
        case .alreadyConnected(let from, let to):
            return "\(from) already feeds \(to)"
        case .unit(let node, let error):
            return "node \(node): \(error)"
        case .registry(let error):
            return "\(error)"
        case .subgraph(let node, let reason):
            return "subgraph \(node): \(reason)"
        case .notASubgraph(let node, let path):
            return "no node named \"\(path)\": \"\(node)\" is not a subgraph node, so nothing is inside it"
        case .overBudget(let bytes, let budget, let nodes, let frames):
            return "the graph's \(nodes) units would need \(Self.megabytes(bytes)) MB of buffers at \(frames) frames a cycle, "
                + "past the memory budget of \(Self.megabytes(budget)) MB; nothing was allocated (--memory-budget MB raises it)"
        }
    }

    /// Bytes as whole megabytes (10^6), rounded up.
    private static func megabytes(_ bytes: Int) -> Int { bytes / 1_000_000 + (bytes % 1_000_000 == 0 ? 0 : 1) }
}

/// Identifies an observer installed on a graph, for removing it.
public struct ObserverToken: Hashable, Sendable {
    public let rawValue: Int
}

/// A unit's latency that changed after the program was compiled.
public struct LatencyChange: @unchecked Sendable {
    /// The node's name in the flat program (`strip/limiter` inside a subgraph).
    public var node: String
    public var unit: any AudioUnit
    /// The frames the program compensated, and those the unit reports now.
    public var from: Int
    public var to: Int
}
