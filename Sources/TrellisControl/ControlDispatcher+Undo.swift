import TrellisCore
import TrellisGraph

/// `undo` and `redo`: each returns the graph to a snapshot in one edit (one program
/// swap, glitch-free as any edit), and what it replaced becomes the way back.
extension ControlDispatcher {
    func undo() throws(ControlError) -> ControlReply { try step(back: true) }

    func redo() throws(ControlError) -> ControlReply { try step(back: false) }

    /// Restores the entry on top of one history (undo's, going back) and records the
    /// graph as it was on the other, so the step can be taken back.
    private func step(back: Bool) throws(ControlError) -> ControlReply {
        let (verb, done) = back ? ("undo", "undid") : ("redo", "redid")
        guard let entry = back ? history.popUndo() : history.popRedo() else {
            throw ControlError(.unsupported, "\(verb): nothing to \(verb)")
        }
        let now = EditSnapshot(graph)
        do { try restore(entry.snapshot) } catch {
            if back { history.pushUndo(entry) } else { history.pushRedo(entry) }
            throw error
        }
        let reverse = EditHistory.Entry(label: entry.label, snapshot: now, key: nil, time: entry.time)
        if back { history.pushRedo(reverse) } else { history.pushUndo(reverse) }
        return .ok(text: "\(done) \(entry.label)", value: .object([(done, .string(entry.label))]))
    }

    private func restore(_ snapshot: EditSnapshot) throws(ControlError) {
        try locked { () throws(ControlError) in
            do throws(GraphError) { try snapshot.restore(on: graph) } catch { throw ControlError(error) }
        }
        listenToPlayers()
        listenToProperties()
    }

    /// What an edit is called in `undo`'s reply, and the key that joins a run of `set`s
    /// of one parameter into one edit; nil for commands that edit nothing undo returns.
    static func undoLabel(_ command: ControlCommand) -> (label: String, key: String?)? {
        switch command {
        case .add(let node, let unit, _): ("add \(node) \(unit)", nil)
        case .remove(let node): ("remove \(node)", nil)
        case .connect(let from, let to, _): ("connect \(from) \(to)", nil)
        case .disconnect(let from, let to): ("disconnect \(from.map { "\($0) " } ?? "")\(to)", nil)
        case .set(let node, let parameter, let value, _): ("set \(node) \(parameter) \(value)", "set \(node) \(parameter)")
        case .bypass(let node, let on): ("bypass \(node) \(on ? "on" : "off")", nil)
        case .preset(let node, let name?): ("preset \(node) \(CommandTokenizer.quote(name))", nil)
        case .propertySet(let node, let name, let value, _): ("property set \(node) \(name) \(CommandTokenizer.quote(value))", nil)
        case .automate(let node, let parameter, let points, _): ("automate \(node) \(parameter) (\(points.count) points)", nil)
        case .automateClear(let node, let parameter): (["automate clear", node, parameter].compactMap { $0 }.joined(separator: " "), nil)
        case .learn(let node, let parameter, _, _): ("learn \(node) \(parameter)", nil)
        case .unlearn(let node, let parameter): (["learn clear", node, parameter].compactMap { $0 }.joined(separator: " "), nil)
        case .batch(let commands): (commands.compactMap { undoLabel($0)?.label }.joined(separator: " ; "), nil)
        default: nil
        }
    }
}
