import TrellisAudioFile
import TrellisCore

/// What can go wrong with a player or recorder, naming the unit and the file.
/// A value; any thread.
public enum MediaError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Opening, reading or writing the file failed.
    case file(AudioFileError, unit: String)
    /// The player was asked to prepare or play with no file loaded.
    case noFileLoaded(unit: String)
    /// The unit must be initialized (in a running graph, or by `initialize()`) first.
    case notInitialized(unit: String)
    /// Asked for a position outside the file.
    case seekOutOfRange(frame: Int, frameCount: Int, path: String)
    /// The recorder was asked to record before `prepareToRecord`.
    case notPrepared(unit: String)
    /// The recording settings name something the file cannot hold; nothing was created.
    case invalidSettings(String, unit: String)
    /// Transport commands piled up because nothing has rendered for a while.
    case renderNotKeepingUp(unit: String)
    /// libsoxr refused the rates.
    case resampler(from: Double, to: Double, reason: String)

    public var description: String {
        switch self {
        case .file(let error, let unit): return "\(unit): \(error)"
        case .noFileLoaded(let unit): return "\(unit): no file is loaded"
        case .notInitialized(let unit): return "\(unit): the unit is not initialized (add it to a graph and initialize the graph)"
        case .seekOutOfRange(let frame, let count, let path):
            return "'\(path)': cannot seek to frame \(frame); the file has \(count) frames"
        case .notPrepared(let unit): return "\(unit): call prepareToRecord before recording"
        case .invalidSettings(let reason, let unit): return "\(unit): \(reason)"
        case .renderNotKeepingUp(let unit):
            return "\(unit): too many transport commands are waiting for the render thread (is the graph running?)"
        case .resampler(let from, let to, let reason):
            return "cannot convert \(from) Hz to \(to) Hz: \(reason)"
        }
    }
}
