/// Whether the session has changes its own file does not hold: edits count up, a save
/// to the session's own file records the count it wrote, and the session is dirty
/// while the two differ. A session manager hears each change of that state.
extension ControlDispatcher {
    /// Tells `handler` each time the session comes to have unsaved changes, and each time
    /// a save to its own file leaves it with none. Thread: any but the dispatcher's queue.
    public func observeUnsavedChanges(_ handler: @escaping @Sendable (Bool) -> Void) {
        queue.sync { savedState.handler = handler }
    }

    /// Puts the session under a session manager: which file is open is the manager's
    /// choice, so `load` is refused with `reason` (NSM: "Open MUST be disabled").
    /// Thread: any but the dispatcher's queue.
    public func refuseLoad(because reason: String) {
        queue.sync { savedState.loadRefusal = reason }
    }

    /// Counts `command` as an edit when it changed what a save writes. Queue only.
    func noteEdit(_ command: ControlCommand, _ reply: ControlReply) {
        guard case .ok = reply, Self.changesSavedSession(command) else { return }
        countEdit()
    }

    /// One more change a save would write. Queue only.
    func countEdit() {
        savedState.edits += 1
        reportSavedState()
    }

    /// A save of edit count `edits` reached the session's own file. Queue only.
    func noteSaved(_ edits: Int) {
        savedState.saved = edits
        reportSavedState()
    }

    /// A newly loaded session is what its file holds. Queue only.
    func noteLoaded() {
        savedState.edits = 0
        savedState.saved = 0
        reportSavedState()
    }

    private func reportSavedState() {
        let dirty = savedState.edits != savedState.saved
        guard dirty != savedState.reported else { return }
        savedState.reported = dirty
        savedState.handler?(dirty)
    }

    /// The commands whose success changes the document `save` writes. `learn` counts
    /// when its controller is heard (`learnJob`), `load` starts anew (`noteLoaded`).
    static func changesSavedSession(_ command: ControlCommand) -> Bool {
        switch command {
        case .learn, .load: false
        case .undo, .redo, .jackConnect, .jackDisconnect: true
        default: undoLabel(command) != nil
        }
    }
}

/// The dispatcher's record of edits and saves (queue only).
struct SavedState {
    var edits = 0
    var saved = 0
    var reported = false
    var handler: (@Sendable (Bool) -> Void)?
    var loadRefusal: String?
}
