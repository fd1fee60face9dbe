import TrellisCore

// The sample checks and copies the program runs between units: finite-output probes,
// the output copy, and channel conversion. Thread: audio.

/// Whether every sample of every bus is finite.
@inline(__always)
func outputsAreFinite(_ buses: BusBuffers, frameCount: Int) -> Bool {
    for bus in 0..<buses.count {
        let view = buses[bus]
        for channel in 0..<view.channelCount where !samplesAreFinite(view[channel], count: frameCount) { return false }
    }
    return true
}

/// Whether the last frame of every channel is finite: the probe for a unit whose state
/// a non-finite value would poison.
@inline(__always)
func lastFramesAreFinite(_ buses: BusBuffers, frameCount: Int) -> Bool {
    guard frameCount > 0 else { return true }
    var probe: Float = 0
    for bus in 0..<buses.count {
        let view = buses[bus]
        for channel in 0..<view.channelCount { probe += view[channel][frameCount &- 1] * 0 }
    }
    return !probe.isNaN
}

/// Copies the graph's output to the backend's buffers and says whether every sample was
/// finite, in one pass: checking and then copying would read the samples twice.
@inline(__always)
func copyFinite(from source: AudioBuffers, to destination: AudioBuffers, frameCount: Int) -> Bool {
    var first = SIMD8<Float>(), second = SIMD8<Float>()
    var probe: Float = 0
    for channel in 0..<destination.channelCount {
        let to = destination[channel]
        guard channel < source.channelCount else {
            to.update(repeating: 0, count: frameCount)
            continue
        }
        if source[channel] == to {
            // A unit wrote this channel in place (`pointOutputBus`): only the check is left.
            probe += samplesAreFinite(to, count: frameCount) ? 0 : .nan
            continue
        }
        let from = UnsafeRawPointer(source[channel]), raw = UnsafeMutableRawPointer(to)
        var frame = 0
        while frame &+ 16 <= frameCount {
            let low = from.loadUnaligned(fromByteOffset: frame &* 4, as: SIMD8<Float>.self)
            let high = from.loadUnaligned(fromByteOffset: (frame &+ 8) &* 4, as: SIMD8<Float>.self)
            raw.storeBytes(of: low, toByteOffset: frame &* 4, as: SIMD8<Float>.self)
            raw.storeBytes(of: high, toByteOffset: (frame &+ 8) &* 4, as: SIMD8<Float>.self)
            first += low * 0
            second += high * 0
            frame &+= 16
        }
        while frame < frameCount {
            let sample = source[channel][frame]
            to[frame] = sample
            probe += sample * 0
            frame &+= 1
        }
    }
    return !(probe + (first + second).sum()).isNaN
}

/// Whether any channel of `a` shares memory with any channel of `b` over `frameCount` frames.
@inline(__always)
func buffersOverlap(_ a: AudioBuffers, _ b: AudioBuffers, frameCount: Int) -> Bool {
    for i in 0..<a.channelCount {
        for j in 0..<b.channelCount where a[i] < b[j] + frameCount && b[j] < a[i] + frameCount { return true }
    }
    return false
}

/// Whether every sample is finite. x * 0 is NaN exactly when x is NaN or infinite, so
/// running sums catch both without a branch per sample; vector lanes (two registers,
/// to hide the adds' latency) keep it a small fraction of any unit's own work.
@inline(__always)
func samplesAreFinite(_ samples: UnsafeMutablePointer<Float>, count: Int) -> Bool {
    let raw = UnsafeRawPointer(samples)
    var first = SIMD8<Float>(), second = SIMD8<Float>()
    var frame = 0
    while frame &+ 16 <= count {
        first += raw.loadUnaligned(fromByteOffset: frame &* 4, as: SIMD8<Float>.self) * 0
        second += raw.loadUnaligned(fromByteOffset: (frame &+ 8) &* 4, as: SIMD8<Float>.self) * 0
        frame &+= 16
    }
    var probe = (first + second).sum()
    while frame < count {
        probe += samples[frame] * 0
        frame &+= 1
    }
    return !probe.isNaN
}

/// Copies `source` into `destination`'s channel count: a mono source to every channel,
/// every channel averaged into a mono destination, otherwise channel by channel.
@inline(__always)
func convertChannels(from source: AudioBuffers, to destination: AudioBuffers, frameCount: Int) {
    if source.channelCount == 1 {
        for channel in 0..<destination.channelCount {
            copySamples(from: source[0], to: destination[channel], count: frameCount)
        }
    } else if destination.channelCount == 1 {
        let out = destination[0]
        let scale = 1 / Float(source.channelCount)
        copySamples(from: source[0], to: out, count: frameCount)
        for channel in 1..<source.channelCount {
            let samples = source[channel]
            for frame in 0..<frameCount { out[frame] += samples[frame] }
        }
        for frame in 0..<frameCount { out[frame] *= scale }
    } else {
        destination.copy(from: source, frameCount: frameCount)
    }
}
