import Synchronization
import TrellisCore

/// A program's task graph as plain memory, the counters one cycle runs it by, and what
/// measuring decided. Made and freed on the control side with its program.
final class ParallelSchedule: @unchecked Sendable {
    let graph: TaskGraph
    let state: UnsafeMutablePointer<ScheduleState>
    /// The state and every table it points at.
    private let memory = Arena()

    init(_ graph: TaskGraph, choice: Parallelism.Choice, lanes: Int) {
        self.graph = graph
        state = memory.take(1)
        state.initialize(to: ScheduleState(graph, choice: choice, lanes: lanes, in: memory))
    }

    /// The schedule for the listing: its tasks, and what running it decided so far.
    func listing(threads: Int) -> String {
        "schedule: \(graph.tasks.count) tasks for up to \(threads) threads, longest chain \(graph.longestChain) "
            + "of \(graph.tasks.reduce(0) { $0 + $1.steps.count }) steps; \(report)\n" + graph.listing
    }

    /// What measuring decided, from the audio thread's figures. Thread: any.
    var report: ScheduleReport { state.pointee.report }
}

/// How a program with a schedule runs now, and the figures that decided it.
public struct ScheduleReport: Sendable, Equatable, CustomStringConvertible {
    public enum Mode: Int, Sendable {
        /// The first cycles: one thread, timing every task and the whole cycle.
        case measuring = 0
        /// Trying the schedule, timing whole cycles.
        case trying
        /// One thread: the schedule was predicted or measured not to gain.
        case serial
        /// In parallel, as measured faster (or as asked, under `Parallelism.Choice.always`).
        case parallel
    }

    public var mode: Mode
    /// Median time of a cycle on one thread and in parallel, in nanoseconds (0: not measured).
    public var serialNanoseconds: Int
    public var parallelNanoseconds: Int
    /// The tasks' time per cycle, all together and along the longest path.
    public var workNanoseconds: Int
    public var criticalPathNanoseconds: Int
    /// One thread for good: predicted not to gain (too little work, or too little of it
    /// side by side), so no trial follows; the graph then compiles a one-thread program.
    public var isSettled: Bool = false

    public var description: String {
        func micro(_ nanoseconds: Int) -> String {
            let tenths = (nanoseconds + 50) / 100
            return "\(tenths / 10).\(tenths % 10) µs"
        }
        var text: String
        switch mode {
        case .measuring: text = "measuring"
        case .trying: text = "trying in parallel"
        case .serial: text = "single-threaded"
        case .parallel: text = "parallel"
        }
        var figures: [String] = []
        if workNanoseconds > 0 {
            figures.append("work \(micro(workNanoseconds)) per cycle, longest path \(micro(criticalPathNanoseconds))")
        }
        if serialNanoseconds > 0 { figures.append("one thread \(micro(serialNanoseconds))") }
        if parallelNanoseconds > 0 { figures.append("parallel \(micro(parallelNanoseconds))") }
        if !figures.isEmpty { text += " (" + figures.joined(separator: ", ") + ")" }
        return text
    }
}

