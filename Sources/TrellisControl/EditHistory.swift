import Foundation
import TrellisCore
import TrellisGraph

/// What an undo returns to: the graph's nodes and connections, and every unit's
/// parameter values and bypass, inside subgraphs too. Plugins' own state beyond their
/// controls is not taken (that would stop the audio thread for each edit); a node that
/// undo brings back is the very unit removed, so it keeps its state.
struct EditSnapshot {
    struct UnitValues {
        var unit: any AudioUnit
        var values: [(ParameterAddress, Float)]
        var bypassed: Bool
    }

    var structure: Graph.Structure
    var units: [UnitValues]

    /// Thread: control.
    init(_ graph: Graph) {
        structure = graph.structure
        units = structure.units.map { _, unit in
            UnitValues(
                unit: unit,
                values: unit.parameters.filter(\.isWritable).compactMap { info in (try? unit.parameterValue(info.address)).map { (info.address, $0) } },
                bypassed: unit.isBypassed)
        }
    }

    /// Returns the graph to this snapshot: bypass first (a subgraph's is compiled in),
    /// then the nodes and connections in one edit, then the values that differ, each
    /// landing on the audio thread as a `set` does. Thread: control, graph locked.
    func restore(on graph: Graph) throws(GraphError) {
        for entry in units where entry.unit.isBypassed != entry.bypassed {
            try? entry.unit.setProperty(.bypassEffect, .bool(entry.bypassed), scope: .global, element: 0)
        }
        try graph.restore(structure)
        for entry in units {
            for (address, value) in entry.values where (try? entry.unit.parameterValue(address)) != value {
                try? entry.unit.setParameter(address, value, rampFrames: 0)
            }
        }
    }
}

/// Undo and redo of the edits made through the protocol, bounded: the oldest edit is
/// forgotten past `limit`. A run of `set`s of one parameter (a fader moved) within
/// `coalescing` seconds is one edit. Queue only.
struct EditHistory {
    static let limit = 100
    static let coalescing = 2.0

    struct Entry {
        var label: String
        var snapshot: EditSnapshot
        var key: String?
        var time: Date
    }

    private(set) var undos: [Entry] = []
    private(set) var redos: [Entry] = []

    /// Whether an edit of `key` made now is one with the last edit.
    func joins(_ key: String) -> Bool {
        guard let last = undos.last, last.key == key, redos.isEmpty else { return false }
        return Date().timeIntervalSince(last.time) < Self.coalescing
    }

    /// An edit was made, from `before` (nil when it `joins` the last). A new edit
    /// forgets what could be redone.
    mutating func record(_ label: String, before: EditSnapshot?, key: String?) {
        let now = Date()
        guard let before else {
            undos[undos.count - 1].time = now
            undos[undos.count - 1].label = label
            return
        }
        redos = []
        undos.append(Entry(label: label, snapshot: before, key: key, time: now))
        if undos.count > Self.limit { undos.removeFirst(undos.count - Self.limit) }
    }

    mutating func popUndo() -> Entry? { undos.popLast() }
    mutating func popRedo() -> Entry? { redos.popLast() }

    mutating func pushUndo(_ entry: Entry) {
        undos.append(entry)
        if undos.count > Self.limit { undos.removeFirst(undos.count - Self.limit) }
    }

    mutating func pushRedo(_ entry: Entry) { redos.append(entry) }

    mutating func clear() {
        undos = []
        redos = []
    }
}
