import TrellisCore

/// Moving frames between libsndfile's interleaved scratch and the graph's separate
/// channels. Stereo, the common case, runs as vector shuffles (four and eight frames at
/// a time); other widths run a strided loop per channel. Thread: any; no allocation.
enum FrameInterleaving {
    /// Splits `count` interleaved frames of `destination.channelCount` channels from
    /// `source` into `destination`, starting `offset` frames into each channel.
    @inline(__always)
    static func deinterleave(_ source: UnsafePointer<Float>, into destination: AudioBuffers, offset: Int, count: Int) {
        let channels = destination.channelCount
        switch channels {
        case 1:
            (destination[0] + offset).update(from: source, count: count)
        case 2:
            deinterleaveStereo(source, left: destination[0] + offset, right: destination[1] + offset, count: count)
        default:
            for channel in 0..<channels {
                let samples = destination[channel] + offset
                for frame in 0..<count { samples[frame] = source[frame &* channels &+ channel] }
            }
        }
    }

    /// Writes `count` frames of `source`, from `offset` frames into each channel, to
    /// `destination` as interleaved frames.
    @inline(__always)
    static func interleave(_ source: AudioBuffers, offset: Int, count: Int, into destination: UnsafeMutablePointer<Float>) {
        let channels = source.channelCount
        switch channels {
        case 1:
            destination.update(from: source[0] + offset, count: count)
        case 2:
            interleaveStereo(left: source[0] + offset, right: source[1] + offset, into: destination, count: count)
        default:
            for channel in 0..<channels {
                let samples = source[channel] + offset
                for frame in 0..<count { destination[frame &* channels &+ channel] = samples[frame] }
            }
        }
    }

    static func deinterleaveStereo(_ source: UnsafePointer<Float>, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, count: Int) {
        let raw = UnsafeRawPointer(source)
        var frame = 0
        while frame &+ 8 <= count {
            let pair = raw.loadUnaligned(fromByteOffset: frame &* 8, as: SIMD16<Float>.self)
            UnsafeMutableRawPointer(left + frame).storeBytes(of: pair.evenHalf, as: SIMD8<Float>.self)
            UnsafeMutableRawPointer(right + frame).storeBytes(of: pair.oddHalf, as: SIMD8<Float>.self)
            frame &+= 8
        }
        while frame < count {
            left[frame] = source[frame &* 2]
            right[frame] = source[frame &* 2 &+ 1]
            frame &+= 1
        }
    }

    static func interleaveStereo(left: UnsafePointer<Float>, right: UnsafePointer<Float>, into destination: UnsafeMutablePointer<Float>, count: Int) {
        let raw = UnsafeMutableRawPointer(destination)
        var frame = 0
        while frame &+ 4 <= count {
            let l = UnsafeRawPointer(left + frame).loadUnaligned(as: SIMD4<Float>.self)
            let r = UnsafeRawPointer(right + frame).loadUnaligned(as: SIMD4<Float>.self)
            raw.storeBytes(of: SIMD8(l[0], r[0], l[1], r[1], l[2], r[2], l[3], r[3]), toByteOffset: frame &* 8, as: SIMD8<Float>.self)
            frame &+= 4
        }
        while frame < count {
            destination[frame &* 2] = left[frame]
            destination[frame &* 2 &+ 1] = right[frame]
            frame &+= 1
        }
    }
}
