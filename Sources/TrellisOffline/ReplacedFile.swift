import Glibc

/// An output file that a render is about to replace, moved aside so that releasing its
/// blocks and cached pages (some milliseconds for a large file, which opening it with
/// truncation would spend before the first frame) happens on another thread while the
/// render runs.
///
/// Only a plain file of this user's with one link, of at least a megabyte, is moved;
/// anything else (a symbolic link, a hard-linked file, a small file, another user's file)
/// is left for the writer, which truncates it or refuses it (`WriteTarget`). The new file
/// takes the old one's permission bits, less set-id bits and others' write. Thread: control.
final class ReplacedFile {
    private let path: String
    private let aside: String?
    private let mode: mode_t
    private var remover: StageThread?

    init(path: String) {
        self.path = path
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid(), info.st_nlink == 1,
              info.st_size >= 1 << 20 else {
            aside = nil
            mode = 0
            return
        }
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let candidate = directory + ".\(name).trellis-replaced-\(getpid())"
        aside = rename(path, candidate) == 0 ? candidate : nil
        // As `WriteTarget` says: no set-id bits, no write for others.
        mode = info.st_mode & 0o775
    }

    /// The new file exists: give it the old one's permissions and start removing the old one.
    func replaced() {
        guard let aside else { return }
        chmod(path, mode)
        remover = StageThread { unlink(aside) }
    }

    /// The new file could not be made: put the old one back.
    func restore() {
        guard let aside else { return }
        rename(aside, path)
    }

    /// Waits for the old file to be gone.
    func finish() {
        remover?.join()
        remover = nil
    }
}
