import CSndfile

/// The one owner of an open `SNDFILE*`: the only place that closes it, exactly once,
/// in `close()` or at deinit.
final class SndfileHandle {
    let path: String
    let info: SF_INFO
    private(set) var file: OpaquePointer?

    /// Opens `path` with libsndfile; `info` describes the file to create when writing.
    init(path: String, mode: Int32, info requested: SF_INFO = SF_INFO()) throws(AudioFileError) {
        self.path = path
        var info = requested
        guard let file = sf_open(path, mode, &info) else {
            throw .cannotOpen(path: path, reason: String(cString: sf_strerror(nil)))
        }
        self.file = file
        self.info = info
    }

    deinit {
        if let file { sf_close(file) }
    }

    var isOpen: Bool { file != nil }

    /// libsndfile's message for the last error on this file.
    var lastError: String {
        guard let file else { return "file is closed" }
        return String(cString: sf_strerror(file))
    }

    /// Closes the file once; later calls do nothing. Returns libsndfile's status, 0 for success.
    @discardableResult
    func close() -> Int32 {
        guard let file else { return 0 }
        self.file = nil
        return sf_close(file)
    }
}
