import Glibc

/// The one rule for every file Trellis writes or replaces: session saves, presets,
/// recorders, render and chain outputs, `recover`. Trellis resolves links itself and
/// writes the path it found, so the kernel's rule for links in shared folders
/// (`fs.protected_symlinks`) never gets to act; this applies it, and more:
///
/// - a symbolic link is followed (where the writer follows links at all) only when its
///   owner is this process's user or root, and, in a folder others may write, only when
///   its owner is this process's user or the folder's;
/// - what is there must be a regular file or nothing: never a FIFO, device, folder or socket;
/// - a file is replaced only when this process's user owns it;
/// - a replacement keeps the old file's permission bits, less set-user-ID, set-group-ID,
///   sticky and others' write.
///
/// Thread: any.
public struct WriteTarget: Sendable {
    /// The file to write: `path` once the links allowed were followed.
    public let path: String
    /// Whether a file is there now.
    public let exists: Bool
    /// The permission bits the new file takes: the old file's, less the bits above; or
    /// 0666 less the process's umask.
    public let mode: mode_t

    /// Checks `path` for a write. With `followingLinks` false, a link there is refused
    /// (recorders and renders write only to plain files).
    public init(_ path: String, followingLinks: Bool) throws(WriteRefusal) {
        var current = path
        for _ in 0..<40 {
            var info = stat()
            guard lstat(current, &info) == 0 else {
                guard errno == ENOENT else { throw WriteRefusal(path, "cannot read \(current): \(String(cString: strerror(errno)))") }
                self.path = current
                exists = false
                mode = Self.newFileMode()
                return
            }
            let kind = info.st_mode & S_IFMT
            if kind == S_IFLNK, followingLinks {
                try Self.checkLink(current, owner: info.st_uid, for: path)
                current = try Self.readLink(current, for: path)
                continue
            }
            guard kind == S_IFREG else {
                let named = current == path ? "it" : "\(current), which it links to,"
                throw WriteRefusal(path, "\(named) is \(Self.describe(kind)), not a regular file; refusing to write it")
            }
            guard info.st_uid == geteuid() else {
                let named = current == path ? "it" : "\(current), which it links to,"
                throw WriteRefusal(path, "\(named) belongs to user \(info.st_uid), not to this user (\(geteuid())); refusing to replace another user's file")
            }
            self.path = current
            exists = true
            mode = info.st_mode & 0o775
            return
        }
        throw WriteRefusal(path, "too many symbolic links")
    }

    /// The kernel's rule for following a link, with root's links trusted too.
    private static func checkLink(_ link: String, owner: uid_t, for path: String) throws(WriteRefusal) {
        let me = geteuid()
        guard owner == me || owner == 0 else {
            throw WriteRefusal(path, "\(link) is a link made by user \(owner), not by this user (\(me)) or root; refusing to follow it")
        }
        var folder = stat()
        let directory = link.lastIndex(of: "/").map { $0 == link.startIndex ? "/" : String(link[..<$0]) } ?? "."
        guard stat(directory, &folder) == 0 else { throw WriteRefusal(path, "cannot read \(directory): \(String(cString: strerror(errno)))") }
        if folder.st_mode & S_IWOTH != 0, owner != me, owner != folder.st_uid {
            throw WriteRefusal(path, "\(link) is a link in \(directory), a folder every user may write, made by user \(owner); refusing to follow it")
        }
    }

    private static func readLink(_ link: String, for path: String) throws(WriteRefusal) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink(link, &buffer, buffer.count - 1)
        guard length > 0 else { throw WriteRefusal(path, "cannot read the link \(link): \(String(cString: strerror(errno)))") }
        let target = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if target.hasPrefix("/") { return target }
        guard let slash = link.lastIndex(of: "/") else { return target }
        return String(link[...slash]) + target
    }

    private static func describe(_ kind: mode_t) -> String {
        switch kind {
        case S_IFDIR: "a directory"
        case S_IFCHR, S_IFBLK: "a device"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFLNK: "a symbolic link"
        default: "not a regular file"
        }
    }

    /// 0666 less the process's umask, read without changing it (`umask` cannot be read
    /// alone, and setting it is process-wide).
    public static func newFileMode() -> mode_t {
        var mask: mode_t = 0o022
        if let file = fopen("/proc/self/status", "r") {
            defer { fclose(file) }
            var line = [CChar](repeating: 0, count: 256)
            while fgets(&line, Int32(line.count), file) != nil {
                let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                guard text.hasPrefix("Umask:") else { continue }
                if let value = mode_t(text.dropFirst(6).filter { $0.isNumber }, radix: 8) { mask = value }
            }
        }
        return 0o666 & ~mask
    }
}

/// Why a file was not written, naming it.
public struct WriteRefusal: Error, CustomStringConvertible, Sendable {
    public let path: String
    public let reason: String

    init(_ path: String, _ reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "cannot write \(path): \(reason)" }
}
