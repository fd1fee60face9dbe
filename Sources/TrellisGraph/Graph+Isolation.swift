import TrellisCore
import TrellisEngine

extension Graph {
    /// Starts again the isolated units that failed and restart by themselves
    /// (`restart: auto`), each at most once a second, so a plugin that crashes as it
    /// starts cannot spin. Returns a notice per attempt. Thread: control (the live
    /// upkeep, under the graph's lock).
    public func restartFailedUnits(now: UInt64 = HostClock.now()) -> [EngineNotice] {
        var notices: [EngineNotice] = []
        for node in nodes {
            guard let unit = node.unit as? any IsolatableUnit, unit.isolation?.restartsAutomatically == true,
                  let cause = unit.isolationFailure
            else { continue }
            if let last = automaticRestarts[unit.unitID], now &- last < 1_000_000_000 { continue }
            automaticRestarts[unit.unitID] = now
            let label = UnitLabel(node: node.name, description: unit.componentDescription, sampleRate: sampleRate)
            let message: UnitMessage
            do {
                try unit.restartIsolated()
                message = .log(.note, "restarted by itself after it \(cause)")
            } catch {
                message = .log(.error, "could not restart by itself: \(error)")
            }
            notices.append(EngineNotice(kind: .log, unitID: unit.unitID, sampleTime: -1, unit: label, message: message))
        }
        return notices
    }
}

extension Graph {
    /// Whether a node runs an isolated unit (in a subgraph too): each cycle then wakes
    /// other processes. Thread: control.
    public var hasIsolatedUnits: Bool {
        nodes.contains { node in
            if let unit = node.unit as? any IsolatableUnit, unit.isolation != nil { return true }
            return (node.unit as? Subgraph)?.graph.hasIsolatedUnits ?? false
        }
    }
}
