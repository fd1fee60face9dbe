import Glibc
import TrellisCore

/// Finds LV2 bundles on disk without asking lilv, so that one plugin can be loaded
/// without reading every installed plugin's data.
///
/// The search path is `LV2_PATH` (colon-separated, `~` expanded) or lilv's default.
/// A bundle is any directory in a search-path directory that has a `manifest.ttl`.
/// Finding the bundles that mention a URI is a text search of each manifest for the
/// URI written in full (`<uri>`) or through one of the manifest's `@prefix`es; a false
/// match only costs loading one more bundle. Thread: any.
public struct LV2BundleIndex: Sendable {
    /// lilv's default search path on this system (Debian's build).
    public static let defaultPath = "~/.lv2:/usr/lib/x86_64-linux-gnu/lv2:/usr/lib/lv2:/usr/local/lib/lv2"

    /// Search-path directories, in order.
    public let directories: [String]

    public init(path: String? = nil) {
        let text = path ?? Self.environmentPath ?? Self.defaultPath
        let home = getenv("HOME").map { String(cString: $0) } ?? ""
        directories = text.split(separator: ":").map { entry in
            entry.hasPrefix("~") ? home + entry.dropFirst() : String(entry)
        }
    }

    /// `LV2_PATH` when set and not empty.
    public static var environmentPath: String? {
        guard let value = getenv("LV2_PATH") else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }

    /// Every bundle directory (with a trailing slash), in search-path order.
    public func bundles() -> [String] {
        var found: [String] = []
        for directory in directories {
            for entry in FileSystem.entries(of: directory).sorted() {
                let bundle = directory + (directory.hasSuffix("/") ? "" : "/") + entry + "/"
                if FileSystem.isFile(bundle + "manifest.ttl") { found.append(bundle) }
            }
        }
        return found
    }

    /// What a bundle looked like on disk: its path, the modification times of the
    /// directory and of its manifest, and the manifest's size. Installing, removing or
    /// upgrading a package replaces files, which changes the directory's time.
    public struct Stamp: Sendable, Equatable {
        public var bundle: String
        public var text: String
    }

    /// A stamp for every bundle, in search-path order: what a cache of discovery is
    /// checked against. Two `stat` calls a bundle, since every start-up reads them all.
    public func stamps() -> [Stamp] {
        var found: [Stamp] = []
        for directory in directories {
            for entry in FileSystem.entries(of: directory).sorted() {
                let bundle = directory + (directory.hasSuffix("/") ? "" : "/") + entry + "/"
                var manifest = stat()
                guard stat(bundle + "manifest.ttl", &manifest) == 0, (manifest.st_mode & S_IFMT) == S_IFREG else { continue }
                let text = String(FileSystem.modified(bundle)) + " " + String(FileSystem.nanoseconds(manifest.st_mtim))
                    + " " + String(manifest.st_size)
                found.append(Stamp(bundle: bundle, text: text))
            }
        }
        return found
    }

    /// The bundles whose manifest mentions `uri`.
    public func bundles(mentioning uri: String) -> [String] {
        bundles().filter { bundle in
            guard let text = FileSystem.contents(of: bundle + "manifest.ttl") else { return false }
            return Self.manifest(text, mentions: uri)
        }
    }

    /// The bundles that declare an LV2 specification (the lv2 core vocabulary and its
    /// extensions); lilv needs them for classes, units and port properties.
    public func specificationBundles() -> [String] {
        bundles().filter { bundle in
            guard let text = FileSystem.contents(of: bundle + "manifest.ttl") else { return false }
            return text.contains("Specification")
        }
    }

    /// Whether Turtle text names `uri` in full or through a declared prefix.
    static func manifest(_ text: String, mentions uri: String) -> Bool {
        if text.contains("<\(uri)>") { return true }
        for (prefix, namespace) in prefixes(in: text) where uri.hasPrefix(namespace) {
            let local = uri.dropFirst(namespace.count)
            if containsName(text, prefix + ":" + local) { return true }
        }
        return false
    }

