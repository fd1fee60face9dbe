import TrellisAudioFile
import TrellisChain
import TrellisCore
import TrellisGraph
import TrellisOffline

/// An audio file open through the C interface: read (at its own rate or converted) or
/// written. Owned by the caller's handle until `trellis_file_close`.
final class OpenFile {
    enum Mode {
        case reading(AudioFileReader)
        /// Converted to another rate; `length` at that rate.
        case converting(AudioFileReader, ResampledFileInput, length: Int)
        case writing(AudioFileWriter)
    }

    var mode: Mode
    let sampleRate: Double
    let channels: Int
    /// The read position at the reading rate.
    var position = 0

    init(reading path: String, rate: Double) throws(CommandError) {
        let reader: AudioFileReader
        do { reader = try AudioFileReader(path: path) } catch { throw CommandError("\(error)", kind: .file) }
        channels = reader.info.channelCount
        if rate > 0, rate != reader.info.sampleRate {
            guard rate >= 1_000, rate <= 768_000 else { throw CommandError("sample rate \(rate): give a rate from 1000 to 768000 Hz", kind: .argument) }
            mode = try Self.converter(reader, rate: rate)
            sampleRate = rate
        } else {
            mode = .reading(reader)
            sampleRate = reader.info.sampleRate
        }
    }

    init(writing path: String, rate: Double, channels: Int, sampleType: String?, quality: Double?) throws(CommandError) {
        guard rate >= 1_000, rate <= 768_000 else { throw CommandError("sample rate \(rate): give a rate from 1000 to 768000 Hz", kind: .argument) }
        guard (1...64).contains(channels) else { throw CommandError("channels \(channels): give 1 to 64 channels", kind: .argument) }
        var type: SampleType?
        if let sampleType {
            guard let known = SampleType(rawValue: sampleType.lowercased()) else {
                throw CommandError("sample type \(sampleType): expected float32, int16, int24 or int32", kind: .argument)
            }
            type = known
        }
        let container = AudioFileContainer(path: path)
        let chosen = type ?? container?.defaultSampleType ?? .float32
        do {
            mode = .writing(try AudioFileWriter(path: path, sampleType: chosen, sampleRate: rate, channelCount: channels, quality: quality))
        } catch { throw CommandError("\(error)", kind: .file) }
        sampleRate = rate
        self.channels = channels
    }

    private static func converter(_ reader: AudioFileReader, rate: Double) throws(CommandError) -> Mode {
        do {
            let input = try ResampledFileInput(reader: reader, rate: rate)
            return .converting(reader, input, length: input.frameCount)
        } catch { throw CommandError("\(error)", kind: .file) }
    }

    var length: Int {
        switch mode {
        case .reading(let reader): reader.info.frameCount
        case .converting(_, _, let length): length
        case .writing(let writer): writer.framesWritten
        }
    }

    func read(into channels: [UnsafeMutablePointer<Float>], frames: Int) throws(CommandError) -> Int {
        let count = max(0, min(frames, length - position))
        guard count > 0 else { return 0 }
        let memory = Arena(firstBlock: 1024)
        defer { withExtendedLifetime(memory) {} }
        let table = memory.copy(channels)
        let buffers = AudioBuffers(channelPointers: UnsafePointer(table), channelCount: channels.count)
        do {
            switch mode {
            case .reading(let reader):
                let read = try reader.read(into: buffers, frameCount: count)
                position += read
                return read
            case .converting(_, let input, _):
                try input.fill(buffers, frameCount: count)
                position += count
                return count
            case .writing:
                throw CommandError("the file is open for writing, not reading", kind: .argument)
            }
        } catch let error as CommandError {
            throw error
        } catch {
            throw CommandError("\(error)", kind: .file)
        }
    }

    func seek(to frame: Int) throws(CommandError) {
        guard frame >= 0, frame <= length else { throw CommandError("seek to \(frame): the file has \(length) frames", kind: .argument) }
        do {
            switch mode {
            case .reading(let reader):
                try reader.seek(toFrame: frame)
            case .converting(let reader, _, _):
                // The converter's filter has no position to jump to: start again and read up to the frame.
                try reader.seek(toFrame: 0)
                mode = try Self.converter(reader, rate: sampleRate)
                position = 0
                let scratchList = AudioBufferList(channelCount: channels, frameCapacity: 8192)
                let scratch = (0..<channels).map { scratchList[0][$0] }
                while position < frame { _ = try read(into: scratch, frames: min(8192, frame - position)) }
            case .writing:
                throw CommandError("the file is open for writing; it cannot seek", kind: .argument)
            }
        } catch let error as CommandError {
            throw error
        } catch {
            throw CommandError("\(error)", kind: .file)
        }
        position = frame
    }

    func write(_ channels: [UnsafePointer<Float>], frames: Int) throws(CommandError) {
        guard case .writing(let writer) = mode else { throw CommandError("the file is open for reading, not writing", kind: .argument) }
        let memory = Arena(firstBlock: 1024)
        defer { withExtendedLifetime(memory) {} }
        let table = memory.copy(channels.map { UnsafeMutablePointer(mutating: $0) })
        do { try writer.write(from: AudioBuffers(channelPointers: UnsafePointer(table), channelCount: channels.count), frameCount: frames) } catch {
            throw CommandError("\(error)", kind: .file)
        }
    }

