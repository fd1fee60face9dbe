import TrellisCore

/// A graph as Graphviz DOT text, for `dot` to lay out and draw: each node with its unit
/// and buses; audio connections solid, MIDI dashed; a subgraph node as a cluster of its
/// own nodes; a latency-compensating delay the compiler inserted named on the
/// connection it delays (from the last published plan); a bypassed node greyed.
/// Graphviz runs as a separate program: nothing of it is linked. Thread: control.
public enum GraphPicture {
    public static func dot(_ graph: Graph, title: String) -> String {
        var lines = [
            "digraph \(quote(title)) {",
            "  graph [rankdir=LR, compound=true, fontname=\"Helvetica\", fontsize=12, label=\(quote(title)), labelloc=t, nodesep=0.3, ranksep=0.6];",
            "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#f4f4f0\", color=\"#555555\", fontname=\"Helvetica\", fontsize=10];",
            "  edge [color=\"#2a6f3f\", fontname=\"Helvetica\", fontsize=9, arrowsize=0.7];",
        ]
        write(graph, prefix: "", indent: "  ", into: &lines)
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func write(_ graph: Graph, prefix: String, indent: String, into lines: inout [String]) {
        let delays = compensation(in: graph)
        for node in graph.nodes {
            let id = prefix + node.name
            if let subgraph = node.unit as? Subgraph {
                lines.append("\(indent)subgraph \(quote("cluster_" + id)) {")
                lines.append("\(indent)  label=\(quote("\(node.name) (subgraph)\(node.unit.isBypassed ? ", bypassed" : "")")); style=\"rounded\"; color=\"#8888aa\";")
                write(subgraph.graph, prefix: id + "/", indent: indent + "  ", into: &lines)
                lines.append("\(indent)}")
                continue
            }
            let unit = node.unit
            let inputs = unit.elementCount(.input), outputs = unit.elementCount(.output)
            let label = "\(node.name)\\n\(unit.name)\\n\(buses(inputs, "in"))\(inputs > 0 && outputs > 0 ? " · " : "")\(buses(outputs, "out"))"
            let grey = unit.isBypassed ? ", fillcolor=\"#dddddd\", fontcolor=\"#888888\", style=\"rounded,filled,dashed\"" : ""
            lines.append("\(indent)\(quote(id)) [label=\(quote(label))\(grey)];")
        }
        for connection in graph.connections {
            guard let source = try? graph.node(connection.source), let destination = try? graph.node(connection.destination) else { continue }
            var attributes: [String] = []
            let (from, tail) = endpoint(source, prefix: prefix, leaving: true)
            let (to, head) = endpoint(destination, prefix: prefix, leaving: false)
            if let tail { attributes.append("ltail=\(quote(tail))") }
            if let head { attributes.append("lhead=\(quote(head))") }
            var label = connection.sourceBus != 0 || connection.destinationBus != 0 ? "\(connection.sourceBus) → \(connection.destinationBus)" : ""
            if let frames = delays["\(destination.unit.unitID).\(connection.destinationBus)"] {
                label += (label.isEmpty ? "" : "\\n") + "delay \(frames) frames"
                attributes.append("color=\"#b03030\"")
            }
            if !label.isEmpty { attributes.append("label=\(quote(label))") }
            lines.append("\(indent)\(quote(from)) -> \(quote(to))\(attributes.isEmpty ? "" : " [" + attributes.joined(separator: ", ") + "]");")
        }
        for connection in graph.midiConnections {
            guard let source = try? graph.node(connection.source), let destination = try? graph.node(connection.destination) else { continue }
            let (from, tail) = endpoint(source, prefix: prefix, leaving: true, midiBus: connection.sourceBus)
            let (to, head) = endpoint(destination, prefix: prefix, leaving: false, midiBus: connection.destinationBus)
            var attributes = ["style=dashed", "color=\"#b0701a\"", "label=\"midi\""]
            if let tail { attributes.append("ltail=\(quote(tail))") }
            if let head { attributes.append("lhead=\(quote(head))") }
            lines.append("\(indent)\(quote(from)) -> \(quote(to)) [\(attributes.joined(separator: ", "))];")
        }
    }

    /// Where an edge to or from `node` ends: the node, or for a subgraph one of its own
    /// nodes (its output or input node, or the MIDI port of `midiBus`, where it has one)
    /// with the cluster to clip at.
    private static func endpoint(_ node: Node, prefix: String, leaving: Bool, midiBus: Int? = nil) -> (String, cluster: String?) {
        guard let subgraph = node.unit as? Subgraph else { return (prefix + node.name, nil) }
        let inner = subgraph.graph.nodes.filter { !($0.unit is Subgraph) }
        let role: UnitRole = switch (leaving, midiBus) {
        case (true, nil): .graphOutput
        case (false, nil): .graphInput
        case (true, let bus?): .midiOutputPort(bus)
        case (false, let bus?): .midiInputPort(bus)
        }
        let end = inner.first { $0.unit.role == role } ?? (leaving ? inner.last : inner.first)
        let id = prefix + node.name
        return (end.map { id + "/" + $0.name } ?? id, "cluster_" + id)
    }

    /// The frames of each compensating delay in the graph's last plan, by the input it
    /// feeds (`unitID.bus`, the compiler's key).
    private static func compensation(in graph: Graph) -> [String: Int] {
        var frames: [String: Int] = [:]
        for delay in graph.plan?.delays ?? [] { frames[delay.key] = delay.frames }
        return frames
    }

    private static func buses(_ count: Int, _ side: String) -> String {
        count == 0 ? "" : "\(count) \(side)"
    }

    /// A DOT string: its quotes escaped (the `\n` in labels are DOT's line breaks).
    static func quote(_ text: String) -> String {
        var quoted = "\""
        for character in text {
            if character == "\"" { quoted += "\\" }
            quoted.append(character)
        }
        return quoted + "\""
    }
}
