import Glibc
import TrellisCore

/// An instrument that plays a SoundFont 2 bank through libfluidsynth, or a bank of audio
/// files named by their notes (`NoteBank`), as AVAudioUnitSampler loads either. MIDI in
/// (notes, velocity, sustain, pitch bend, program and bank change), stereo out; its
/// parameters are AVAudioUnitSampler's (`masterGain`, `globalTuning`, `stereoPan`) with
/// polyphony and the first channel's program and bank. With no bank loaded it plays the
/// General MIDI SoundFont Debian installs (`defaultSoundFont`), if there is one.
public final class Sampler: AudioUnitBase, ContentLoading, @unchecked Sendable {
    public static let componentDescription = ComponentDescription(
        type: ComponentType.instrument, subtype: BuiltInSubtype.sampler, manufacturer: Manufacturer.trellis)

    /// fluid-soundfont-gm's General MIDI bank, through Debian's alternatives link.
    public static let defaultSoundFont = "/usr/share/sounds/sf2/default-GM.sf2"

    public private(set) var contentPath: String?
    private var soundFont: SoundFontSynth?
    private var noteBank: NoteBank?

    /// Thread: control.
    public init() {
        super.init(description: Self.componentDescription, shortName: "sampler", inputs: [], outputs: [2], fixedScopes: [.input])
        for info in [
            ParameterInfo(address: ParameterAddress(900), identifier: "masterGain", name: "Master Gain", unit: .decibels, range: -90...12, defaultValue: 0),
            ParameterInfo(address: ParameterAddress(901), identifier: "globalTuning", name: "Global Tuning", unit: .cents, range: -2400...2400, defaultValue: 0),
            ParameterInfo(address: ParameterAddress(903), identifier: "stereoPan", name: "Stereo Pan", unit: .pan, range: -100...100, defaultValue: 0),
            ParameterInfo(address: ParameterAddress(100), identifier: "polyphony", name: "Polyphony", unit: .generic, range: 1...Float(NoteVoices.capacity), defaultValue: 64, flags: [.readable, .writable, .integer]),
            ParameterInfo(address: ParameterAddress(101), identifier: "program", name: "Program (channel 1)", unit: .indexed, range: 0...127, defaultValue: 0, flags: [.readable, .writable, .integer]),
            ParameterInfo(address: ParameterAddress(102), identifier: "bank", name: "Bank (channel 1)", unit: .indexed, range: 0...16383, defaultValue: 0, flags: [.readable, .writable, .integer]),
        ] { declareParameter(info) }
    }

    public override func midiBusCount(_ scope: Scope) -> Int { scope == .input ? 1 : 0 }

    /// A SoundFont (`.sf2`, `.sf3`), a folder of note-named audio files, or one such
    /// file, read now (so a bad one is refused here, by name, and nothing changes), while
    /// not initialized. Thread: control.
    public func loadContent(path: String) throws(AudioUnitError) {
        guard !isInitialized else {
            throw .invalidState("the bank cannot change while the sampler is initialized (a running program may be playing it)", unit: name)
        }
        // A FIFO or a device would hold the read open, or never end: only folders and regular files.
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw .failedToInitialize("the bank \(path) does not exist or cannot be read", unit: name)
        }
        let kind = status.st_mode & S_IFMT
        guard kind == S_IFDIR || kind == S_IFREG else {
            throw .failedToInitialize("the bank \(path) is neither a folder nor a regular file", unit: name)
        }
        guard kind == S_IFDIR || SoundFontSynth.isSoundFont(path) || NoteName.note(inFileName: path) != nil else {
            throw .failedToInitialize("\(path) is neither a SoundFont 2 file nor audio files named by note (C4.wav)", unit: name)
        }
        (soundFont, noteBank) = try Self.bank(at: path, sampleRate: sampleRate, unit: name)
        contentPath = path
        isPlaceholder = false
    }

    /// Keeps `path` as the bank without reading it: the sampler plays nothing, as a
    /// session's placeholder for a bank that is missing or damaged. Thread: control.
    public func keepContent(path: String) {
        guard !isInitialized else { return }
        contentPath = path
        soundFont = nil
        noteBank = nil
        isPlaceholder = true
    }

    /// True while the bank is a path kept by `keepContent`: nothing plays.
    public private(set) var isPlaceholder = false

    private static func bank(at path: String, sampleRate: Double, unit: String) throws(AudioUnitError) -> (SoundFontSynth?, NoteBank?) {
        if !Files.isDirectory(path), SoundFontSynth.isSoundFont(path) {
            return (try SoundFontSynth(path: path, sampleRate: sampleRate, unit: unit), nil)
        }
        return (nil, try NoteBank(path: path, unit: unit))
    }

    /// The SoundFont's presets as (bank, program, name); empty for a note bank. Thread: control.
    public var soundFontPresets: [(bank: Int, program: Int, name: String)] { soundFont?.presets ?? [] }

    public override func allocateRenderResources() throws(AudioUnitError) {
        let path = isPlaceholder ? nil : contentPath ?? (access(Self.defaultSoundFont, R_OK) == 0 ? Self.defaultSoundFont : nil)
        if let path, soundFont.map({ $0.sampleRate != sampleRate }) ?? (noteBank == nil) {
            (soundFont, noteBank) = try Self.bank(at: path, sampleRate: sampleRate, unit: name)
        }
        let (noteBank, soundFont, rate, frames) = (noteBank, soundFont, sampleRate, maximumFramesPerSlice)
        kernelStorage = KernelStorage(render: { SamplerKernel.render($0, $1) }, reset: { SamplerKernel.reset($0) }) { memory in
            let voices = noteBank.map { bank in
                memory.place(NoteVoices(samples: UnsafePointer(bank.samples), map: UnsafePointer(bank.map),
                                        voices: memory.take(NoteVoices.capacity, repeating: NoteVoices.Voice()), sampleRate: rate))
            }
            return SamplerKernel(synth: soundFont?.synth, fontID: soundFont?.fontID ?? 0, voices: voices, scratch: memory.take(frames))
        }
    }
}
