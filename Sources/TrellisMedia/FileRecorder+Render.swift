import TrellisCore

extension FileRecorder {
    /// Meters the bus and, while recording, copies the frames inside the take's window
    /// into the ring. Thread: audio.
    @inline(__always)
    func capture(_ bus: AudioBuffers, frameCount: Int, timeStamp: AudioTimeStamp) {
        meter.accumulate(bus, frameCount: frameCount)
        fence.enter()
        defer { fence.leave() }
        guard renderState.load(ordering: .sequentiallyConsistent) == 1, let ring else { return }
        let takeNow = take.load(ordering: .relaxed)
        if takeNow != currentTake {
            currentTake = takeNow
            recorded = 0
            takeStart = startTime.load(ordering: .relaxed)
            takeLimit = frameLimit.load(ordering: .relaxed)
            takeFinished = false
        }
        guard !takeFinished else { return }
        let now = timeStamp.sampleTime
        var first = 0
        if takeStart != .min {
            if takeStart >= now + Int64(frameCount) { return }
            first = max(0, Int(takeStart - now))
        }
        var count = frameCount - first
        if takeLimit >= 0 { count = min(count, Int(takeLimit - recorded)) }
        var done = 0
        while done < count {
            guard let slot = ring.writableSlot() else {
                let lost = count - done
                droppedFrames.add(lost, ordering: .relaxed)
                _ = events.push(RecorderEvent(sampleTime: now + Int64(first + done), frames: lost))
                break
            }
            let frames = min(ring.frameCapacity, count - done)
            ChannelMapping.map(bus, from: first + done, to: ring.buffers(slot), frameCount: frames)
            ring.header(slot).pointee.frameCount = frames
            ring.header(slot).pointee.timeStamp = AudioTimeStamp(sampleTime: now + Int64(first + done), hostTime: timeStamp.hostTime)
            ring.commit()
            done += frames
        }
        recorded += Int64(count)
        if takeLimit >= 0 && recorded >= takeLimit {
            takeFinished = true
            finishedTake.store(currentTake, ordering: .releasing)
        }
    }

    /// Waits until the ring has room for the next `frameCount` frames, so an offline
    /// cycle never drops any. Thread: the rendering thread, between cycles.
    public func waitForStreaming(frameCount: Int) {
        guard let ring else { return }
        let slotsNeeded = (frameCount + ring.frameCapacity - 1) / ring.frameCapacity
        let deadline = HostClock.now() + 30_000_000_000
        while renderState.load(ordering: .acquiring) == 1 && ring.freeSlots < slotsNeeded {
            if HostClock.now() > deadline { return }
            MediaThreads.butler.wake()
            sleepBriefly()
        }
    }
}