    /// Every URI a Turtle text names, in full (`<uri>`) or through a declared prefix
    /// (`pfx:local`): the inverse of `manifest(_:mentions:)`, for indexing many URIs at
    /// once. Relative references and words in literals come along; they match nothing.
    static func mentionedURIs(in text: String) -> Set<String> {
        let namespaces = Dictionary(prefixes(in: text), uniquingKeysWith: { _, last in last })
        var found: Set<String> = []
        let bytes = Array(text.utf8)
        func isNameByte(_ byte: UInt8) -> Bool {
            (byte >= 0x30 && byte <= 0x3A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x5F || byte == 0x2D || byte == 0x2E || byte >= 0x80
        }
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "<") {
                var end = index + 1
                while end < bytes.count, bytes[end] != UInt8(ascii: ">"), bytes[end] != 0x0A { end += 1 }
                if end < bytes.count, bytes[end] == UInt8(ascii: ">") {
                    found.insert(String(decoding: bytes[(index + 1)..<end], as: UTF8.self))
                }
                index = end + 1
            } else if isNameByte(bytes[index]) {
                var end = index
                while end < bytes.count, isNameByte(bytes[end]) { end += 1 }
                var word = bytes[index..<end]
                while word.last == UInt8(ascii: ".") { word = word.dropLast() }
                if let colon = word.firstIndex(of: UInt8(ascii: ":")),
                   let namespace = namespaces[String(decoding: word[word.startIndex..<colon], as: UTF8.self)] {
                    found.insert(namespace + String(decoding: word[(colon + 1)...], as: UTF8.self))
                }
                index = end
            } else {
                index += 1
            }
        }
        return found
    }

    /// `@prefix name: <namespace> .` declarations.
    static func prefixes(in text: String) -> [(String, String)] {
        var result: [(String, String)] = []
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            guard trimmed.hasPrefix("@prefix") else { continue }
            let rest = trimmed.dropFirst("@prefix".count).drop { $0 == " " || $0 == "\t" }
            guard let colon = rest.firstIndex(of: ":"),
                  let open = rest.firstIndex(of: "<"), let close = rest.firstIndex(of: ">"), open < close
            else { continue }
            result.append((String(rest[..<colon]), String(rest[rest.index(after: open)..<close])))
        }
        return result
    }

    /// Finds `name` where it is not part of a longer prefixed name.
    private static func containsName(_ text: String, _ name: String) -> Bool {
        let haystack = Array(text.utf8), needle = Array(name.utf8)
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        func isNameByte(_ byte: UInt8) -> Bool {
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x5F || byte == 0x2D || byte == 0x3A || byte >= 0x80
        }
        var start = 0
        while start + needle.count <= haystack.count {
            if haystack[start] == needle[0], Array(haystack[start..<start + needle.count]) == needle {
                let before = start == 0 ? UInt8(0x20) : haystack[start - 1]
                let after = start + needle.count < haystack.count ? haystack[start + needle.count] : UInt8(0x20)
                if !isNameByte(before), !isNameByte(after) { return true }
            }
            start += 1
        }
        return false
    }
}

/// The few file-system reads discovery needs, through the C library.
enum FileSystem {
    static func entries(of directory: String) -> [String] { Files.entries(of: directory) }

    static func isFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// The modification time in nanoseconds, or 0 when `path` cannot be read.
    static func modified(_ path: String) -> Int {
        var info = stat()
        guard stat(path, &info) == 0 else { return 0 }
        return nanoseconds(info.st_mtim)
    }

    static func nanoseconds(_ time: timespec) -> Int { time.tv_sec * 1_000_000_000 + time.tv_nsec }

    static func size(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : -1
    }

    /// Writes `text` to `path` through a temporary file renamed over it, so a reader
    /// sees the old file or the new one, never half of one. Returns false on failure.
    @discardableResult
    static func replace(_ path: String, with text: String) -> Bool {
        let temporary = "\(path).\(getpid()).tmp"
        guard let file = fopen(temporary, "wb") else { return false }
        let written = text.utf8.withContiguousStorageIfAvailable { fwrite($0.baseAddress, 1, $0.count, file) }
            ?? Array(text.utf8).withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        let closed = fclose(file) == 0
        guard written == text.utf8.count, closed, rename(temporary, path) == 0 else {
            unlink(temporary)
            return false
        }
        return true
    }

    static func contents(of path: String) -> String? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count <= 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Creates `path` and its parents; true when it exists afterwards.
    @discardableResult
    static func makeDirectories(_ path: String) -> Bool { Files.makeDirectories(path) }

    static var temporaryDirectory: String {
        getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    }
}
