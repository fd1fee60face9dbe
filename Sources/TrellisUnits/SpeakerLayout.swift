/// The output layouts of the 3D mixer, chosen by the output bus's channel count, and
/// how a direction becomes speaker gains. Every layout keeps the sum of squared gains
/// at one, so loudness does not depend on direction. Thread: any.
public enum SpeakerLayout: Sendable {
    /// L R: equal-power panning by the source's left-right component.
    case stereo
    /// L R Ls Rs at -45°, 45°, -135°, 135°.
    case quad
    /// L R C LFE Ls Rs (the WAV/SMPTE order) at -30°, 30°, 0°, -, -110°, 110°. The LFE
    /// channel carries no positioned sound: it is for content routed to it directly.
    case surround51

    public init?(channelCount: Int) {
        switch channelCount {
        case 2: self = .stereo
        case 4: self = .quad
        case 6: self = .surround51
        default: return nil
        }
    }

    public var channelCount: Int {
        switch self {
        case .stereo: 2
        case .quad: 4
        case .surround51: 6
        }
    }

    /// How many speakers make the horizontal ring.
    var ringCount: Int {
        switch self {
        case .stereo: 2
        case .quad: 4
        case .surround51: 5
        }
    }

    /// The ring's speakers sorted by azimuth: (azimuth in degrees, channel). A switch
    /// rather than a table, so the audio thread reads it without touching an array.
    func ringSpeaker(_ index: Int) -> (azimuth: Float, channel: Int) {
        switch (self, index) {
        case (.stereo, 0): (-90, 0)
        case (.stereo, _): (90, 1)
        case (.quad, 0): (-135, 2)
        case (.quad, 1): (-45, 0)
        case (.quad, 2): (45, 1)
        case (.quad, _): (135, 3)
        case (.surround51, 0): (-110, 4)
        case (.surround51, 1): (-30, 0)
        case (.surround51, 2): (0, 2)
        case (.surround51, 3): (30, 1)
        case (.surround51, _): (110, 5)
        }
    }

    /// Gains for a source at `azimuth` (degrees, 0 ahead, positive to the right) and
    /// `elevation` (degrees, positive up), written to `gains[0..<channelCount]`.
    public func gains(azimuth: Float, elevation: Float, into gains: UnsafeMutablePointer<Float>) {
        gains.update(repeating: 0, count: channelCount)
        let radians = Float.pi / 180
        let horizontal = _cos(elevation * radians)
        switch self {
        case .stereo:
            // The left-right component of the direction, as a pan position: at the angle
            // (asin(lateral) / (π/2) + 1) · π/4, whose cosine² is (1 - lateral) / 2.
            let lateral = max(-1, min(1, _sin(azimuth * radians) * horizontal))
            gains[0] = squareRoot((1 - lateral) / 2)
            gains[1] = squareRoot((1 + lateral) / 2)
        case .quad, .surround51:
            let count = ringCount
            var direction = azimuth.truncatingRemainder(dividingBy: 360)
            if direction < ringSpeaker(0).azimuth { direction += 360 }
            var index = count - 1
            for candidate in 0..<count - 1 where direction < ringSpeaker(candidate + 1).azimuth {
                index = candidate
                break
            }
            let from = ringSpeaker(index)
            let to = ringSpeaker((index + 1) % count)
            var span = to.azimuth - from.azimuth
            if span <= 0 { span += 360 }
            let fraction = (direction - from.azimuth) / span * (Float.pi / 2)
            // Overhead sources spread evenly over the ring, keeping the power at one.
            let spread = (1 - horizontal * horizontal) / Float(count)
            let cosine = _cos(fraction), sine = _sin(fraction)
            for speaker in 0..<count { gains[ringSpeaker(speaker).channel] = squareRoot(spread) }
            gains[from.channel] = squareRoot(horizontal * horizontal * cosine * cosine + spread)
            gains[to.channel] = squareRoot(horizontal * horizontal * sine * sine + spread)
        }
    }
}
