import TrellisAudioFile

/// Why a file could not be analyzed, naming the file.
public enum AnalysisError: Error, Sendable, CustomStringConvertible {
    case unsupported(String)
    case file(AudioFileError)
    case empty(path: String)

    public var description: String {
        switch self {
        case .unsupported(let message): message
        case .file(let error): "\(error)"
        case .empty(let path): "\(path): the file holds no audio frames, so there is nothing to measure"
        }
    }
}
