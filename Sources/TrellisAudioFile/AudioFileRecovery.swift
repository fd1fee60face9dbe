import Glibc

/// Repairs a WAV or CAF file whose header was never finished (the program writing it
/// was killed): the header says fewer frames than the data that follows it, often
/// none. The sizes are rewritten to cover every whole frame on disk; the bytes of a
/// partial frame at the end stay in the file, outside the data. Nothing else changes,
/// and the file never gets shorter: the repair is made in a copy beside it, which is
/// renamed over it. A header whose frame size is not what its channels and sample size
/// make is not trusted, and the file is left alone.
///
/// Thread: any (one call per file at a time).
public enum AudioFileRecovery {
    public struct Report: Sendable, Equatable {
        /// Frames the header declared before.
        public var framesBefore: Int
        /// Frames it declares now (the same when nothing needed repair).
        public var framesAfter: Int
        /// Whether the header was rewritten (its sizes may have been wrong even where the
        /// frames it covered were right).
        public var repaired: Bool

        public init(framesBefore: Int, framesAfter: Int, repaired: Bool? = nil) {
            self.framesBefore = framesBefore
            self.framesAfter = framesAfter
            self.repaired = repaired ?? (framesAfter != framesBefore)
        }
    }

    public static func recover(_ path: String) throws(AudioFileError) -> Report {
        // The repaired copy replaces the file: only a plain file of this user's (`WriteTarget`).
        do { _ = try WriteTarget(path, followingLinks: false) } catch { throw .cannotOpen(path: path, reason: error.reason) }
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
            case "fmt ":
                let format = try file.littleUInt16(at: offset + 8)
                let channels = Int64(try file.littleUInt16(at: offset + 8 + 2))
                blockAlign = Int64(try file.littleUInt16(at: offset + 8 + 12))
                let bits = Int64(try file.littleUInt16(at: offset + 8 + 14))
                guard [1, 3, 6, 7, 0xFFFE].contains(format) else {
                    throw .readFailed(path: file.path, reason: "its format (0x\(String(format, radix: 16))) is not PCM or float; nothing was changed")
                }
                try trust(file, channels: channels, bits: bits, frameBytes: blockAlign, what: "block align")
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
                var patches = [(Int64(offset + 4), littleEndian(UInt32(available))), (Int64(4), littleEndian(UInt32(start + available - 8)))]
                if let factSizeAt { patches.append((factSizeAt, littleEndian(UInt32(available / blockAlign)))) }
                try file.rewrite(patches)
                return Report(framesBefore: Int(min(declared, file.size - start) / blockAlign), framesAfter: Int(available / blockAlign), repaired: true)
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
            case "desc":
                let format = String(decoding: try file.bytes(at: offset + 12 + 8, count: 4), as: UTF8.self)
                bytesPerPacket = Int64(try file.bigUInt32(at: offset + 12 + 16))
                let framesPerPacket = try file.bigUInt32(at: offset + 12 + 20)
                let channels = Int64(try file.bigUInt32(at: offset + 12 + 24))
                let bits = Int64(try file.bigUInt32(at: offset + 12 + 28))
                guard format == "lpcm", framesPerPacket == 1 else {
                    throw .readFailed(path: file.path, reason: "it is not linear PCM of one frame a packet; nothing was changed")
                }
                try trust(file, channels: channels, bits: bits, frameBytes: bytesPerPacket, what: "bytes per packet")
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
                try file.rewrite([(offset + 4, bigEndian(available + 4))])
                let before = size < 0 ? 0 : min(declared, file.size - start)
                return Report(framesBefore: Int(before / bytesPerPacket), framesAfter: Int(available / bytesPerPacket), repaired: true)
            default: break
            }
            guard size >= 0 else { break }
            offset += 12 + size
        }
        throw .readFailed(path: file.path, reason: "no data chunk")
    }
}

extension AudioFileRecovery {
    /// A frame size is trusted only when it is what the channels and the sample size make.
    private static func trust(_ file: RawFile, channels: Int64, bits: Int64, frameBytes: Int64, what: String) throws(AudioFileError) {
        guard (1...1024).contains(channels), [8, 16, 24, 32, 64].contains(bits) else {
            throw .readFailed(path: file.path, reason: "its header cannot be trusted: \(channels) channels of \(bits) bits; nothing was changed")
        }
        guard frameBytes == channels * bits / 8 else {
            throw .readFailed(path: file.path, reason: "its header cannot be trusted: a \(what) of \(frameBytes) bytes, where \(channels) channels of \(bits) bits make \(channels * bits / 8); nothing was changed")
        }
    }

    private static func littleEndian(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }

    private static func bigEndian(_ value: Int64) -> [UInt8] {
        let bits = UInt64(bitPattern: value)
        return (0..<8).reversed().map { UInt8(truncatingIfNeeded: bits >> ($0 * 8)) }
    }
}

/// Reads at offsets, and writes a repaired copy, with errors that name the file.
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

    /// Copies the whole file beside it (`TemporaryFile`), writes `patches` into the copy,
    /// gives it the file's mode (less set-id bits and others' write, as `WriteTarget`
    /// says), flushes it and renames it over the file: the file is the old one or the
    /// repaired one, never shorter, never half-written.
    func rewrite(_ patches: [(offset: Int64, bytes: [UInt8])]) throws(AudioFileError) {
        let (copy, temporary): (Int32, String)
        switch TemporaryFile.create(beside: path) {
        case .success(let created): (copy, temporary) = created
        case .failure(let error): throw .writeFailed(path: path, reason: error.description)
        }
        func fail(_ what: String) -> AudioFileError {
            let reason = "\(what): \(String(cString: strerror(errno)))"
            close(copy)
            unlink(temporary)
            return .writeFailed(path: path, reason: reason)
        }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var input: Int64 = 0
        while input < size {
            let count = pread(fd, &buffer, min(buffer.count, Int(size - input)), off_t(input))
            guard count > 0, Glibc.write(copy, buffer, count) == count else { throw fail("cannot copy it to \(temporary)") }
            input += Int64(count)
        }
        for patch in patches {
            guard pwrite(copy, patch.bytes, patch.bytes.count, off_t(patch.offset)) == patch.bytes.count else { throw fail("cannot write \(temporary)") }
        }
        var info = stat()
        guard fstat(fd, &info) == 0, fchmod(copy, info.st_mode & 0o775) == 0 else { throw fail("cannot give \(temporary) the file's mode") }
        guard fsync(copy) == 0 else { throw fail("cannot flush \(temporary) to disk") }
        guard rename(temporary, path) == 0 else { throw fail("cannot rename \(temporary) over it") }
        close(copy)
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let directory = open(folder.isEmpty ? "/" : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }
}
