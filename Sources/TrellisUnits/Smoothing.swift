/// How long a parameter step takes when the caller asks for no ramp: long enough that
/// a step never clicks, short enough to feel immediate.
enum Smoothing {
    static let defaultSeconds = 0.02

    /// The ramp length for a change: the caller's when it asked for one, else the
    /// de-zipper default; zero while the unit has not rendered yet, so initial values land at once.
    @inline(__always)
    static func frames(requested: Int, sampleRate: Double, hasRendered: Bool) -> Int {
        guard hasRendered else { return 0 }
        return requested > 0 ? requested : Int(defaultSeconds * sampleRate)
    }
}
