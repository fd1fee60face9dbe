import TrellisCore
import TrellisTimePitch
import TrellisUnits

/// AVFAudio's reverb presets, in Apple's order; Trellis' reverb has each as a factory preset.
public enum AVAudioUnitReverbPreset: Int, Sendable {
    case smallRoom = 0, mediumRoom, largeRoom, mediumHall, largeHall, plate, mediumChamber, largeChamber, cathedral, largeRoom2,
         mediumHall2, mediumHall3, largeHall2
}

/// A reverb with Apple's presets and a wet/dry mix, as AVFAudio's `AVAudioUnitReverb`,
/// on Trellis' algorithmic reverb (a feedback delay network, not Apple's algorithm).
public final class AVAudioUnitReverb: AVAudioUnitEffect, @unchecked Sendable {
    public init() { super.init(unit: Reverb()) }

    public func loadFactoryPreset(_ preset: AVAudioUnitReverbPreset) {
        try? unit.setProperty(.presentPreset, .string(Reverb.presets[preset.rawValue].name), scope: .global, element: 0)
    }

    /// Percent wet, 0 ... 100.
    public var wetDryMix: Float {
        get { value("wetDryMix") }
        set { set("wetDryMix", newValue) }
    }
}

/// A delay line with feedback and a low-pass in the loop, as AVFAudio's `AVAudioUnitDelay`,
/// with Apple's defaults: 1 s, 50 % feedback, 15 kHz, all wet.
public final class AVAudioUnitDelay: AVAudioUnitEffect, @unchecked Sendable {
    public init() {
        super.init(unit: Delay())
        wetDryMix = 100
    }

    /// Seconds, 0 ... 2.
    public var delayTime: Double {
        get { Double(value("time")) }
        set { set("time", Float(newValue)) }
    }

    /// Percent fed back, −100 ... 100.
    public var feedback: Float {
        get { value("feedback") }
        set { set("feedback", newValue) }
    }

    /// Hertz, 10 ... the Nyquist frequency.
    public var lowPassCutoff: Float {
        get { value("lowpass") }
        set { set("lowpass", newValue) }
    }

    /// Percent wet, 0 ... 100.
    public var wetDryMix: Float {
        get { value("mix") }
        set { set("mix", newValue) }
    }
}

/// AVFAudio's distortion presets, in Apple's order.
public enum AVAudioUnitDistortionPreset: Int, Sendable {
    case drumsBitBrush = 0, drumsBufferBeats, drumsLoFi, multiBrokenSpeaker, multiCellphoneConcert, multiDecimated1, multiDecimated2,
         multiDecimated3, multiDecimated4, multiDistortedFunk, multiDistortedCubed, multiDistortedSquared, multiEcho1, multiEcho2,
         multiEchoTight1, multiEchoTight2, multiEverythingIsBroken, speechAlienChatter, speechCosmicInterference, speechGoldenPi,
         speechRadioTower, speechWaves

    /// The name of Trellis' preset for this one, nil for the ones built on delays and ring
    /// modulation that Trellis' distortion does not have.
    var trellisName: String? {
        switch self {
        case .drumsBitBrush: "Drums Bit Brush"
        case .drumsLoFi: "Drums LoFi"
        case .multiBrokenSpeaker: "Multi Broken Speaker"
        case .multiCellphoneConcert: "Multi Cellphone Concert"
        case .multiDecimated1: "Multi Decimated 1"
        case .multiDecimated2: "Multi Decimated 2"
        case .multiDecimated3: "Multi Decimated 3"
        case .multiDecimated4: "Multi Decimated 4"
        case .multiDistortedFunk: "Multi Distorted Funk"
        case .multiDistortedCubed: "Multi Distorted Cubed"
        case .multiDistortedSquared: "Multi Distorted Squared"
        case .multiEverythingIsBroken: "Multi Everything Is Broken"
        case .speechRadioTower: "Speech Radio Tower"
        default: nil
        }
    }
}

/// Oversampled waveshaping with Apple's presets, as AVFAudio's `AVAudioUnitDistortion`.
public final class AVAudioUnitDistortion: AVAudioUnitEffect, @unchecked Sendable {
    public init() { super.init(unit: Distortion()) }

    /// Loads the preset; the nine that rest on delays or ring modulation (the echoes,
    /// buffer beats, alien chatter, cosmic interference, golden pi, waves) leave the unit as it was.
    public func loadFactoryPreset(_ preset: AVAudioUnitDistortionPreset) {
        guard let name = preset.trellisName else { return }
        try? unit.setProperty(.presentPreset, .string(name), scope: .global, element: 0)
    }

    /// Decibels before the curve, −80 ... 20.
    public var preGain: Float {
        get { value("preGain") }
        set { set("preGain", newValue) }
    }

    /// Percent wet, 0 ... 100.
    public var wetDryMix: Float {
        get { value("wetDryMix") }
        set { set("wetDryMix", newValue) }
    }
}

/// Rate and pitch apart, on Rubber Band, as AVFAudio's `AVAudioUnitTimePitch`.
public final class AVAudioUnitTimePitch: AVAudioUnitTimeEffect, @unchecked Sendable {
    public init() { super.init(unit: TimePitch()) }

    /// Playback rate, 1/32 ... 32.
    public var rate: Float {
        get { value("rate") }
        set { set("rate", newValue) }
    }

    /// Cents, −2400 ... 2400.
    public var pitch: Float {
        get { value("pitch") }
        set { set("pitch", newValue) }
    }

    /// Apple's analysis overlap (3 ... 32); Rubber Band chooses its own windows, so it is
    /// kept and does not change the sound.
    public var overlap: Float = 8
}

/// Rate and pitch together, resampled, as AVFAudio's `AVAudioUnitVarispeed`.
public final class AVAudioUnitVarispeed: AVAudioUnitTimeEffect, @unchecked Sendable {
    public init() { super.init(unit: Varispeed()) }

    /// Playback rate, 0.25 ... 4.
    public var rate: Float {
        get { value("rate") }
        set { set("rate", newValue) }
    }
}
