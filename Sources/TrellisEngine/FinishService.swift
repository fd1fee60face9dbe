import Glibc
import Synchronization
import TrellisCore

/// The finish step of an engine's edits, off the audio thread: frees the programs the
/// audio thread handed back, reads its notifications and what recent programs' units
/// left (log lines, MIDI they sent: `UnitMessageSource`), names their units and hands
/// them to listeners.
///
/// While the engine renders (`startRendering` to `stopRendering`) a plain thread of
/// its own makes a pass every 5 ms; any control thread may make one too (`pass`),
/// since the rings' consumer side is serialized by a lock the audio thread never takes.
/// The audio thread cannot wake the service (that would take a lock); the interval is
/// short against the rings' depth and the 100 ms a listener may wait instead.
final class FinishService: @unchecked Sendable {
    static let intervalNanoseconds = 5_000_000

    /// Producer: the audio thread.
    let retired: SPSCRing<UnsafeMutablePointer<ProgramHandoff>>
    /// Producer: the audio thread.
    let notifications: SPSCRing<EngineNotification>
    let labels = Mutex(UnitLabels())

    private let consumer = Mutex(())
    private let listeners = Mutex<[(token: UInt64, handler: @Sendable (EngineNotice) -> Void)]>([])
    private let upkeep = Mutex<Upkeep?>(nil)
    private let nextToken = Atomic<UInt64>(0)
    private let wakeup = Wakeup()
    /// The running thread and its stop flag; starting and stopping are serialized by this lock.
    private let thread = Mutex<(handle: pthread_t, stopping: StopFlag)?>(nil)

    init(retired: SPSCRing<UnsafeMutablePointer<ProgramHandoff>>, notifications: SPSCRing<EngineNotification>) {
        self.retired = retired
        self.notifications = notifications
    }

    deinit {
        while let handoff = retired.pop() { ProgramHandoff.release(handoff) }
    }

    // MARK: Listeners

    /// Thread: any.
    func addListener(_ handler: @escaping @Sendable (EngineNotice) -> Void) -> UInt64 {
        let token = nextToken.add(1, ordering: .relaxed).newValue
        listeners.withLock { $0.append((token, handler)) }
        return token
    }

    /// Thread: any. A pass already under way may still call the listener once.
    func removeListener(_ token: UInt64) {
        listeners.withLock { $0.removeAll { $0.token == token } }
    }

    // MARK: Passes

    /// Frees what the audio thread handed back and delivers what it reported, in the
    /// order it reported it. Listeners run on the calling thread, outside every lock.
    /// Thread: any but audio.
    @discardableResult
    func pass() -> FinishReport {
        var notices: [EngineNotice] = []
        let freed = consumer.withLock { _ in
            while let notification = notifications.pop() {
                let label = notification.unitID == 0 ? nil : labels.withLock { $0.label(of: notification.unitID) }
                notices.append(EngineNotice(
                    kind: notification.kind, unitID: notification.unitID, sampleTime: notification.sampleTime, unit: label,
                    dropped: Int(notification.count)))
            }
            drainUnits(into: &notices)
            return freeRetired()
        }
        deliver(notices)
        return FinishReport(freedPrograms: freed, notices: notices.count)
    }

    /// Thread: any.
    func setUpkeep(_ body: (@Sendable () -> [EngineNotice])?) {
        upkeep.withLock { $0 = body.map(Upkeep.init) }
    }

    private func deliver(_ notices: [EngineNotice]) {
        guard !notices.isEmpty else { return }
        let current = listeners.withLock { $0.map(\.handler) }
        for notice in notices {
            for handler in current { handler(notice) }
        }
    }

    private func drainUnits(into notices: inout [EngineNotice]) {
        for (unitID, label, source) in labels.withLock({ $0.messageSources() }) {
            let dropped = source.drainMessages { message in
                switch message {
                case .log:
                    notices.append(EngineNotice(kind: .log, unitID: unitID, sampleTime: -1, unit: label, message: message))
                case .midi(let timed, _):
                    notices.append(EngineNotice(
                        kind: .midiOutput, unitID: unitID, sampleTime: timed.sampleTime, unit: label, message: message))
                case .failed(_, let sampleTime):
                    notices.append(EngineNotice(kind: .unitFailed, unitID: unitID, sampleTime: sampleTime, unit: label, message: message))
                case .late:
                    notices.append(EngineNotice(kind: .unitLate, unitID: unitID, sampleTime: -1, unit: label, message: message))
                }
            }
            if dropped > 0 {
                notices.append(EngineNotice(kind: .messagesDropped, unitID: unitID, sampleTime: -1, unit: label, dropped: dropped))
            }
        }
    }

    /// Frees retired programs only; returns how many. Thread: any but audio.
    func collectRetired() -> Int { consumer.withLock { _ in freeRetired() } }

    /// The next raw notification, bypassing listeners. Thread: any but audio.
    func nextNotification() -> EngineNotification? { consumer.withLock { _ in notifications.pop() } }

    private func freeRetired() -> Int {
        var count = 0
        while let handoff = retired.pop() {
            ProgramHandoff.release(handoff)
            count += 1
        }
        return count
    }

    // MARK: Thread

    /// Starts the thread unless it runs. Thread: control.
    func start() {
        thread.withLock { running in
            guard running == nil else { return }
            let stopping = StopFlag()
            let body = Unmanaged.passRetained(ThreadBody { [self] in run(until: stopping) }).toOpaque()
            var handle = pthread_t()
            let status = pthread_create(&handle, nil, { raw in
                Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue().run()
                return nil
            }, body)
            precondition(status == 0, "cannot start an engine's finish thread: error \(status)")
            running = (handle, stopping)
        }
    }

    /// Ends the thread after its current pass and waits for it (unless called from a
    /// listener on it), then, with `finalPass`, makes a last pass on the caller so that
    /// nothing reported before is left undelivered. Thread: control.
    func stop(finalPass: Bool = true) {
        if let (handle, stopping) = thread.withLock({ running in
            defer { running = nil }
            return running
        }) {
            stopping.flag.store(true, ordering: .releasing)
            wakeup.signal()
            if pthread_equal(handle, pthread_self()) != 0 {
                pthread_detach(handle)
            } else {
                pthread_join(handle, nil)
            }
        }
        if finalPass { pass() }
    }

    /// Runs the upkeep, if any, and delivers its notices. Thread: the finish thread.
    func upkeepPass() {
        if let upkeep = upkeep.withLock({ $0 }) { deliver(upkeep.body()) }
    }

    /// True while the thread runs. Thread: any.
    var isRunning: Bool { thread.withLock { $0 != nil } }

    private func run(until stopping: StopFlag) {
        while !stopping.flag.load(ordering: .acquiring) {
            pass()
            upkeepPass()
            wakeup.wait(nanoseconds: Self.intervalNanoseconds)
        }
    }
}

/// What one finish pass did.
public struct FinishReport: Sendable, Equatable {
    /// Programs freed.
    public var freedPrograms: Int
    /// Notices delivered to listeners.
    public var notices: Int
}

/// The upkeep closure in a struct: a bare function type read and written back through
/// the generic lock is wrapped in one more reabstraction thunk at every access, and the
/// chain, one link per finish pass, overflows the stack when it is finally released.
private struct Upkeep {
    var body: @Sendable () -> [EngineNotice]
}

private final class StopFlag: Sendable {
    let flag = Atomic<Bool>(false)
}

private final class ThreadBody {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}
