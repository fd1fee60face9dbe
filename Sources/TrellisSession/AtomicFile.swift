import TrellisAudioFile
import Glibc

/// Replaces a file so that a crash at any moment leaves either the old content or the
/// new, never a mix, and so that nothing but the file meant is touched.
///
/// The path is followed through symbolic links to the file they name (a session kept
/// as a link is saved in its target); what is there must be a regular file or nothing:
/// a device, FIFO, directory or socket is refused, never replaced. The new content goes
/// to a temporary file of a random name created beside the target with `O_EXCL` (so a
/// link planted there is never followed), takes the old file's mode, is fsynced, renamed
/// over, and the folder is fsynced so the rename itself is durable.
enum AtomicFile {
    /// `mayReplace` is asked once, just before the rename: false (the caller gave up
    /// waiting) leaves the old file and removes the new one. Thread: control.
    static func write(_ bytes: [UInt8], to path: String, mayReplace: () -> Bool = { true }) throws(SessionWriteError) {
        func failure(_ what: String, _ code: Int32 = errno) -> SessionWriteError {
            SessionWriteError(path: path, reason: "\(what): \(String(cString: strerror(code)))")
        }
        let target = try regularTarget(of: path)
        let folder = SessionLoader.directoryOf(target)
        var existing = stat()
        let mode = stat(target, &existing) == 0 ? existing.st_mode & 0o7777 : newFileMode()

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

    /// The file `path` names once symbolic links are followed: a regular file, or no
    /// file yet. Anything else is refused.
    static func regularTarget(of path: String) throws(SessionWriteError) -> String {
        var current = path
        for _ in 0..<40 {
            var info = stat()
            guard lstat(current, &info) == 0 else {
                if errno == ENOENT { return current }
                throw SessionWriteError(path: path, reason: "cannot read \(current): \(String(cString: strerror(errno)))")
            }
            switch info.st_mode & S_IFMT {
            case S_IFREG:
                return current
            case S_IFLNK:
                var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
                let length = readlink(current, &buffer, buffer.count - 1)
                guard length > 0 else {
                    throw SessionWriteError(path: path, reason: "cannot read the link \(current): \(String(cString: strerror(errno)))")
                }
                let link = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                current = link.hasPrefix("/") ? link : SessionLoader.resolve(link, in: SessionLoader.directoryOf(current))
            default:
                let kind = switch info.st_mode & S_IFMT {
                case S_IFDIR: "a directory"
                case S_IFCHR, S_IFBLK: "a device"
                case S_IFIFO: "a FIFO"
                case S_IFSOCK: "a socket"
                default: "not a regular file"
                }
                let named = current == path ? "it" : "\(current), which it links to,"
                throw SessionWriteError(path: path, reason: "\(named) is \(kind), not a session file; refusing to replace it")
            }
        }
        throw SessionWriteError(path: path, reason: "too many symbolic links")
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

    /// 0666 less the process's umask, read without changing it (`umask` cannot be read
    /// alone, and setting it is process-wide).
    private static func newFileMode() -> mode_t {
        var mask: mode_t = 0o022
        if let file = fopen("/proc/self/status", "r") {
            defer { fclose(file) }
            var line = [CChar](repeating: 0, count: 256)
            while fgets(&line, Int32(line.count), file) != nil {
                let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if text.hasPrefix("Umask:"), let value = mode_t(text.dropFirst(6).trimmingWhitespace, radix: 8) { mask = value }
            }
        }
        return 0o666 & ~mask
    }
}

extension Substring {
    fileprivate var trimmingWhitespace: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" || last == "\n" { text.removeLast() }
        return text
    }
}
