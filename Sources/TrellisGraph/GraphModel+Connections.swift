/// The model's connections with the indexes that keep every check of an edit constant
/// time (what feeds an input, what an output feeds, a MIDI connection's presence) and
/// the feedback search linear in what it visits, so a session of many nodes loads in
/// time linear in its size.
extension Graph.Model {
    struct BusKey: Hashable {
        var node: NodeID
        var bus: Int
    }

    func connection(into node: NodeID, _ bus: Int) -> Connection? { byDestination[BusKey(node: node, bus: bus)] }

    func connection(outOf node: NodeID, _ bus: Int) -> Connection? { bySource[BusKey(node: node, bus: bus)] }

    func hasMIDI(_ connection: MIDIConnection) -> Bool { midiSet.contains(connection) }

    /// The nodes `node` feeds, audio and MIDI, once per connection.
    func downstream(of node: NodeID) -> [NodeID] { outgoing[node] ?? [] }

    mutating func add(_ connection: Connection) {
        connections.append(connection)
        byDestination[BusKey(node: connection.destination, bus: connection.destinationBus)] = connection
        bySource[BusKey(node: connection.source, bus: connection.sourceBus)] = connection
        outgoing[connection.source, default: []].append(connection.destination)
    }

    mutating func add(_ connection: MIDIConnection) {
        midiConnections.append(connection)
        midiSet.insert(connection)
        outgoing[connection.source, default: []].append(connection.destination)
    }

    /// Removes the connection into input `bus` of `node`; false when there is none.
    mutating func removeConnection(into node: NodeID, _ bus: Int) -> Bool {
        guard let connection = byDestination.removeValue(forKey: BusKey(node: node, bus: bus)),
              let index = connections.firstIndex(of: connection) else { return false }
        connections.remove(at: index)
        bySource[BusKey(node: connection.source, bus: connection.sourceBus)] = nil
        forget(connection.source, feeding: connection.destination)
        return true
    }

    mutating func remove(_ connection: MIDIConnection) -> Bool {
        guard midiSet.remove(connection) != nil, let index = midiConnections.firstIndex(of: connection) else { return false }
        midiConnections.remove(at: index)
        forget(connection.source, feeding: connection.destination)
        return true
    }

    /// Removes every connection to or from `node`.
    mutating func removeConnections(of node: NodeID) {
        for connection in connections where connection.source == node || connection.destination == node {
            byDestination[BusKey(node: connection.destination, bus: connection.destinationBus)] = nil
            bySource[BusKey(node: connection.source, bus: connection.sourceBus)] = nil
            forget(connection.source, feeding: connection.destination)
        }
        for connection in midiConnections where connection.source == node || connection.destination == node {
            midiSet.remove(connection)
            forget(connection.source, feeding: connection.destination)
        }
        connections.removeAll { $0.source == node || $0.destination == node }
        midiConnections.removeAll { $0.source == node || $0.destination == node }
        outgoing[node] = nil
    }

    private mutating func forget(_ source: NodeID, feeding destination: NodeID) {
        guard var list = outgoing[source], let index = list.firstIndex(of: destination) else { return }
        list.remove(at: index)
        outgoing[source] = list.isEmpty ? nil : list
    }
}
