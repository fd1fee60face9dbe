import Glibc

/// The file-system reads and folder making that sessions, presets, MIDI files and
/// discovery share, through the C library. Thread: control (they block).
public enum Files {
    /// Why a file was not read.
    public enum ReadError: Error, Sendable, Equatable {
        case missing
        case unreadable(String)
        case folder
        case fifo
        case device
        case tooLarge(bytes: Int)
        case grew
    }

    /// The bytes of the regular file at `path`, at most `limit` of them. A FIFO or a
    /// device is refused before anything is read (the file is opened without blocking),
    /// so a read never waits on a writer that may never come.
    public static func readRegular(_ path: String, limit: Int) throws(ReadError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw errno == ENOENT ? .missing : .unreadable(String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .unreadable(String(cString: strerror(errno))) }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw .folder
        case S_IFIFO: throw .fifo
        default: throw .device
        }
        guard info.st_size <= limit else { throw .tooLarge(bytes: Int(info.st_size)) }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size) + 1)
        var count = 0
        while count < bytes.count {
            let read = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, $0.count - count) }
            if read < 0 && errno == EINTR { continue }
            guard read >= 0 else { throw .unreadable(String(cString: strerror(errno))) }
            if read == 0 { break }
            count += read
        }
        guard count <= limit else { throw .grew }
        bytes.removeLast(bytes.count - count)
        return bytes
    }

    /// The names in a folder (without `.` and `..`); none when it cannot be read.
    public static func entries(of directory: String) -> [String] {
        guard let handle = opendir(directory) else { return [] }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// Creates `path` and its parents with `mode` where they are missing; true when it
    /// is a folder afterwards.
    @discardableResult
    public static func makeDirectories(_ path: String, mode: mode_t = 0o755) -> Bool {
        var partial = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            partial += "/" + component
            if !isDirectory(partial) { mkdir(partial, mode) }
        }
        return isDirectory(path)
    }

    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Why `path` may not hold Trellis' own files (its cache, state and presets), or nil
    /// when it may: it must be a real folder (not a link) of this user's that no one else
    /// may write, in a folder where no one else may replace it (one others may write must
    /// be sticky). A folder that does not exist yet is fine: it is made private.
    public static func privateFolderProblem(_ path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return errno == ENOENT ? nil : "cannot read it: \(String(cString: strerror(errno)))" }
        guard info.st_mode & S_IFMT == S_IFDIR else { return "it is not a folder (a link, or a file)" }
        guard info.st_uid == geteuid() else { return "it belongs to user \(info.st_uid), not to this user (\(geteuid()))" }
        guard info.st_mode & 0o022 == 0 else { return "others may write in it (mode \(String(info.st_mode & 0o777, radix: 8)))" }
        let parent = path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        var outer = stat()
        if stat(parent, &outer) == 0, outer.st_mode & 0o022 != 0, outer.st_mode & S_ISVTX == 0 {
            return "\(parent), which holds it, lets others replace it (mode \(String(outer.st_mode & 0o7777, radix: 8)), not sticky)"
        }
        return nil
    }
}
