/// Conversions between linear amplitude and decibels, with the -160 dB floor that
/// AVAudioPlayer's meters use for silence. Thread: any.
public enum Decibels {
    /// What a meter reports for silence.
    public static let floor: Float = -160

    @inline(__always)
    public static func gain(_ decibels: Float) -> Float { Float(exp10Double(Double(decibels) / 20)) }

    /// 20·log10 of an amplitude, never below `floor`.
    @inline(__always)
    public static func fromAmplitude(_ amplitude: Float) -> Float {
        amplitude > 0 ? Swift.max(floor, 20 * _log10(amplitude)) : floor
    }

    /// 10·log10 of a mean square (the RMS level in dB), never below `floor`.
    @inline(__always)
    public static func fromMeanSquare(_ meanSquare: Float) -> Float {
        meanSquare > 0 ? Swift.max(floor, 10 * _log10(meanSquare)) : floor
    }
}
