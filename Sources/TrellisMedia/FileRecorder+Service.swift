extension FileRecorder {
    /// One butler pass: writes what the ring holds; closes the file once a take with a
    /// length has been fully written. Returns whether it did anything. Thread: butler.
    func serviceDisk() -> Bool {
        lock.withLock { _ in
            guard let stream, let ring = diskRing else { return false }
            // Read before draining: every slot of a finished take was published before.
            let takeDone = shared.pointee.finishedTake.load(ordering: .acquiring) == stream.take
            let (slots, failure) = stream.drain(ring)
            if let failure { pendingNotifications.append(.writeFailed(failure)) }
            if takeDone && ring.filledSlots == 0 {
                _ = finishStream(stream)
                return true
            }
            return slots > 0
        }
    }

    /// One notifier pass: hands overruns, failures and finished recordings to the
    /// listeners, outside the lock. Thread: notifier.
    func deliverNotifications() -> Bool {
        var notes: [RecorderNotification] = []
        while let event = events.pop() { notes.append(.overrun(sampleTime: event.sampleTime, frames: event.frames)) }
        let handlers = lock.withLock { _ in
            notes += pendingNotifications
            pendingNotifications.removeAll()
            return Array(listeners.values)
        }
        for note in notes {
            for handler in handlers { handler(note) }
        }
        return !notes.isEmpty
    }
}
