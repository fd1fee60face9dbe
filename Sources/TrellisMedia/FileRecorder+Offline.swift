import TrellisCore

extension FileRecorder {
    /// Waits until the ring has room for the next `frameCount` frames, so an offline
    /// cycle never drops any. Thread: the rendering thread, between cycles.
    public func waitForStreaming(frameCount: Int) {
        guard let ring = kernel.pointee.ring else { return }
        let slotsNeeded = (frameCount + ring.frameCapacity - 1) / ring.frameCapacity
        let deadline = HostClock.now() + 30_000_000_000
        while shared.pointee.renderState.load(ordering: .acquiring) == 1 && ring.freeSlots < slotsNeeded {
            if HostClock.now() > deadline { return }
            MediaThreads.butler.wake()
            sleepBriefly()
        }
    }
}
