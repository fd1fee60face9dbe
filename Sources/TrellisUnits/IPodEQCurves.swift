/// The iPod EQ's factory curves. Each curve is ten peaking biquads (RBJ cookbook, Q = √2,
/// one octave wide) at `IPodEQ.bandFrequencies`, with these gains in dB; the response of
/// a preset is the product of its ten sections' responses. The gains are Trellis' own,
/// modelled on the character of the iPod/iTunes presets of the same names.
extension IPodEQ {
    public static let bandFrequencies: [Float] = [32, 64, 125, 250, 500, 1000, 2000, 4000, 8000, 16000]
    public static let bandQ: Float = Float(2).squareRoot()

    public static let curves: [(name: String, gains: [Float])] = [
        ("Flat", [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
        ("Acoustic", [5, 4.9, 3.9, 1, 1.7, 1.7, 3.5, 4.1, 3.5, 2.1]),
        ("Bass Booster", [5.5, 4.2, 3.5, 2.5, 1.2, 0, 0, 0, 0, 0]),
        ("Bass Reducer", [-5.5, -4.2, -3.5, -2.5, -1.2, 0, 0, 0, 0, 0]),
        ("Classical", [4.7, 3.7, 3, 2.5, -1.5, -1.5, 0, 2.2, 3.2, 3.7]),
        ("Dance", [3.6, 6.5, 5, 0, 1.9, 3.6, 5.1, 4.5, 3.6, 0]),
        ("Deep", [4.9, 3.5, 1.7, 1, 2.8, 2.5, 1.4, -2.1, -3.5, -4.6]),
        ("Electronic", [4.2, 3.8, 1.2, 0, -2.1, 2.2, 0.8, 1.2, 3.9, 4.8]),
        ("Hip-Hop", [5, 4.2, 1.5, 3, -1, -1, 1.5, -0.5, 2, 3]),
        ("Jazz", [4, 3, 1.5, 2.2, -1.5, -1.5, 0, 1.5, 3, 3.7]),
        ("Latin", [4.5, 3, 0, 0, -1.5, -1.5, -1.5, 0, 3, 4.5]),
        ("Loudness", [6, 4, 0, 0, -2, 0, -1, -5, 5, 1]),
        ("Lounge", [-3, -1.5, -0.5, 1.5, 4, 2.5, 0, -1.5, 2, 1]),
        ("Piano", [3, 2, 0, 2.5, 3, 1.5, 3.5, 4.5, 3, 3.5]),
        ("Pop", [-1.5, -1, 0, 2, 4, 4, 2, 0, -1, -1.5]),
        ("R&B", [2.6, 6.9, 5.6, 1.3, -2.2, -1.5, 2.3, 2.6, 3, 3.7]),
        ("Rock", [5, 4, 3, 1.5, -0.5, -1, 0.5, 2.5, 3.5, 4.5]),
        ("Small Speakers", [5.5, 4.2, 3.5, 2.5, 1.2, 0, -1.2, -2.5, -3.5, -4.2]),
        ("Spoken Word", [-3.5, -0.5, 0, 0.7, 3.5, 4.6, 4.8, 4.3, 2.5, 0]),
        ("Treble Booster", [0, 0, 0, 0, 0, 1.2, 2.5, 3.5, 4.2, 5.5]),
        ("Treble Reducer", [0, 0, 0, 0, 0, -1.2, -2.5, -3.5, -4.2, -5.5]),
        ("Vocal Booster", [-1.5, -3, -3, 1.5, 3.7, 3.7, 3, 1.5, 0, -1.5]),
    ]
}