/// The schedule the audio thread and the workers share: per task its steps, its
/// successors and how many tasks it waits for; per cycle the wait counters, a queue of
/// ready tasks and the count of tasks left; and the measuring that chooses between one
/// thread and several.
///
/// The queue: every task is pushed exactly once per cycle, so it is an array of one
/// slot per task with a push index and a pop index; a pop claims an index below the
/// push index and then waits (a few instructions at most) for its slot to be written.
///
/// The tasks that wait for none (a wide graph's branches) are not queued: each has a
/// home lane (task k of them, lane k modulo the lanes), and a thread takes its own
/// lane's first, then what the queue holds, then another lane's. So a branch runs on
/// the same core cycle after cycle and finds its plugins' state in that core's cache;
/// a thread that is late has its branches taken by the others.
struct ScheduleState {
    let taskCount: Int
    let stepStart: UnsafeMutablePointer<Int32>
    let steps: UnsafeMutablePointer<Int32>
    let successorStart: UnsafeMutablePointer<Int32>
    let successors: UnsafeMutablePointer<Int32>
    let initialWaits: UnsafeMutablePointer<Int32>
    let taskOfStep: UnsafeMutablePointer<Int32>
    let laneCount: Int
    /// The root tasks grouped by home lane: lane l's are `roots[rootStart[l]..<rootStart[l + 1]]`.
    let roots: UnsafeMutablePointer<Int32>
    let rootStart: UnsafeMutablePointer<Int>
    /// Per lane, the next of its roots not yet taken.
    let rootNext: UnsafeMutablePointer<Atomic<Int>>
    let waits: UnsafeMutablePointer<Atomic<Int32>>
    let queue: UnsafeMutablePointer<Atomic<Int32>>
    /// Pop index, push index, tasks left.
    let counters: UnsafeMutablePointer<Atomic<Int>>
    /// Measuring: each task's time summed over the timed cycles; cycle times.
    let cost: UnsafeMutablePointer<UInt64>
    let earliest: UnsafeMutablePointer<UInt64>
    let samples: UnsafeMutablePointer<UInt64>
    /// The report's fields, for the control side.
    let published: UnsafeMutablePointer<Atomic<Int>>
    var phase: Phase
    var cyclesInPhase = 0
    var serialMedian: UInt64 = 0
    /// After a trial measured slower (the machine was busy, a file was being read ahead),
    /// the cycles until the next trial; the wait doubles each time.
    var retryCountdown = 0
    var retryInterval = Self.firstRetry

    enum Phase: Int {
        case warming, timingTasks, tryingParallel, serial, parallel
    }

    static let warmingCycles = 2
    static let timedCycles = 8
    static let firstRetry = 64
    /// Below this much work per cycle, waking a worker costs about what it saves (the
    /// issue's prototype gained 1.13x at 100 µs per cycle with real-time workers).
    static let minimumWorkNanoseconds: UInt64 = 80_000
    static let longestRetry = 16_384
    /// A schedule is tried only when it is predicted to make a cycle this much faster
    /// (4/5 of the time or less), and kept only when measured to (9/10 or less).
    static let predictedGain: (UInt64, UInt64) = (4, 5)
    static let measuredGain: (UInt64, UInt64) = (9, 10)

    /// The tables in `memory` (the schedule's). Thread: control.
    init(_ graph: TaskGraph, choice: Parallelism.Choice, lanes: Int, in memory: Arena) {
        let tasks = graph.tasks
        taskCount = tasks.count
        let homes = max(1, lanes)
        laneCount = homes
        let rootTasks = tasks.indices.filter { tasks[$0].waitsFor.isEmpty }
        let byLane = (0..<homes).map { lane in rootTasks.enumerated().filter { $0.offset % homes == lane }.map(\.element) }
        roots = memory.take(rootTasks.count)
        rootStart = memory.take(laneCount + 1)
        rootNext = memory.takeAtomics(laneCount, initial: 0)
        var nextRoot = 0
        for (lane, homed) in byLane.enumerated() {
            rootStart[lane] = nextRoot
            rootNext[lane].store(nextRoot, ordering: .relaxed)
            for task in homed {
                roots[nextRoot] = Int32(task)
                nextRoot += 1
            }
        }
        rootStart[laneCount] = nextRoot
        let stepCount = tasks.reduce(0) { $0 + $1.steps.count }
        let edgeCount = tasks.reduce(0) { $0 + $1.successors.count }
        stepStart = memory.take(taskCount + 1)
        steps = memory.take(stepCount)
        successorStart = memory.take(taskCount + 1)
        successors = memory.take(edgeCount)
        initialWaits = memory.take(taskCount)
        taskOfStep = memory.take(stepCount)
        var nextStep = 0, nextSuccessor = 0
        for (index, task) in tasks.enumerated() {
            stepStart[index] = Int32(nextStep)
            for step in task.steps {
                steps[nextStep] = Int32(step)
                taskOfStep[step] = Int32(index)
                nextStep += 1
            }
            successorStart[index] = Int32(nextSuccessor)
            for successor in task.successors {
                successors[nextSuccessor] = Int32(successor)
                nextSuccessor += 1
            }
            initialWaits[index] = Int32(task.waitsFor.count)
        }
        stepStart[taskCount] = Int32(nextStep)
        successorStart[taskCount] = Int32(nextSuccessor)
        waits = memory.takeAtomics(taskCount, initial: 0)
        queue = memory.takeAtomics(taskCount, initial: -1)
        counters = memory.takeAtomics(3, initial: 0)
        cost = memory.take(taskCount, repeating: 0)
        earliest = memory.take(taskCount)
        samples = memory.take(Self.timedCycles)
        published = memory.takeAtomics(6, initial: 0)
        phase = choice == .always ? .parallel : .warming
        published[0].store(phase == .parallel ? ScheduleReport.Mode.parallel.rawValue : 0, ordering: .relaxed)
    }

