import TrellisCore
import TrellisEngine

extension FilePlayer {
    /// Waits until the ring holds the next `frameCount` frames (or the stream's end), so
    /// an offline cycle never underruns, reading them itself when the butler is behind.
    /// Returns at once when nothing is prepared.
    /// Thread: the rendering thread, between cycles.
    public func waitForStreaming(frameCount: Int) {
        guard let kernel = storedKernel(as: FilePlayerKernel.self) else { return }
        let deadline = HostClock.now() + 30_000_000_000
        while shared.pointee.prepared.load(ordering: .acquiring) {
            kernel.pointee.adoptGeneration()
            // Played to its end: nothing more will come, whatever the notifier is doing.
            if shared.pointee.endedGeneration.load(ordering: .relaxed) == kernel.pointee.generation { return }
            if kernel.pointee.bufferedFrames(atLeast: frameCount) { return }
            if HostClock.now() > deadline { return }
            // Reads the next slot here rather than wait for the butler, which on a
            // machine whose every core renders (parallel rendering) may not get one.
            if serviceDisk() { continue }
            MediaThreads.butler.wake()
            sleepBriefly()
        }
    }
}
