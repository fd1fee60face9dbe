import TrellisAudioFile
import TrellisCore

extension FilePlayer {
    /// One butler pass: tops the ring up. Returns whether it published anything.
    /// Thread: butler.
    func serviceDisk() -> Bool {
        lock.withLock { _ in
            guard let stream, let ring = diskRing else { return false }
            var published = 0
            if stream.failed {
                if stream.endAfterFailure(ring) { published = 1 }
            } else {
                do throws(AudioFileError) {
                    published = try stream.fill(ring, loopCount: loops.load(ordering: .relaxed))
                } catch {
                    diskErrors.append(.file(error, unit: name))
                    stream.endAfterFailure(ring)
                    published = 1
                }
            }
            let damage = stream.reader.damage
            if damage != reportedDamage { newDamage = damage }
            if damage.errorCount > foundDamage.errorCount || damage.silencedFrames > foundDamage.silencedFrames { foundDamage = damage }
            if stream.ended || ring.freeSlots == 0 {
                filledGeneration.store(stream.generation, ordering: .releasing)
            }
            return published > 0
        }
    }

    /// One notifier pass: hands what the render thread and the butler reported to the
    /// handlers, outside the lock. Returns whether it delivered anything. Thread: notifier.
    func deliverNotifications() -> Bool {
        var delivered = false
        while let event = events.pop() {
            delivered = true
            switch event.kind {
            case .time:
                deliverTime(event)
            case .endOfFile:
                let handlers = lock.withLock { _ in
                    finishIfEnded()
                    return Array(listeners.values)
                }
                for handler in handlers { handler(.endOfFile(sampleTime: event.sampleTime)) }
            case .underrun:
                let handlers = lock.withLock { _ in Array(listeners.values) }
                for handler in handlers { handler(.underrun(sampleTime: event.sampleTime, frames: Int(event.value))) }
            }
        }
        let (errors, damage, handlers) = lock.withLock { _ in
            defer { diskErrors.removeAll() }
            let damage = newDamage.flatMap { damage in
                path.map { (path: $0, damage: damage, sampleRate: info?.sampleRate ?? outputRate) }
            }
            if let newDamage { reportedDamage = newDamage }
            newDamage = nil
            return (diskErrors, damage, Array(listeners.values))
        }
        for error in errors {
            delivered = true
            for handler in handlers { handler(.readFailed(error)) }
        }
        if let damage {
            delivered = true
            for handler in handlers { handler(.damaged(path: damage.path, damage: damage.damage, sampleRate: damage.sampleRate)) }
        }
        return delivered
    }

    /// Calls each time observer whose interval boundary the played count crossed.
    private func deliverTime(_ event: PlayerEvent) {
        let (due, time) = lock.withLock { _ in
            if event.played < lastPlayed { lastPlayed = 0 }
            let due = timeObservers.values.filter { observer in
                let frames = Int64(intervalFrames(observer))
                return event.played / frames != lastPlayed / frames
            }.map(\.handler)
            lastPlayed = event.played
            let fileRate = info?.sampleRate ?? outputRate
            let frame = Int((Double(event.value) * fileRate / outputRate).rounded())
            return (due, PlayerTime(sampleTime: event.sampleTime, frame: frame, seconds: Double(event.value) / outputRate))
        }
        for handler in due { handler(time) }
    }
}
