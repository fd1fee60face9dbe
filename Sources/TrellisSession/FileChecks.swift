import Foundation

/// What the loader asks of the file system.
public enum FileChecks {
    public static func isRegularFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
            && FileManager.default.isReadableFile(atPath: path)
    }

    static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// True when the two paths name one file: the same inode when both exist (links and
    /// `..` included), else the same absolute path once `.`/`..` and links are resolved.
    public static func sameFile(_ a: String, _ b: String) -> Bool {
        var first = stat(), second = stat()
        if stat(a, &first) == 0, stat(b, &second) == 0 { return first.st_dev == second.st_dev && first.st_ino == second.st_ino }
        return SessionLoader.standardized(a) == SessionLoader.standardized(b)
    }

    /// Why `path` is not a readable file, to end a sentence.
    public static func problem(_ path: String) -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return "does not exist" }
        return isDirectory.boolValue ? "is a folder, not a file" : "cannot be read"
    }
}
