import TrellisCore

/// What went wrong with an audio file, and where. Every case carries the file's path.
/// A value; any thread.
public enum AudioFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// libsndfile could not open the file; `reason` is its message.
    case cannotOpen(path: String, reason: String)
    /// The container is not one Trellis handles: an unknown extension when writing, a
    /// foreign format when reading. `found` names what was there.
    case unsupportedContainer(path: String, found: String)
    /// The container cannot hold the sample type (Core Audio's
    /// `kAudioFileUnsupportedDataFormatError`). Nothing was created.
    case unsupportedSampleType(path: String, container: AudioFileContainer, sampleType: SampleType)
    /// The sample rate or channel count cannot be written. Nothing was created.
    case invalidFormat(path: String, reason: String)
    /// The buffers handed in have a different channel count than the file.
    case channelCountMismatch(path: String, fileChannels: Int, bufferChannels: Int)
    case readFailed(path: String, reason: String)
    case writeFailed(path: String, reason: String)
    /// The reader or writer was used after `close()`.
    case closed(path: String)

    public var path: String {
        switch self {
        case .cannotOpen(let path, _), .unsupportedContainer(let path, _), .unsupportedSampleType(let path, _, _),
             .invalidFormat(let path, _), .channelCountMismatch(let path, _, _), .readFailed(let path, _),
             .writeFailed(let path, _), .closed(let path):
            path
        }
    }

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason):
            return "cannot open '\(path)': \(reason)"
        case .unsupportedContainer(let path, let found):
            let known = AudioFileContainer.allCases.map(\.description).joined(separator: ", ")
            return "'\(path)': unsupported container (\(found)); Trellis handles \(known)"
        case .unsupportedSampleType(let path, let container, let sampleType):
            let held = container.supportedSampleTypes.map(\.description).joined(separator: ", ")
            return "'\(path)': \(container) cannot hold \(sampleType) samples; it holds \(held) (\(container.defaultSampleType) unless you ask for another)"
        case .invalidFormat(let path, let reason):
            return "cannot write '\(path)': \(reason)"
        case .channelCountMismatch(let path, let fileChannels, let bufferChannels):
            return "'\(path)' has \(fileChannels) channel\(fileChannels == 1 ? "" : "s") but the buffers have \(bufferChannels)"
        case .readFailed(let path, let reason):
            return "reading '\(path)' failed: \(reason)"
        case .writeFailed(let path, let reason):
            return "writing '\(path)' failed: \(reason)"
        case .closed(let path):
            return "'\(path)' is already closed"
        }
    }
}
