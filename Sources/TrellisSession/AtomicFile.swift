import TrellisAudioFile
import Glibc

/// Replaces a file so that a crash at any moment leaves either the old content or the
/// new, never a mix, and so that nothing but the file meant is touched.
///
/// The path is followed through symbolic links to the file they name (a session kept
/// as a link is saved in its target), as `WriteTarget` allows: links another user made,
/// files another user owns, devices, FIFOs, directories and sockets are refused, never
/// replaced. The new content goes to a temporary file of a random name created beside
/// the target with `O_EXCL` (so a link planted there is never followed), takes the old
/// file's mode (less set-id bits and others' write), is fsynced, renamed over, and the
/// folder is fsynced so the rename itself is durable.
enum AtomicFile {
    /// `mayReplace` is asked once, just before the rename: false (the caller gave up
    /// waiting) leaves the old file and removes the new one. Thread: control.
    static func write(_ bytes: [UInt8], to path: String, mayReplace: () -> Bool = { true }) throws(SessionWriteError) {
        func failure(_ what: String, _ code: Int32 = errno) -> SessionWriteError {
            SessionWriteError(path: path, reason: "\(what): \(String(cString: strerror(code)))")
        }
        let resolved: WriteTarget
        do { resolved = try WriteTarget(path, followingLinks: true) } catch { throw SessionWriteError(path: path, reason: error.reason) }
        let target = resolved.path, mode = resolved.mode
        let folder = SessionLoader.directoryOf(target)

        let (fd, temporary) = try createTemporary(beside: target, in: folder, path: path)
        func abandon(_ error: SessionWriteError) -> SessionWriteError {
            close(fd)
            unlink(temporary)
            return error
        }
        guard fchmod(fd, mode) == 0 else { throw abandon(failure("cannot set the mode of \(temporary)")) }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in Glibc.write(fd, buffer.baseAddress! + written, buffer.count - written) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw abandon(failure("cannot write \(temporary)")) }
            written += count
        }
        guard fsync(fd) == 0 else { throw abandon(failure("cannot flush \(temporary) to disk")) }
        close(fd)
        guard mayReplace() else {
            unlink(temporary)
            throw SessionWriteError(path: path, reason: "not replaced: the save was abandoned")
        }
        guard rename(temporary, target) == 0 else {
            let error = failure("cannot rename \(temporary) over \(target)")
            unlink(temporary)
            throw error
        }
        let directory = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }

    /// A new file of a random name beside `target`, open for writing (`TemporaryFile`).
    private static func createTemporary(beside target: String, in folder: String, path: String) throws(SessionWriteError) -> (Int32, String) {
        switch TemporaryFile.create(beside: folder + "/" + baseName(target)) {
        case .success(let created): return (created.descriptor, created.path)
        case .failure(let error): throw SessionWriteError(path: path, reason: error.description)
        }
    }

    private static func baseName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
