import Glibc

/// Replaces a file so that a crash at any moment leaves either the old content or the
/// new, never a mix: write `NAME.tmp-PID` beside it, fsync it, rename it over, fsync
/// the folder so the rename itself is durable.
enum AtomicFile {
    /// Thread: control.
    static func write(_ bytes: [UInt8], to path: String) throws(SessionWriteError) {
        let folder = SessionLoader.directoryOf(path)
        let temporary = "\(path).tmp-\(getpid())"
        func failure(_ what: String, _ code: Int32 = errno) -> SessionWriteError {
            SessionWriteError(path: path, reason: "\(what): \(String(cString: strerror(code)))")
        }
        var mode: mode_t = 0o644
        var existing = stat()
        if stat(path, &existing) == 0 { mode = existing.st_mode & 0o7777 }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw failure("cannot create \(temporary)") }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in Glibc.write(fd, buffer.baseAddress! + written, buffer.count - written) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                let error = failure("cannot write \(temporary)")
                close(fd)
                unlink(temporary)
                throw error
            }
            written += count
        }
        guard fsync(fd) == 0 else {
            let error = failure("cannot flush \(temporary) to disk")
            close(fd)
            unlink(temporary)
            throw error
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let error = failure("cannot rename \(temporary) over it")
            unlink(temporary)
            throw error
        }
        let directory = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }
}
