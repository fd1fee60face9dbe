import Glibc

/// Repairs a WAV or CAF file whose header was never finished (the program writing it
/// was killed): the header says fewer frames than the data that follows it, often
/// none. The sizes are rewritten to cover every whole frame on disk; a partial frame at
/// the end is cut off. Nothing else in the file changes.
///
/// Thread: any (one call per file at a time).
public enum AudioFileRecovery {
    public struct Report: Sendable, Equatable {
        /// Frames the header declared before.
        public var framesBefore: Int
        /// Frames it declares now (the same when nothing needed repair).
        public var framesAfter: Int
        public var repaired: Bool { framesAfter != framesBefore }

        public init(framesBefore: Int, framesAfter: Int) {
            self.framesBefore = framesBefore
            self.framesAfter = framesAfter
        }
    }

    public static func recover(_ path: String) throws(AudioFileError) -> Report {
        let fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw .cannotOpen(path: path, reason: "not a regular file")
        }
        let file = RawFile(fd: fd, size: Int64(info.st_size), path: path)
        let magic = try file.bytes(at: 0, count: 4)
        switch String(decoding: magic, as: UTF8.self) {
        case "RIFF": return try recoverWAV(file)
        case "caff": return try recoverCAF(file)
        default: throw .readFailed(path: path, reason: "not a WAV (RIFF) or CAF file: only those can be recovered")
        }
    }

    // MARK: WAV

    private static func recoverWAV(_ file: RawFile) throws(AudioFileError) -> Report {
        guard String(decoding: try file.bytes(at: 8, count: 4), as: UTF8.self) == "WAVE" else {
            throw .readFailed(path: file.path, reason: "a RIFF file that is not WAVE")
        }
        var offset: Int64 = 12
        var blockAlign: Int64 = 0
        var factSizeAt: Int64?
        while offset + 8 <= file.size {
            let id = String(decoding: try file.bytes(at: offset, count: 4), as: UTF8.self)
            let size = Int64(try file.littleUInt32(at: offset + 4))
            switch id {
            case "fmt ": blockAlign = Int64(try file.littleUInt16(at: offset + 8 + 12))
            case "fact": factSizeAt = offset + 8
            case "data":
                guard blockAlign > 0 else { throw .readFailed(path: file.path, reason: "no fmt chunk before the data") }
                let start = offset + 8
                let available = (file.size - start) / blockAlign * blockAlign
                let declared = size
                // A finished file: the declared data fits and what follows is more chunks.
                if declared > 0, declared <= file.size - start, try file.chunksFollow(at: start + declared + (declared & 1), littleEndian: true) {
                    return Report(framesBefore: Int(declared / blockAlign), framesAfter: Int(declared / blockAlign))
                }
                guard available <= Int64(UInt32.max) - start else {
                    throw .readFailed(path: file.path, reason: "its data is too long for a WAV header (over 4 GiB)")
                }
                try file.writeLittleUInt32(UInt32(available), at: offset + 4)
                try file.writeLittleUInt32(UInt32(start + available - 8), at: 4)
                if let factSizeAt { try file.writeLittleUInt32(UInt32(available / blockAlign), at: factSizeAt) }
                try file.truncate(to: start + available)
                return Report(framesBefore: Int(min(declared, file.size - start) / blockAlign), framesAfter: Int(available / blockAlign))
            default: break
            }
            offset += 8 + size + (size & 1)
        }
        throw .readFailed(path: file.path, reason: "no data chunk")
    }

    // MARK: CAF

    private static func recoverCAF(_ file: RawFile) throws(AudioFileError) -> Report {
        var offset: Int64 = 8
        var bytesPerPacket: Int64 = 0
        while offset + 12 <= file.size {
            let id = String(decoding: try file.bytes(at: offset, count: 4), as: UTF8.self)
            let size = try file.bigInt64(at: offset + 4)
            switch id {
            case "desc": bytesPerPacket = Int64(try file.bigUInt32(at: offset + 12 + 16))
            case "data":
                guard bytesPerPacket > 0 else {
                    throw .readFailed(path: file.path, reason: "no desc chunk of constant-size frames before the data")
                }
                // The data chunk starts with a 4-byte edit count.
                let start = offset + 12 + 4
                let available = max(0, file.size - start) / bytesPerPacket * bytesPerPacket
                let declared = max(0, size - 4)
                if size > 4, declared <= file.size - start, try file.chunksFollow(at: start + declared, littleEndian: false) {
                    return Report(framesBefore: Int(declared / bytesPerPacket), framesAfter: Int(declared / bytesPerPacket))
                }
                try file.writeBigInt64(available + 4, at: offset + 4)
                try file.truncate(to: start + available)
                let before = size < 0 ? 0 : min(declared, file.size - start)
                return Report(framesBefore: Int(before / bytesPerPacket), framesAfter: Int(available / bytesPerPacket))
            default: break
            }
            guard size >= 0 else { break }
            offset += 12 + size
        }
        throw .readFailed(path: file.path, reason: "no data chunk")
    }
}

