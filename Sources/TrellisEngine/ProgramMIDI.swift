import TrellisCore

// How a program routes MIDI: the event merge and the tables of sources and sinks.

/// Merges `runCount` runs, each in time order, into `target`; equal offsets keep the
/// runs' order. k-way by scanning the heads: k is the few sources of one input.
/// Returns how many were written (at most `capacity`; the rest are dropped).
/// Thread: audio.
@inline(__always)
func mergeEventRuns(_ runs: UnsafeMutablePointer<MergeRun>, _ runCount: Int, into target: UnsafeMutablePointer<RenderEvent>, capacity: Int) -> Int {
    var written = 0
    while written < capacity {
        var best = -1
        var bestOffset = Int32.max
        for run in 0..<runCount where runs[run].cursor < runs[run].count {
            let offset = runs[run].base.unsafelyUnwrapped[runs[run].cursor].offset
            if offset < bestOffset {
                best = run
                bestOffset = offset
            }
        }
        guard best >= 0 else { break }
        var event = runs[best].base.unsafelyUnwrapped[runs[best].cursor]
        if runs[best].bus >= 0 { event.index = runs[best].bus }
        target[written] = event
        written &+= 1
        runs[best].cursor &+= 1
    }
    return written
}

/// A MIDI buffer feeding a unit's MIDI input `bus` (or a sink, bus 0).
struct MIDISourceEntry {
    var buffer: Int32
    var bus: Int32
}

/// A backend MIDI output port and where its sources sit in the source table.
struct MIDISinkEntry {
    var port: Int32
    var sourceStart: Int32
    var sourceCount: Int32
}

/// One time-ordered run of events being merged; `bus` >= 0 retags MIDI events with it.
struct MergeRun {
    var base: UnsafePointer<RenderEvent>?
    var count: Int
    var cursor = 0
    var bus: Int32

    init(base: UnsafePointer<RenderEvent>?, count: Int, bus: Int32) {
        self.base = base
        self.count = count
        self.bus = bus
    }
}
