import TrellisCore
import TrellisEngine

extension FilePlayer {
    /// Waits until the ring holds the next `frameCount` frames (or the stream's end), so
    /// an offline cycle never underruns. Returns at once when nothing is prepared.
    /// Thread: the rendering thread, between cycles.
    public func waitForStreaming(frameCount: Int) {
        guard let kernel = storage?.pointer else { return }
        let deadline = HostClock.now() + 30_000_000_000
        while shared.prepared.pointee.load(ordering: .acquiring) {
            kernel.pointee.adoptGeneration()
            // Played to its end: nothing more will come, whatever the notifier is doing.
            if shared.endedGeneration.pointee.load(ordering: .relaxed) == kernel.pointee.generation { return }
            if kernel.pointee.bufferedFrames(atLeast: frameCount) { return }
            if HostClock.now() > deadline { return }
            MediaThreads.butler.wake()
            sleepBriefly()
        }
    }
}
