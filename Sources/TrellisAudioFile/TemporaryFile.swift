import Glibc

/// A new file of a random name beside a target, for writing there and renaming over the
/// target (or removing). `O_EXCL` and `O_NOFOLLOW`: whatever another user put at a name
/// is never opened, only skipped, so a shared folder cannot turn the write elsewhere.
public enum TemporaryFile {
    /// Creates `FOLDER/.NAME.tmp-RANDOM[.EXTENSION]` (mode 0600) and returns its open
    /// descriptor and path, or the reason it could not. Thread: any.
    public static func create(beside target: String, extension suffix: String? = nil) -> Result<(descriptor: Int32, path: String), TemporaryFileError> {
        let slash = target.lastIndex(of: "/")
        let folder = slash.map { String(target[..<$0]) } ?? "."
        let name = slash.map { String(target[target.index(after: $0)...]) } ?? target
        var random = SystemRandomNumberGenerator()
        for _ in 0..<100 {
            let tag = String(UInt64.random(in: 0...UInt64.max, using: &random), radix: 36)
            let path = "\(folder)/.\(name).tmp-\(tag)" + (suffix.map { "." + $0 } ?? "")
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if descriptor >= 0 { return .success((descriptor, path)) }
            guard errno == EEXIST else { return .failure(TemporaryFileError(description: "cannot create a temporary file in \(folder): \(String(cString: strerror(errno)))")) }
        }
        return .failure(TemporaryFileError(description: "cannot create a temporary file in \(folder): every name tried was taken"))
    }

    /// `create`, closed at once: a name of ours that the caller's writer opens again.
    public static func reserve(beside target: String, extension suffix: String? = nil) -> Result<String, TemporaryFileError> {
        create(beside: target, extension: suffix).map { created in
            close(created.descriptor)
            return created.path
        }
    }
}

/// Why no temporary file could be made, naming the folder.
public struct TemporaryFileError: Error, CustomStringConvertible {
    public let description: String
}