    var report: ScheduleReport {
        ScheduleReport(
            mode: ScheduleReport.Mode(rawValue: published[0].load(ordering: .relaxed)) ?? .measuring,
            serialNanoseconds: published[1].load(ordering: .relaxed),
            parallelNanoseconds: published[2].load(ordering: .relaxed),
            workNanoseconds: published[3].load(ordering: .relaxed),
            criticalPathNanoseconds: published[4].load(ordering: .relaxed),
            isSettled: published[5].load(ordering: .relaxed) != 0)
    }

    // MARK: - A parallel cycle

    /// Sets the counters for a cycle, its roots all untaken. Thread: audio, before the
    /// cycle is posted to the workers.
    @inline(__always)
    func begin() {
        for task in 0..<taskCount {
            waits[task].store(initialWaits[task], ordering: .relaxed)
            queue[task].store(-1, ordering: .relaxed)
        }
        for lane in 0..<laneCount { rootNext[lane].store(rootStart[lane], ordering: .relaxed) }
        counters[0].store(0, ordering: .relaxed)
        counters[1].store(0, ordering: .relaxed)
        counters[2].store(taskCount, ordering: .releasing)
    }

    /// A task for `lane`: its own roots first, then the queue, then other lanes' roots;
    /// -1 when none is ready now. Thread: audio or worker.
    @inline(__always)
    func take(lane: Int) -> Int32 {
        let own = takeRoot(of: lane)
        if own >= 0 { return own }
        let queued = pop()
        if queued >= 0 { return queued }
        for other in 0..<laneCount where other != lane {
            let taken = takeRoot(of: other)
            if taken >= 0 { return taken }
        }
        return -1
    }

    @inline(__always)
    private func takeRoot(of lane: Int) -> Int32 {
        let end = rootStart[lane &+ 1]
        var index = rootNext[lane].load(ordering: .relaxed)
        while index < end {
            let (exchanged, original) = rootNext[lane].weakCompareExchange(
                expected: index, desired: index &+ 1, ordering: .acquiringAndReleasing)
            if exchanged { return roots[index] }
            index = original
        }
        return -1
    }

    /// True while tasks of the cycle are left. Thread: audio or worker.
    @inline(__always)
    var hasTasksLeft: Bool { counters[2].load(ordering: .acquiring) > 0 }

    @inline(__always)
    func push(_ task: Int32) {
        let index = counters[1].wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue
        queue[index].store(task, ordering: .releasing)
    }

    /// A queued task, or -1 when none is queued now. Thread: audio or worker.
    @inline(__always)
    private func pop() -> Int32 {
        var index = counters[0].load(ordering: .relaxed)
        while true {
            guard index < counters[1].load(ordering: .acquiring) else { return -1 }
            let (exchanged, original) = counters[0].weakCompareExchange(
                expected: index, desired: index &+ 1, ordering: .acquiringAndReleasing)
            if exchanged { break }
            index = original
        }
        while true {
            let task = queue[index].load(ordering: .acquiring)
            if task >= 0 { return task }
            spinHint()
        }
    }

    /// Marks `task` done: queues the successors it was the last wait of. Thread: the
    /// thread that ran it.
    @inline(__always)
    func complete(_ task: Int32) {
        let first = Int(successorStart[Int(task)]), end = Int(successorStart[Int(task) &+ 1])
        for position in first..<end {
            let successor = successors[position]
            if waits[Int(successor)].wrappingSubtract(1, ordering: .acquiringAndReleasing).oldValue == 1 { push(successor) }
        }
        counters[2].wrappingSubtract(1, ordering: .releasing)
    }

    // MARK: - Measuring

    /// Whether this cycle runs in parallel.
    @inline(__always)
    var runsInParallel: Bool { phase == .parallel || phase == .tryingParallel }
    @inline(__always)
    var timesTasks: Bool { phase == .timingTasks }
    @inline(__always)
    var timesCycles: Bool { phase == .timingTasks || phase == .tryingParallel }