/// Reads and writes at offsets, with errors that name the file.
private struct RawFile {
    let fd: Int32
    let size: Int64
    let path: String

    func bytes(at offset: Int64, count: Int) throws(AudioFileError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        guard pread(fd, &buffer, count, off_t(offset)) == count else {
            throw .readFailed(path: path, reason: "the file ends inside its header (at byte \(offset))")
        }
        return buffer
    }

    func littleUInt16(at offset: Int64) throws(AudioFileError) -> UInt16 {
        let b = try bytes(at: offset, count: 2)
        return UInt16(b[0]) | UInt16(b[1]) << 8
    }

    func littleUInt32(at offset: Int64) throws(AudioFileError) -> UInt32 {
        try bytes(at: offset, count: 4).reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    func bigUInt32(at offset: Int64) throws(AudioFileError) -> UInt32 {
        try bytes(at: offset, count: 4).reduce(0) { $0 << 8 | UInt32($1) }
    }

    func bigInt64(at offset: Int64) throws(AudioFileError) -> Int64 {
        Int64(bitPattern: try bytes(at: offset, count: 8).reduce(0) { $0 << 8 | UInt64($1) })
    }

    /// True at the end of the file, or where a chunk header (four printable ASCII
    /// characters and a size that fits) begins.
    func chunksFollow(at offset: Int64, littleEndian: Bool) throws(AudioFileError) -> Bool {
        if offset == size { return true }
        let header = littleEndian ? 8 : 12
        guard offset + Int64(header) <= size else { return false }
        let id = try bytes(at: offset, count: 4)
        guard id.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return false }
        let length = littleEndian ? Int64(try littleUInt32(at: offset + 4)) : try bigInt64(at: offset + 4)
        return length >= 0 && offset + Int64(header) + length <= size
    }

    func writeLittleUInt32(_ value: UInt32, at offset: Int64) throws(AudioFileError) {
        try write((0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }, at: offset)
    }

    func writeBigInt64(_ value: Int64, at offset: Int64) throws(AudioFileError) {
        let bits = UInt64(bitPattern: value)
        try write((0..<8).reversed().map { UInt8(truncatingIfNeeded: bits >> ($0 * 8)) }, at: offset)
    }

    func write(_ bytes: [UInt8], at offset: Int64) throws(AudioFileError) {
        guard pwrite(fd, bytes, bytes.count, off_t(offset)) == bytes.count else {
            throw .writeFailed(path: path, reason: String(cString: strerror(errno)))
        }
    }

    func truncate(to length: Int64) throws(AudioFileError) {
        guard length < size else { return }
        guard ftruncate(fd, off_t(length)) == 0, fsync(fd) == 0 else {
            throw .writeFailed(path: path, reason: String(cString: strerror(errno)))
        }
    }
}
