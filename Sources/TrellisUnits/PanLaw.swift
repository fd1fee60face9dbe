/// Equal-power panning: left² + right² = 1 for a mono source, so loudness holds across
/// the field and the centre sits at -3 dB. Thread: any.
public enum PanLaw {
    /// Gains for a mono source at `pan` in -1 (left) ... +1 (right): mirror images, so
    /// the centre is the same on both sides and the far side at ±1 is exactly 0.
    @inline(__always)
    public static func mono(_ pan: Float) -> (left: Float, right: Float) {
        let pan = Swift.min(1, Swift.max(-1, pan))
        return (_sin((1 - pan) * (Float.pi / 4)), _sin((1 + pan) * (Float.pi / 4)))
    }

    /// Gains for a stereo source: a balance control that keeps both sides at unity in
    /// the centre and attenuates the far side with the same equal-power curve.
    @inline(__always)
    public static func stereo(_ pan: Float) -> (left: Float, right: Float) {
        // Exactly unity in the centre: √2 · sin(π/4) rounds to 0.99999994 in Float.
        if pan == 0 { return (1, 1) }
        let (left, right) = mono(pan)
        return (Swift.min(1, left * Float(1.4142135623730951)), Swift.min(1, right * Float(1.4142135623730951)))
    }
}
