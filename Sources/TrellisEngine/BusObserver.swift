import TrellisCore

/// Watches a bus as the program renders: taps, meters, recorders of a node's output.
/// The compiler runs `observe` right after the bus is produced, before anything reads
/// it, so an observer sees every frame in order.
public protocol BusObserver: AnyObject, Sendable {
    /// Sees `frameCount` frames of the bus. Must not write them, allocate, lock or
    /// block. Thread: audio.
    func observe(_ bus: AudioBuffers, frameCount: Int, timeStamp: AudioTimeStamp)
}
