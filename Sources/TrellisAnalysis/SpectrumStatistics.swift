import Foundation

/// The spectrum's centroid and roll-off of a signal's channels mixed to one: the power
/// spectra of Hann-windowed blocks of 4,096 frames, one after another (the last one
/// padded with zeros), summed. The centroid is the power-weighted mean frequency; the
/// roll-off is the frequency below which 85 % of the power lies.
public struct SpectrumStatistics {
    public static let blockSize = 4096
    public static let rollOffShare = 0.85

    public let sampleRate: Double
    private var block: [Double] = []
    private var power = [Double](repeating: 0, count: SpectrumStatistics.blockSize / 2 + 1)
    private var transform = FourierTransform(size: SpectrumStatistics.blockSize)
    private let window: [Double] = (0..<SpectrumStatistics.blockSize).map {
        0.5 - 0.5 * cos(2 * .pi * Double($0) / Double(SpectrumStatistics.blockSize))
    }

    public init(sampleRate: Double) {
        self.sampleRate = sampleRate
        block.reserveCapacity(Self.blockSize)
    }

    /// Adds `count` frames of the mix (the mean of the channels).
    public mutating func add(_ mix: UnsafePointer<Float>, count: Int) {
        for index in 0..<count {
            block.append(Double(mix[index]))
            if block.count == Self.blockSize { takeBlock() }
        }
    }

    /// Takes what is left as a last block, padded with zeros.
    public mutating func finish() {
        guard !block.isEmpty else { return }
        block.append(contentsOf: repeatElement(0, count: Self.blockSize - block.count))
        takeBlock()
    }

    private mutating func takeBlock() {
        for index in 0..<Self.blockSize { block[index] *= window[index] }
        let spectrum = transform.powerSpectrum(of: block)
        for bin in power.indices { power[bin] += spectrum[bin] }
        block.removeAll(keepingCapacity: true)
    }

    private func frequency(ofBin bin: Int) -> Double { Double(bin) * sampleRate / Double(Self.blockSize) }

    /// In Hz; nil for silence.
    public var centroid: Double? {
        let total = power.reduce(0, +)
        guard total > 0 else { return nil }
        return power.indices.reduce(0) { $0 + frequency(ofBin: $1) * power[$1] } / total
    }

    /// In Hz; nil for silence.
    public var rollOff: Double? {
        let total = power.reduce(0, +)
        guard total > 0 else { return nil }
        var sum = 0.0
        for bin in power.indices {
            sum += power[bin]
            if sum >= Self.rollOffShare * total { return frequency(ofBin: bin) }
        }
        return frequency(ofBin: power.count - 1)
    }
}

/// A radix-2 complex FFT of a fixed size, its twiddles computed once.
struct FourierTransform {
    let size: Int
    private let cosines: [Double]
    private let sines: [Double]
    /// Where each input lands: its index with the bits reversed.
    private let reversal: [Int]
    private var real: [Double]
    private var imaginary: [Double]

    init(size: Int) {
        precondition(size > 1 && size & (size - 1) == 0, "the FFT's size is a power of two")
        self.size = size
        cosines = (0..<size / 2).map { cos(2 * .pi * Double($0) / Double(size)) }
        sines = (0..<size / 2).map { -sin(2 * .pi * Double($0) / Double(size)) }
        let bits = size.trailingZeroBitCount
        reversal = (0..<size).map { index in (0..<bits).reduce(0) { $0 << 1 | (index >> $1) & 1 } }
        real = [Double](repeating: 0, count: size)
        imaginary = [Double](repeating: 0, count: size)
    }

    /// |X[k]|² for k = 0 ... size/2 of a real signal.
    mutating func powerSpectrum(of signal: [Double]) -> [Double] {
        for index in 0..<size {
            real[reversal[index]] = signal[index]
            imaginary[reversal[index]] = 0
        }
        var length = 2
        while length <= size {
            let half = length / 2, stride = size / length
            var start = 0
            while start < size {
                for offset in 0..<half {
                    let twiddle = offset * stride
                    let (wr, wi) = (cosines[twiddle], sines[twiddle])
                    let a = start + offset, b = a + half
                    let tr = real[b] * wr - imaginary[b] * wi
                    let ti = real[b] * wi + imaginary[b] * wr
                    real[b] = real[a] - tr
                    imaginary[b] = imaginary[a] - ti
                    real[a] += tr
                    imaginary[a] += ti
                }
                start += length
            }
            length *= 2
        }
        return (0...size / 2).map { real[$0] * real[$0] + imaginary[$0] * imaginary[$0] }
    }
}
