import Synchronization
import TrellisCore

/// What the audio thread keeps about a bridge that answered a cycle late. Plain memory
/// owned by `LV2Bridge`; only the audio thread touches it while the kernel runs.
///
/// A reply past the deadline is not yet a fault: on a loaded machine a ready process
/// can wait milliseconds for a core. Each late cycle outputs as on a fault (silence
/// or the input), the bridge keeps the shared memory until it answers, and the events
/// of the cycles it missed wait here for the next cycle it gets, so a note-off or a
/// parameter change arrives late, never lost. A bridge that answers nothing in time for
/// `hangNanoseconds` is hung, and faulted.
struct BridgeBacklog {
    /// When the first cycle still unanswered in time was posted; 0 while it answers in time.
    var lateSince: UInt64 = 0
    let events: UnsafeMutablePointer<RenderEvent>
    var eventCount = 0
    /// Late cycles since the control side last took the count (`takeLateCycles`).
    let lateCycles: UnsafeMutablePointer<Atomic<Int>>

    /// How long a bridge may answer nothing in time before it counts as hung: longer
    /// than the stalls a loaded machine gives a ready process (a few ms here), short
    /// enough that a hang is reported within 100 ms.
    static let hangNanoseconds: UInt64 = 40_000_000

    static func make(in memory: Arena) -> UnsafeMutablePointer<BridgeBacklog> {
        memory.place(BridgeBacklog(events: memory.take(BridgeLayout.eventCapacity), lateCycles: memory.takeAtomics(1, initial: 0)))
    }

    /// Forgets a late cycle, for a new process. Thread: control, while the kernel is faulted.
    mutating func clear() {
        lateSince = 0
        eventCount = 0
    }

    /// Keeps a missed cycle's events for the next cycle: a parameter's latest value
    /// replaces an earlier one, MIDI is kept in order until the list is full.
    @inline(__always)
    mutating func hold(_ list: RenderEventList) {
        for position in 0..<list.count {
            var event = list[position]
            event.offset = 0
            if event.kind == .parameter, let held = heldParameter(event.index) {
                events[held] = event
            } else if eventCount < BridgeLayout.eventCapacity {
                events[eventCount] = event
                eventCount &+= 1
            }
        }
    }

    @inline(__always)
    private func heldParameter(_ index: Int32) -> Int? {
        for position in 0..<eventCount where events[position].kind == .parameter && events[position].index == index {
            return position
        }
        return nil
    }
}