    func close() throws(CommandError) {
        switch mode {
        case .reading(let reader), .converting(let reader, _, _): reader.close()
        case .writing(let writer):
            do { try writer.close() } catch { throw CommandError("\(error)", kind: .file) }
        }
    }
}

private func open(_ file: OpaquePointer?) throws(CommandError) -> OpenFile {
    Unmanaged<OpenFile>.fromOpaque(UnsafeRawPointer(try required(file, "file"))).takeUnretainedValue()
}

@_cdecl("trellis_file_open_read")
public func trellis_file_open_read(_ path: UnsafePointer<CChar>?, _ sampleRate: Double) -> OpaquePointer? {
    calling(failing: { _ in nil }) { () throws(CommandError) in
        let made = try OpenFile(reading: String(cString: try required(path, "path")), rate: sampleRate.isFinite ? sampleRate : -1)
        return OpaquePointer(Unmanaged.passRetained(made).toOpaque())
    }
}

@_cdecl("trellis_file_open_write")
public func trellis_file_open_write(
    _ path: UnsafePointer<CChar>?, _ sampleRate: Double, _ channels: Int32, _ sampleType: UnsafePointer<CChar>?, _ quality: Double
) -> OpaquePointer? {
    calling(failing: { _ in nil }) { () throws(CommandError) in
        let made = try OpenFile(writing: String(cString: try required(path, "path")), rate: sampleRate, channels: Int(channels),
                                sampleType: sampleType.map { String(cString: $0) }, quality: quality < 0 ? nil : quality)
        return OpaquePointer(Unmanaged.passRetained(made).toOpaque())
    }
}

@_cdecl("trellis_file_info")
public func trellis_file_info(
    _ file: OpaquePointer?, _ sampleRate: UnsafeMutablePointer<Double>?, _ channels: UnsafeMutablePointer<Int32>?, _ frames: UnsafeMutablePointer<Int64>?
) -> Int32 {
    calling(failing: { $0 }) { () throws(CommandError) in
        let file = try open(file)
        sampleRate?.pointee = file.sampleRate
        channels?.pointee = Int32(file.channels)
        frames?.pointee = Int64(file.length)
        return Status.ok.rawValue
    }
}

@_cdecl("trellis_file_read")
public func trellis_file_read(_ file: OpaquePointer?, _ channels: UnsafePointer<UnsafeMutablePointer<Float>?>?, _ frames: Int64) -> Int64 {
    calling(failing: { Int64($0) }) { () throws(CommandError) in
        let file = try open(file)
        guard frames >= 0 else { throw CommandError("frames \(frames): give 0 or more", kind: .argument) }
        let table = try required(channels, "channels")
        var pointers: [UnsafeMutablePointer<Float>] = []
        for channel in 0..<file.channels { pointers.append(try required(table[channel], "channels[\(channel)]")) }
        return Int64(try file.read(into: pointers, frames: Int(frames)))
    }
}

@_cdecl("trellis_file_seek")
public func trellis_file_seek(_ file: OpaquePointer?, _ frame: Int64) -> Int32 {
    calling(failing: { $0 }) { () throws(CommandError) in
        try open(file).seek(to: Int(frame))
        return Status.ok.rawValue
    }
}

@_cdecl("trellis_file_tell")
public func trellis_file_tell(_ file: OpaquePointer?) -> Int64 {
    calling(failing: { Int64($0) }) { () throws(CommandError) in
        let file = try open(file)
        if case .writing(let writer) = file.mode { return Int64(writer.framesWritten) }
        return Int64(file.position)
    }
}

@_cdecl("trellis_file_write")
public func trellis_file_write(_ file: OpaquePointer?, _ channels: UnsafePointer<UnsafePointer<Float>?>?, _ frames: Int64) -> Int32 {
    calling(failing: { $0 }) { () throws(CommandError) in
        let file = try open(file)
        guard frames >= 0 else { throw CommandError("frames \(frames): give 0 or more", kind: .argument) }
        guard frames > 0 else { return Status.ok.rawValue }
        let table = try required(channels, "channels")
        var pointers: [UnsafePointer<Float>] = []
        for channel in 0..<file.channels { pointers.append(try required(table[channel], "channels[\(channel)]")) }
        try file.write(pointers, frames: Int(frames))
        return Status.ok.rawValue
    }
}

@_cdecl("trellis_file_close")
public func trellis_file_close(_ file: OpaquePointer?) -> Int32 {
    guard let file else { return Status.ok.rawValue }
    let handle = Unmanaged<OpenFile>.fromOpaque(UnsafeRawPointer(file))
    defer { handle.release() }
    return calling(failing: { $0 }) { () throws(CommandError) in
        try handle.takeUnretainedValue().close()
        return Status.ok.rawValue
    }
}
