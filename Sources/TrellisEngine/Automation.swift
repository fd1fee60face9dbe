import TrellisCore

/// A point of an automation lane: a parameter's value at a transport frame.
public struct AutomationPoint: Sendable, Hashable, BitwiseCopyable {
    public var frame: Int64
    public var value: Float

    public init(frame: Int64, value: Float) {
        self.frame = frame
        self.value = value
    }
}

/// A parameter's lane as the compiler plans it (Music Player Services' parameter
/// track): points in transport frames, joined by straight lines or held until the next.
public struct AutomationLane: Sendable, Hashable {
    public var unitID: UInt64
    public var parameter: Int32
    public var points: [AutomationPoint]
    public var stepped: Bool
    /// `amp gain`, for the listing.
    public var name: String

    public init(unitID: UInt64, parameter: Int32, points: [AutomationPoint], stepped: Bool, name: String) {
        self.unitID = unitID
        self.parameter = parameter
        self.points = points.sorted { $0.frame < $1.frame }
        self.stepped = stepped
        self.name = name
    }
}

/// The lanes of a program in plain memory, and what they ask of each cycle: parameter
/// events on the frames where the transport passes their points, and, along a line, one
/// every `grid` frames heading for the line's value `grid` frames on, so that a ramp in
/// the parameter's own units (decibels, hertz) is followed closely whatever the unit's
/// own smoothing does between two events. Thread: audio for `events`, control for the rest.
struct AutomationTable {
    struct Lane {
        var slot: Int32
        var parameter: Int32
        var start: Int
        var count: Int
        var stepped: Bool
    }

    /// Frames between the events along a line: 0.67 ms at 48 kHz.
    static let grid: Int64 = 32

    let lanes: UnsafeMutablePointer<Lane>
    let laneCount: Int
    let points: UnsafeMutablePointer<AutomationPoint>

    /// The table in `memory` (the program's). Thread: control.
    init(_ plan: [AutomationLane], in memory: Arena, slot: (UInt64) -> Int32) {
        let usable = plan.filter { !$0.points.isEmpty && slot($0.unitID) >= 0 }
        lanes = memory.take(usable.count)
        points = memory.take(usable.reduce(0) { $0 + $1.points.count })
        var next = 0
        for (index, lane) in usable.enumerated() {
            lanes[index] = Lane(slot: slot(lane.unitID), parameter: lane.parameter, start: next, count: lane.points.count, stepped: lane.stepped)
            for point in lane.points {
                points[next] = point
                next += 1
            }
        }
        laneCount = usable.count
    }

    /// Appends this cycle's automation events to `due` (up to `capacity`). Nothing while
    /// the transport stands; where it jumped (`time.changed`), each lane first puts its
    /// parameter where the lane has it. Thread: audio.
    @inline(__always)
    func events(time: TimeContext, frameCount: Int, into due: UnsafeMutablePointer<DueEvent>, count: inout Int, capacity: Int) {
        guard time.isRolling, laneCount > 0 else { return }
        let start = time.transportFrame, end = start &+ Int64(frameCount)
        for index in 0..<laneCount {
            let lane = lanes[index]
            let first = points[lane.start].frame, last = points[lane.start + lane.count - 1].frame
            func emit(at frame: Int64, value: Float, ramp: Int64) -> Bool {
                guard count < capacity else { return false }
                due[count] = DueEvent(slot: lane.slot, event: .parameter(
                    index: lane.parameter, value: value, rampFrames: Int32(max(1, ramp)), offset: Int32(frame &- start)))
                count &+= 1
                return true
            }
            if lane.stepped {
                if time.changed, !emit(at: start, value: value(lane, at: start), ramp: 1) { return }
                var point = firstPoint(lane, after: start - 1)
                while point < lane.count, points[lane.start + point].frame < end {
                    if !emit(at: points[lane.start + point].frame, value: points[lane.start + point].value, ramp: 1) { return }
                    point &+= 1
                }
                continue
            }
            if end <= first && !time.changed { continue }
            if start >= last {
                if time.changed, !emit(at: start, value: points[lane.start + lane.count - 1].value, ramp: 1) { return }
                continue
            }
            // Along the line: at the grid's frames and at the points, each event heading
            // for the next such frame.
            var frame = time.changed ? start : Self.nextStop(lane, after: start - 1, points: points)
            while frame < end {
                let next = Self.nextStop(lane, after: frame, points: points)
                if frame >= last { break }
                if next <= first {
                    if frame == start && time.changed, !emit(at: frame, value: points[lane.start].value, ramp: 1) { return }
                } else if !emit(at: frame, value: value(lane, at: next), ramp: next &- frame) {
                    return
                }
                frame = next
            }
        }
    }

    /// The next frame after `frame` that is on the grid or a point of the lane.
    @inline(__always)
    private static func nextStop(_ lane: Lane, after frame: Int64, points: UnsafeMutablePointer<AutomationPoint>) -> Int64 {
        let grid = (frame / Self.grid + 1) * Self.grid
        var low = 0, high = lane.count
        while low < high {
            let middle = (low + high) >> 1
            if points[lane.start + middle].frame <= frame { low = middle + 1 } else { high = middle }
        }
        return low < lane.count ? min(grid, points[lane.start + low].frame) : grid
    }

    /// The first point after `frame`.
    @inline(__always)
    private func firstPoint(_ lane: Lane, after frame: Int64) -> Int {
        var low = 0, high = lane.count
        while low < high {
            let middle = (low + high) >> 1
            if points[lane.start + middle].frame <= frame { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The lane's value at `frame`: the first point's before it, the last's after it,
    /// and between two points on the line (or the earlier one's, stepped).
    @inline(__always)
    private func value(_ lane: Lane, at frame: Int64) -> Float {
        let after = firstPoint(lane, after: frame)
        if after == 0 { return points[lane.start].value }
        if after >= lane.count { return points[lane.start + lane.count - 1].value }
        let a = points[lane.start + after - 1], b = points[lane.start + after]
        if lane.stepped || b.frame == a.frame { return a.value }
        let t = Float(Double(frame &- a.frame) / Double(b.frame &- a.frame))
        return a.value + (b.value - a.value) * t
    }
}
