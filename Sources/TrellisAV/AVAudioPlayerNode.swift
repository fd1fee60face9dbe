import TrellisCore
import TrellisMedia

public typealias AVAudioNodeCompletionHandler = @Sendable () -> Void

/// Plays files, as AVFAudio's `AVAudioPlayerNode`, on Trellis' file player (a disk
/// thread reads ahead; offline renders wait for it, so they are exact).
///
/// This part of TrellisAV schedules one file at a time: a file scheduled while another
/// waits replaces it. Segments, buffers and queues of several come later.
public final class AVAudioPlayerNode: AVAudioNode, @unchecked Sendable {
    private var player: FilePlayer { unit as! FilePlayer }
    private var completion: AVAudioNodeCompletionHandler?
    private var listener: MediaListenerToken?

    public init() {
        super.init(unit: FilePlayer(channelCount: 2))
        listener = player.addListener { [weak self] notification in
            if case .endOfFile = notification { self?.finished() }
        }
    }

    deinit { listener.map { player.removeObserver($0) } }

    /// Queues `file` to play from its start at `when` (nil: as soon as the node plays).
    public func scheduleFile(_ file: AVAudioFile, at when: AVAudioTime?, completionHandler: AVAudioNodeCompletionHandler? = nil) {
        try? player.load(path: file.url.path)
        completion = completionHandler
        startTime = when
    }

    private var startTime: AVAudioTime?

    public var isPlaying: Bool { player.isPlaying }

    /// Starts playing what was scheduled, at once or at `when`'s sample time.
    public func play(at when: AVAudioTime? = nil) {
        let at = (when ?? startTime).flatMap { $0.isSampleTimeValid ? $0.sampleTime : nil }
        try? player.play(atSampleTime: at)
    }

    public func pause() { try? player.pause() }

    /// Stops, and forgets what was scheduled.
    public func stop() { player.stop() }

    private func finished() {
        let handler = completion
        completion = nil
        handler?()
    }
}
