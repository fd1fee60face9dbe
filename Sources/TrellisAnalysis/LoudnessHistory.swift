import Foundation

/// The gating blocks a loudness meter has measured, kept in bounded memory: a histogram
/// of 0.01 LU bins from -70 to +30 LUFS, each with its count and its blocks' summed
/// energy, so a measurement of hours costs what one of seconds does.
struct LoudnessHistory {
    static let floor = -70.0, ceiling = 30.0, binsPerLU = 100.0
    static let binCount = Int((ceiling - floor) * binsPerLU)
    /// BS.1770's absolute gate, as a mean square.
    static let absoluteGate = energy(loudness: floor)

    private var counts = [Int](repeating: 0, count: binCount)
    private var energies = [Double](repeating: 0, count: binCount)
    private var totalCount = 0
    private var totalEnergy = 0.0
    /// The lowest and highest bins holding a block: the scans cover only these.
    private var lowest = binCount, highest = -1

    static func loudness(energy: Double) -> Double { energy > 0 ? 10 * log10(energy) - 0.691 : -.infinity }
    static func energy(loudness: Double) -> Double { pow(10, (loudness + 0.691) / 10) }

    private static func bin(_ energy: Double) -> Int {
        min(binCount - 1, max(0, Int((loudness(energy: energy) - floor) * binsPerLU)))
    }

    /// The loudness at the middle of `bin`.
    private static func centre(_ bin: Int) -> Double { floor + (Double(bin) + 0.5) / binsPerLU }

    /// Keeps a block's mean square; blocks below the absolute gate are left out.
    mutating func add(_ energy: Double) {
        guard energy >= Self.absoluteGate else { return }
        let bin = Self.bin(energy)
        counts[bin] += 1
        energies[bin] += energy
        lowest = min(lowest, bin)
        highest = max(highest, bin)
        totalCount += 1
        totalEnergy += energy
    }

    mutating func reset() { self = LoudnessHistory() }

    /// The first bin at or above `gate` (a mean square).
    private func firstBin(atOrAbove gate: Double) -> Int {
        let loudness = Self.loudness(energy: gate)
        let bin = Int(((loudness - Self.floor) * Self.binsPerLU).rounded())
        return min(Self.binCount, max(0, bin))
    }

    /// The gated loudness: the mean of the blocks no quieter than `relativeGate` LU
    /// below the mean of all kept blocks (integrated loudness: -10).
    func gatedLoudness(relativeGate: Double = -10) -> Double {
        guard totalCount > 0 else { return -.infinity }
        let gate = totalEnergy / Double(totalCount) * pow(10, relativeGate / 10)
        var count = 0, energy = 0.0
        let upper = highest + 1
        for bin in min(upper, max(lowest, firstBin(atOrAbove: gate)))..<upper {
            count += counts[bin]
            energy += energies[bin]
        }
        return count > 0 ? Self.loudness(energy: energy / Double(count)) : -.infinity
    }

    /// EBU Tech 3342's loudness range of short-term blocks: the 10th to the 95th
    /// percentile of those no quieter than 20 LU below their mean.
    func range() -> Double {
        guard totalCount > 0 else { return 0 }
        let gate = totalEnergy / Double(totalCount) * 0.01
        let first = max(lowest, firstBin(atOrAbove: gate))
        guard first <= highest else { return 0 }
        let kept = counts[first...highest].reduce(0, +)
        guard kept > 0 else { return 0 }
        // libebur128's ranks: the nearest of the sorted blocks.
        let low = Int(Double(kept - 1) * 0.1 + 0.5), high = Int(Double(kept - 1) * 0.95 + 0.5)
        var seen = 0
        var lowValue: Double?, highValue = 0.0
        for bin in first...highest where counts[bin] > 0 {
            seen += counts[bin]
            if lowValue == nil, seen > low { lowValue = Self.centre(bin) }
            if seen > high { highValue = Self.centre(bin); break }
        }
        return highValue - (lowValue ?? highValue)
    }
}
