import Foundation
import TrellisUnits

/// The filter shapes of `AVAudioUnitEQFilterParameters`, as AVFAudio numbers them.
public enum AVAudioUnitEQFilterType: Int, Sendable {
    case parametric = 0
    case lowPass = 1
    case highPass = 2
    case resonantLowPass = 3
    case resonantHighPass = 4
    case bandPass = 5
    case bandStop = 6
    case lowShelf = 7
    case highShelf = 8
    case resonantLowShelf = 9
    case resonantHighShelf = 10

    /// Trellis' biquad for this shape ("band.type" of the eq unit).
    var biquad: FilterType {
        switch self {
        case .parametric: .peaking
        case .lowPass, .resonantLowPass: .lowPass
        case .highPass, .resonantHighPass: .highPass
        case .bandPass: .bandPass
        case .bandStop: .notch
        case .lowShelf, .resonantLowShelf: .lowShelf
        case .highShelf, .resonantHighShelf: .highShelf
        }
    }

    /// Whether the band's bandwidth shapes it (else it has the Butterworth Q, 1/√2).
    var usesBandwidth: Bool { ![.lowPass, .highPass, .lowShelf, .highShelf].contains(self) }
}

/// One band of an `AVAudioUnitEQ`; changes apply at once, as in AVFAudio.
public final class AVAudioUnitEQFilterParameters: @unchecked Sendable {
    private unowned let eq: AVAudioUnitEQ
    private let band: Int
    private var storedType = AVAudioUnitEQFilterType.parametric
    private var storedBandwidth: Float = 0.5

    init(eq: AVAudioUnitEQ, band: Int) {
        self.eq = eq
        self.band = band
    }

    public var filterType: AVAudioUnitEQFilterType {
        get { storedType }
        set {
            storedType = newValue
            eq.set("band\(band).type", Float(FilterType.allCases.firstIndex(of: newValue.biquad)!))
            applyBandwidth()
        }
    }

    /// Hertz, 10 ... 22 000 (up to the Nyquist frequency).
    public var frequency: Float {
        get { eq.value("band\(band).freq") }
        set { eq.set("band\(band).freq", newValue) }
    }

    /// Octaves, 0.05 ... 5, for the parametric, band and resonant shapes.
    public var bandwidth: Float {
        get { storedBandwidth }
        set {
            storedBandwidth = min(max(newValue, 0.05), 5)
            applyBandwidth()
        }
    }

    /// Decibels, −96 ... 24.
    public var gain: Float {
        get { eq.value("band\(band).gain") }
        set { eq.set("band\(band).gain", newValue) }
    }

    public var bypass: Bool {
        get { eq.value("band\(band).bypass") != 0 }
        set { eq.set("band\(band).bypass", newValue ? 1 : 0) }
    }

    /// A bandwidth of N octaves is a Q of √(2^N) / (2^N − 1).
    private func applyBandwidth() {
        let q: Float = storedType.usesBandwidth ? Float(sqrt(pow(2, Double(storedBandwidth))) / (pow(2, Double(storedBandwidth)) - 1)) : 0.7071
        eq.set("band\(band).q", q)
    }
}

/// Up to 16 bands of filters in series and a global gain, as AVFAudio's `AVAudioUnitEQ`.
public final class AVAudioUnitEQ: AVAudioUnitEffect, @unchecked Sendable {
    public private(set) var bands: [AVAudioUnitEQFilterParameters] = []

    /// `numberOfBands` (1 ... 16) parametric bands at 0 dB, half an octave wide.
    public init(numberOfBands: Int) {
        super.init(unit: ParametricEQ())
        let count = min(max(numberOfBands, 1), ParametricEQ.maximumBands)
        bands = (0..<count).map { AVAudioUnitEQFilterParameters(eq: self, band: $0) }
        for band in bands { band.bandwidth = 0.5 }
        for unused in count..<ParametricEQ.maximumBands { set("band\(unused).bypass", 1) }
    }

    public convenience init() { self.init(numberOfBands: 1) }

    /// Decibels, −96 ... 24, over every band.
    public var globalGain: Float {
        get { value("gain") }
        set { set("gain", newValue) }
    }
}