    /// Runs on one thread from now on, as measuring would have left it with no workers.
    /// Thread: audio.
    @inline(__always)
    mutating func settleOnOneThread() {
        guard phase != .serial, phase != .parallel else { return }
        phase = .serial
        retryCountdown = 0
        published[5].store(1, ordering: .relaxed)
        published[0].store(ScheduleReport.Mode.serial.rawValue, ordering: .relaxed)
    }

    /// Adds a step's time to its task's. Thread: audio.
    @inline(__always)
    func addCost(step: Int, nanoseconds: UInt64) {
        cost[Int(taskOfStep[step])] &+= nanoseconds
    }

    /// Moves the measuring on after a cycle of `nanoseconds` (when timed), deciding
    /// with `threads` threads at hand. Thread: audio.
    mutating func cycleEnded(nanoseconds: UInt64, threads: Int) {
        switch phase {
        case .parallel: return
        case .serial:
            guard retryCountdown > 0 else { return }
            retryCountdown &-= 1
            guard retryCountdown == 0 else { return }
            for task in 0..<taskCount { cost[task] = 0 }
            phase = .timingTasks
            cyclesInPhase = 0
            published[0].store(ScheduleReport.Mode.measuring.rawValue, ordering: .relaxed)
            return
        case .warming, .timingTasks, .tryingParallel: break
        }
        if timesCycles { samples[cyclesInPhase] = nanoseconds }
        cyclesInPhase &+= 1
        let needed = phase == .warming ? Self.warmingCycles : Self.timedCycles
        guard cyclesInPhase >= needed else { return }
        cyclesInPhase = 0
        switch phase {
        case .warming:
            phase = .timingTasks
        case .timingTasks:
            serialMedian = median()
            published[1].store(Int(serialMedian), ordering: .relaxed)
            phase = predictsGain(threads: threads) ? .tryingParallel : .serial
            if phase == .serial { published[5].store(1, ordering: .relaxed) }
        case .tryingParallel:
            let parallel = median()
            published[2].store(Int(parallel), ordering: .relaxed)
            phase = parallel &* Self.measuredGain.1 <= serialMedian &* Self.measuredGain.0 ? .parallel : .serial
            if phase == .serial {
                retryCountdown = retryInterval
                retryInterval = min(retryInterval &* 2, Self.longestRetry)
            }
        case .serial, .parallel:
            break
        }
        let mode: ScheduleReport.Mode = switch phase {
        case .warming, .timingTasks: .measuring
        case .tryingParallel: .trying
        case .serial: .serial
        case .parallel: .parallel
        }
        published[0].store(mode.rawValue, ordering: .relaxed)
    }

    /// From the timed tasks: whether the longest path, or the work shared out, is
    /// enough shorter than all the work. Thread: audio.
    private func predictsGain(threads: Int) -> Bool {
        var work: UInt64 = 0, critical: UInt64 = 0
        for task in 0..<taskCount { earliest[task] = 0 }
        for task in 0..<taskCount {
            work &+= cost[task]
            let finish = earliest[task] &+ cost[task]
            critical = max(critical, finish)
            for position in Int(successorStart[task])..<Int(successorStart[task &+ 1]) {
                let successor = Int(successors[position])
                earliest[successor] = max(earliest[successor], finish)
            }
        }
        let cycles = UInt64(Self.timedCycles)
        published[3].store(Int(work / cycles), ordering: .relaxed)
        published[4].store(Int(critical / cycles), ordering: .relaxed)
        guard threads > 1, work / cycles >= Self.minimumWorkNanoseconds else { return false }
        let spread = max(critical, work / UInt64(threads))
        return spread &* Self.predictedGain.1 <= work &* Self.predictedGain.0
    }

    /// The median of the timed cycles (sorted in place; there are few).
    private func median() -> UInt64 {
        let count = Self.timedCycles
        for index in 1..<count {
            let value = samples[index]
            var position = index
            while position > 0 && samples[position &- 1] > value {
                samples[position] = samples[position &- 1]
                position &-= 1
            }
            samples[position] = value
        }
        return samples[count / 2]
    }
}
