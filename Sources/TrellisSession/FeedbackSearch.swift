import TrellisGraph

/// Finds the first connection, in the order written, that closes a cycle, in time
/// O((V + E) log E): whether some prefix of the connections has a cycle is one
/// topological sort, and the shortest such prefix is found by halving. A search per
/// connection as it is made costs O(V · E) on a session written end to start.
enum FeedbackSearch {
    typealias Edge = (source: NodeID, destination: NodeID)

    /// The index of the first edge that closes a cycle, and the cycle from its source
    /// back to it; nil when there is none.
    static func firstCycle(_ edges: [Edge]) -> (index: Int, cycle: [NodeID])? {
        guard hasCycle(edges[...]) else { return nil }
        var low = 1, high = edges.count
        while low < high {
            let middle = (low + high) / 2
            if hasCycle(edges[..<middle]) { high = middle } else { low = middle + 1 }
        }
        let index = low - 1
        let closing = edges[index]
        return (index, [closing.source] + path(from: closing.destination, to: closing.source, in: edges[..<index]))
    }

    /// Kahn's topological sort: a cycle leaves nodes that never become ready.
    static func hasCycle(_ edges: ArraySlice<Edge>) -> Bool {
        var waiting: [NodeID: Int] = [:]
        var outgoing: [NodeID: [NodeID]] = [:]
        for edge in edges {
            outgoing[edge.source, default: []].append(edge.destination)
            waiting[edge.destination, default: 0] += 1
            if waiting[edge.source] == nil { waiting[edge.source] = 0 }
        }
        var ready = waiting.filter { $0.value == 0 }.map(\.key)
        var done = 0
        while let node = ready.popLast() {
            done += 1
            for next in outgoing[node] ?? [] {
                waiting[next]! -= 1
                if waiting[next] == 0 { ready.append(next) }
            }
        }
        return done < waiting.count
    }

    /// The nodes from `start` to `goal` along `edges`, both included.
    private static func path(from start: NodeID, to goal: NodeID, in edges: ArraySlice<Edge>) -> [NodeID] {
        var outgoing: [NodeID: [NodeID]] = [:]
        for edge in edges { outgoing[edge.source, default: []].append(edge.destination) }
        return Graph.shortestPath(from: start, to: goal) { outgoing[$0] ?? [] } ?? [start, goal]
    }
}
