import Foundation
import TrellisAudioFile
import TrellisCore
import TrellisMedia

/// What an `AVAudioRecorder` tells its delegate, as in AVFAudio.
public protocol AVAudioRecorderDelegate: AnyObject {
    /// The recording ended: `stop`, or the end of `record(forDuration:)`.
    func audioRecorderDidFinishRecording(_ recorder: AVAudioRecorder, successfully flag: Bool)
    func audioRecorderEncodeErrorDidOccur(_ recorder: AVAudioRecorder, error: (any Error)?)
}

extension AVAudioRecorderDelegate {
    public func audioRecorderDidFinishRecording(_ recorder: AVAudioRecorder, successfully flag: Bool) {}
    public func audioRecorderEncodeErrorDidOccur(_ recorder: AVAudioRecorder, error: (any Error)?) {}
}

/// Records the input to a file, as AVFAudio's `AVAudioRecorder`: Trellis' recorder
/// watching the input node of the engine the process's players share (a JACK client
/// whose capture ports follow the physical ones). A disk thread writes the file and
/// keeps its header current, so a crash leaves a readable file. Thread: the caller's
/// control thread; the delegate is called on a thread of Trellis' own.
open class AVAudioRecorder: @unchecked Sendable {
    public let url: URL
    public let settings: [String: Any]
    public let format: AVAudioFormat
    public weak var delegate: (any AVAudioRecorderDelegate)?
    private let recording: RecordingSettings
    private var recorder: FileRecorder?
    private var listener: MediaListenerToken?
    private var token: ObserverTokenBox?

    /// Checks `settings` (as `AVAudioFile(forWriting:settings:)` reads them) against the
    /// URL's container; nothing is created until `prepareToRecord`.
    public init(url: URL, settings: [String: Any]) throws {
        let parsed = try FormatSettings(settings)
        guard let container = AudioFileContainer(path: url.path) else {
            throw AVAudioError(.settings, "\(url.path): name the file .wav, .aif, .caf, .flac or .ogg; the extension chooses the container")
        }
        let encoding: RecordingEncoding = switch (parsed.formatID, parsed.isFloat, parsed.bitDepth) {
        case (kAudioFormatVorbis, _, _): .vorbis
        case (kAudioFormatLinearPCM, true, _): .pcm(.float32)
        case (_, _, 24): .pcm(.int24)
        case (_, _, 32): .pcm(.int32)
        default: .pcm(.int16)
        }
        var recording = RecordingSettings(container: container, encoding: encoding, sampleRate: parsed.sampleRate,
                                          channelCount: Int(parsed.channels), dither: false)
        if container == .ogg { recording.quality = Double(parsed.quality) / 127 }
        if (parsed.formatID == kAudioFormatFLAC) != (container == .flac) || (parsed.formatID == kAudioFormatVorbis) != (container == .ogg) {
            throw AVAudioError(.settings, "\(url.path): \(AVFormatIDKey) \(formatName(parsed.formatID)) does not go in a .\(container.rawValue) file")
        }
        self.url = url
        self.settings = settings
        self.recording = recording
        format = AVAudioFormat(sampleRate: parsed.sampleRate, channels: parsed.channels, common: parsed.commonFormat, interleaved: true,
                               formatID: parsed.formatID, bits: parsed.bitDepth)
    }

    deinit {
        if let recorder {
            _ = try? recorder.stop()
            listener.map { recorder.removeListener($0) }
        }
        if let token { SharedPlayback.shared.stopWatching(token) }
    }

    /// Creates the file and joins the shared engine; true when recording can start.
    @discardableResult
    public func prepareToRecord() -> Bool {
        do {
            try prepare()
            return true
        } catch {
            return false
        }
    }

    private func prepare() throws {
        if recorder == nil {
            let (made, token) = try SharedPlayback.shared.watchInput()
            recorder = made
            self.token = token
            listener = made.addListener { [weak self] notification in
                guard let self else { return }
                switch notification {
                case .finished(_, let error): delegate?.audioRecorderDidFinishRecording(self, successfully: error == nil)
                case .writeFailed(let error): delegate?.audioRecorderEncodeErrorDidOccur(self, error: error)
                default: break
                }
            }
        }
        guard let recorder, recorder.recorderState == .idle else { return }
        do { try recorder.prepareToRecord(path: url.path, settings: recording) } catch { throw AVAudioError(.file, "\(error)") }
    }

    @discardableResult
    public func record() -> Bool { start(at: nil, frames: nil) }

    /// Starts at `time` on the shared engine's clock (`deviceCurrentTime`).
    @discardableResult
    public func record(atTime time: Double) -> Bool { start(at: SharedPlayback.shared.sampleTime(at: time), frames: nil) }

    /// Records `duration` seconds, then stops by itself and tells the delegate.
    @discardableResult
    public func record(forDuration duration: Double) -> Bool {
        start(at: nil, frames: Int((duration * SharedPlayback.shared.sampleRate).rounded()))
    }

    @discardableResult
    public func record(atTime time: Double, forDuration duration: Double) -> Bool {
        start(at: SharedPlayback.shared.sampleTime(at: time), frames: Int((duration * SharedPlayback.shared.sampleRate).rounded()))
    }

    private func start(at sampleTime: Int64?, frames: Int?) -> Bool {
        guard prepareToRecord(), let recorder else { return false }
        do { try recorder.record(atSampleTime: sampleTime, frameCount: frames) } catch { return false }
        return true
    }

    /// Holds the recording; `record` goes on in the same file.
    public func pause() { recorder?.pause() }

    /// Ends the recording and closes the file.
    public func stop() { _ = try? recorder?.stop() }

    /// Removes the file; only while not recording.
    @discardableResult
    public func deleteRecording() -> Bool {
        guard !isRecording else { return false }
        return (try? FileManager.default.removeItem(at: url)) != nil
    }

    public var isRecording: Bool { recorder?.isRecording ?? false }

    /// Seconds recorded in this take.
    public var currentTime: Double { Double(recorder?.framesWritten ?? 0) / format.sampleRate }

    /// The shared engine's clock in seconds, for `record(atTime:)`.
    public var deviceCurrentTime: Double { SharedPlayback.shared.deviceTime }

    public var isMeteringEnabled = false

    public func updateMeters() { recorder?.updateMeters() }
    public func peakPower(forChannel channel: Int) -> Float { recorder?.peakPower(forChannel: channel) ?? -160 }
    public func averagePower(forChannel channel: Int) -> Float { recorder?.averagePower(forChannel: channel) ?? -160 }
}
