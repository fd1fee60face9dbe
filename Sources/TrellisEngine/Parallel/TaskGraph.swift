/// A program's steps as tasks that threads can run side by side: each task a run of
/// steps with no branching, each waiting for the tasks whose results it reads.
///
/// Two steps are ordered when one writes what the other reads or writes: a buffer, a
/// MIDI buffer, a delay line, an observer, a unit's kernel, the backend's output. The
/// rest may run in any order or at once, and every step still reads exactly what it
/// reads in program order, so the output is the single-threaded output bit for bit:
/// sums are formed inside the units, in the order the compiler fixed.
///
/// Tasks are numbered by their first step, which is a topological order. Thread: control.
public struct TaskGraph: Sendable, Equatable {
    public struct Task: Sendable, Equatable {
        /// Program steps, in program order.
        public var steps: [Int]
        /// Tasks that must finish first.
        public var waitsFor: [Int]
        /// Tasks that wait for this one.
        public var successors: [Int]
    }

    public private(set) var tasks: [Task] = []

    /// Steps a resource can be touched by, as far as ordering goes.
    private enum Resource: Hashable {
        case buffer(Int), midi(Int), delay(Int), observer(ObjectIdentifier), unit(UInt64)
        case backendOutput, backendMIDIOutput
    }

    public init(plan: ProgramPlan) {
        let predecessors = Self.dependencies(plan)
        let count = plan.operations.count
        var successorCount = Array(repeating: 0, count: count)
        for steps in predecessors { for step in steps { successorCount[step] += 1 } }
        var taskOf = Array(repeating: -1, count: count)
        for step in 0..<count {
            let before = predecessors[step]
            if before.count == 1, let only = before.first, successorCount[only] == 1 {
                taskOf[step] = taskOf[only]
                tasks[taskOf[step]].steps.append(step)
                continue
            }
            taskOf[step] = tasks.count
            let waits = Set(before.map { taskOf[$0] }).sorted()
            tasks.append(Task(steps: [step], waitsFor: waits, successors: []))
            for task in waits { tasks[task].successors.append(tasks.count - 1) }
        }
    }

    /// For each step, the earlier steps it must follow.
    private static func dependencies(_ plan: ProgramPlan) -> [Set<Int>] {
        var lastWriter: [Resource: Int] = [:]
        var readers: [Resource: [Int]] = [:]
        var result: [Set<Int>] = []
        for (step, operation) in plan.operations.enumerated() {
            let (reads, writes) = access(operation, plan)
            var before = Set<Int>()
            for resource in reads { if let writer = lastWriter[resource] { before.insert(writer) } }
            for resource in writes {
                if let writer = lastWriter[resource] { before.insert(writer) }
                before.formUnion(readers[resource] ?? [])
            }
            before.remove(step)
            for resource in reads { readers[resource, default: []].append(step) }
            for resource in writes {
                lastWriter[resource] = step
                readers[resource] = nil
            }
            result.append(before)
        }
        return result
    }

    private static func access(_ operation: ProgramPlan.Operation, _ plan: ProgramPlan) -> (reads: [Resource], writes: [Resource]) {
        func buffers(_ bus: Int) -> [Resource] {
            plan.buses[bus].buffers.filter { $0 != ProgramPlan.silence }.map { .buffer($0) }
        }
        switch operation {
        case .fillInput(let bus, _):
            return ([], buffers(Int(bus)))
        case .render(let index):
            let unit = plan.units[Int(index)]
            let reads = unit.inputs.flatMap(buffers) + unit.midiInputs.map { .midi($0.buffer) }
            // The unit's kernel, its values and its instances' values: one resource.
            let writes = unit.outputs.flatMap(buffers) + unit.midiOutputs.map { .midi($0) } + [.unit(unit.unit.unitID)]
            return (reads, writes)
        case .copy(let from, let to), .convertChannels(let from, let to):
            return (buffers(Int(from)), buffers(Int(to)))
        case .delay(let line, let from, let to):
            return (buffers(Int(from)), buffers(Int(to)) + [.delay(Int(line))])
        case .emitOutput(let bus):
            return (buffers(Int(bus)), [.backendOutput])
        case .observe(let observer, let bus):
            return (buffers(Int(bus)), [.observer(ObjectIdentifier(plan.observers[Int(observer)].observer))])
        case .fillMIDI(_, let buffer):
            return ([], [.midi(Int(buffer))])
        case .emitMIDI(let sink):
            return (plan.midiSinks[Int(sink)].sources.map { .midi($0) }, [.backendMIDIOutput])
        }
    }

    /// The tasks, one line each: `task 3: steps 4-6, after 0 1`.
    public var listing: String {
        tasks.enumerated().map { index, task in
            var text = "  task \(index): \(task.steps.count == 1 ? "step" : "steps") \(Self.ranges(task.steps))"
            if !task.waitsFor.isEmpty { text += ", after \(task.waitsFor.map(String.init).joined(separator: " "))" }
            return text
        }.joined(separator: "\n")
    }

    /// `0-3 7 9-10`.
    private static func ranges(_ steps: [Int]) -> String {
        var parts: [String] = []
        var start = steps.first ?? 0, last = start
        for step in steps.dropFirst() + [Int.min] {
            if step == last + 1 {
                last = step
                continue
            }
            parts.append(start == last ? "\(start)" : "\(start)-\(last)")
            start = step
            last = step
        }
        return parts.joined(separator: " ")
    }

    /// Whether two tasks can ever run at once: the longest chain is not every step.
    public var canSpread: Bool { longestChain < tasks.reduce(0) { $0 + $1.steps.count } }

    /// The longest chain of tasks, in steps: how far apart the work can be spread.
    public var longestChain: Int {
        var depth = Array(repeating: 0, count: tasks.count)
        for (index, task) in tasks.enumerated() {
            depth[index] = task.steps.count + (task.waitsFor.map { depth[$0] }.max() ?? 0)
        }
        return depth.max() ?? 0
    }
}
