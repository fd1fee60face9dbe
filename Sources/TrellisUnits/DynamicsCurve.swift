/// The dynamics processor's static curve: the output level, in dB, a steady input level
/// maps to. Above the threshold the level rises by 1/`ratio` dB a dB, through a soft
/// knee `kneeWidth` dB wide centred on the threshold (the quadratic of Giannoulis, Massberg
/// and Reiss, "Digital Dynamic Range Compressor Design", JAES 2012); below the expansion
/// threshold it falls by `expansionRatio` dB a dB. Thread: any.
public struct DynamicsCurve: Sendable, Equatable {
    public var threshold: Double
    public var ratio: Double
    public var kneeWidth: Double
    public var expansionThreshold: Double
    public var expansionRatio: Double

    public init(threshold: Double, ratio: Double, kneeWidth: Double, expansionThreshold: Double, expansionRatio: Double) {
        self.threshold = threshold
        self.ratio = ratio
        self.kneeWidth = kneeWidth
        self.expansionThreshold = expansionThreshold
        self.expansionRatio = expansionRatio
    }

    /// AUDynamicsProcessor's head room as a ratio: an input at 0 dBFS leaves at
    /// `threshold + headRoom`, so the ratio is −threshold / head room (at least 1).
    @inline(__always)
    public static func ratio(threshold: Double, headRoom: Double) -> Double {
        max(1, -threshold / max(headRoom, 1e-3))
    }

    /// The output level for a steady input at `level` dB.
    @inline(__always)
    public func output(_ level: Double) -> Double {
        let over = level - threshold
        let slope = 1 / ratio - 1
        var out = level
        if 2 * over > kneeWidth {
            out = threshold + over / ratio
        } else if kneeWidth > 0, 2 * over >= -kneeWidth {
            let into = over + kneeWidth / 2
            out = level + slope * into * into / (2 * kneeWidth)
        }
        if level < expansionThreshold { out -= (expansionThreshold - level) * (expansionRatio - 1) }
        return out
    }

    /// How far below its input the curve puts a steady input at `level` dB: 0 or more.
    @inline(__always)
    public func reduction(_ level: Double) -> Double { max(0, level - output(level)) }
}
