import TrellisCore

extension RenderProgram {
    /// Runs a cycle of a program that has a schedule: on this thread while measuring
    /// (timing its tasks, then whole cycles) or once one thread was found faster; with
    /// the workers otherwise. Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    func runScheduled(_ schedule: UnsafeMutablePointer<ScheduleState>, _ cycle: CycleArguments, crew: CrewState) {
        let started = schedule.pointee.timesCycles ? hostNanoseconds() : 0
        if schedule.pointee.runsInParallel {
            runInParallel(schedule, cycle, crew: crew)
        } else if schedule.pointee.timesTasks {
            var before = hostNanoseconds()
            for step in 0..<operationCount {
                perform(step, cycle, lanes[0])
                let after = hostNanoseconds()
                schedule.pointee.addCost(step: step, nanoseconds: after &- before)
                before = after
            }
        } else {
            for step in 0..<operationCount { perform(step, cycle, lanes[0]) }
        }
        let ended = started == 0 ? 0 : hostNanoseconds()
        schedule.pointee.cycleEnded(nanoseconds: ended &- started, threads: min(laneCount, crew.workerCount &+ 1))
    }

    /// Posts the cycle to the workers, takes tasks on lane 0 until none is left, takes
    /// the job back, and moves what the workers reported to the engine's ring.
    /// Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    private func runInParallel(_ schedule: UnsafeMutablePointer<ScheduleState>, _ cycle: CycleArguments, crew: CrewState) {
        cycleSlot.pointee = cycle
        schedule.pointee.begin()
        crew.post(Unmanaged.passUnretained(self).toOpaque())
        runTasks(schedule, cycle, lane: 0)
        crew.retract()
        let faults = lanes[0].faults
        for lane in 1..<laneCount {
            guard let ring = lanes[lane].faults else { continue }
            while let notification = ring.pop() { _ = faults?.push(notification) }
        }
    }

    /// Takes tasks of the posted cycle on `lane` until none is left. Thread: a render
    /// worker (see `CrewState.work`).
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    func work(lane: Int) {
        guard lane < laneCount, let scheduleState else { return }
        runTasks(scheduleState, cycleSlot.pointee, lane: lane)
    }

    @inline(__always)
    private func runTasks(_ schedule: UnsafeMutablePointer<ScheduleState>, _ cycle: CycleArguments, lane index: Int) {
        let state = schedule.pointee, lane = lanes[index]
        while state.hasTasksLeft {
            let task = state.take(lane: index)
            guard task >= 0 else {
                spinHint()
                continue
            }
            for position in Int(state.stepStart[Int(task)])..<Int(state.stepStart[Int(task) &+ 1]) {
                perform(Int(state.steps[position]), cycle, lane)
            }
            state.complete(task)
        }
    }
}
