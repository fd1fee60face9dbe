import Foundation
import TrellisCore
import TrellisGraph
import TrellisSampler
import TrellisUnits

/// An instrument played by MIDI messages sent from code, as AVFAudio's
/// `AVAudioUnitMIDIInstrument`: the messages go through a MIDI source node attached
/// beside it and reach it at the start of the next cycle.
open class AVAudioUnitMIDIInstrument: AVAudioUnit, @unchecked Sendable {
    let source = MIDISource()
    /// The source's node while attached.
    var sourceID: NodeID?

    public func startNote(_ note: UInt8, withVelocity velocity: UInt8, onChannel channel: UInt8) {
        send(0x90 | channel & 0x0F, note & 0x7F, velocity & 0x7F)
    }

    public func stopNote(_ note: UInt8, onChannel channel: UInt8) { send(0x80 | channel & 0x0F, note & 0x7F, 0) }

    public func sendController(_ controller: UInt8, withValue value: UInt8, onChannel channel: UInt8) {
        send(0xB0 | channel & 0x0F, controller & 0x7F, value & 0x7F)
    }

    /// `bendValue` 0 ... 16383, 8192 centred.
    public func sendPitchBend(_ bendValue: UInt16, onChannel channel: UInt8) {
        send(0xE0 | channel & 0x0F, UInt8(bendValue & 0x7F), UInt8((bendValue >> 7) & 0x7F))
    }

    public func sendPressure(_ pressure: UInt8, onChannel channel: UInt8) {
        source.send(MIDIMessage(status: 0xD0 | channel & 0x0F, data1: pressure & 0x7F, length: 2))
    }

    public func sendPressure(forKey key: UInt8, withValue value: UInt8, onChannel channel: UInt8) {
        send(0xA0 | channel & 0x0F, key & 0x7F, value & 0x7F)
    }

    public func sendProgramChange(_ program: UInt8, onChannel channel: UInt8) {
        source.send(MIDIMessage(status: 0xC0 | channel & 0x0F, data1: program & 0x7F, length: 2))
    }

    /// Bank select (controllers 0 and 32), then the program.
    public func sendProgramChange(_ program: UInt8, bankMSB: UInt8, bankLSB: UInt8, onChannel channel: UInt8) {
        sendController(0, withValue: bankMSB, onChannel: channel)
        sendController(32, withValue: bankLSB, onChannel: channel)
        sendProgramChange(program, onChannel: channel)
    }

    public func sendMIDIEvent(_ midiStatus: UInt8, data1: UInt8, data2: UInt8) { send(midiStatus, data1 & 0x7F, data2 & 0x7F) }
    public func sendMIDIEvent(_ midiStatus: UInt8, data1: UInt8) { source.send(MIDIMessage(status: midiStatus, data1: data1 & 0x7F, length: 2)) }

    private func send(_ status: UInt8, _ data1: UInt8, _ data2: UInt8) {
        source.send(MIDIMessage(status: status, data1: data1, data2: data2))
    }
}

/// A sampler, as AVFAudio's `AVAudioUnitSampler`, on Trellis' sampler: SoundFont 2
/// banks through libfluidsynth, or audio files named by their notes (`C4.wav`). Until
/// something is loaded it plays Debian's General MIDI SoundFont, if installed.
public final class AVAudioUnitSampler: AVAudioUnitMIDIInstrument, @unchecked Sendable {
    public init() { super.init(unit: Sampler()) }

    /// Loads a SoundFont and selects `program` in the bank `bankMSB`/`bankLSB` on channel 1.
    public func loadSoundBankInstrument(at bankURL: URL, program: UInt8, bankMSB: UInt8, bankLSB: UInt8) throws {
        try load(bankURL.path)
        sendProgramChange(program, bankMSB: bankMSB, bankLSB: bankLSB, onChannel: 0)
    }

    /// A SoundFont, or a folder (or one file) of note-named audio files.
    public func loadInstrument(at instrumentURL: URL) throws { try load(instrumentURL.path) }

    /// Audio files named by their notes (`C4.wav`, `F#3.flac`), from one folder.
    public func loadAudioFiles(at audioFiles: [URL]) throws {
        let folders = Set(audioFiles.map { $0.deletingLastPathComponent().path })
        guard folders.count == 1, let folder = folders.first else {
            throw AVAudioError(.file, "loadAudioFiles: give files of one folder (Trellis' sampler reads a folder of note-named files)")
        }
        try load(audioFiles.count == 1 ? audioFiles[0].path : folder)
    }

    /// Decibels, −90 ... 12.
    public var masterGain: Float {
        get { value("masterGain") }
        set { set("masterGain", newValue) }
    }

    /// Cents, −2400 ... 2400.
    public var globalTuning: Float {
        get { value("globalTuning") }
        set { set("globalTuning", newValue) }
    }

    /// −100 (left) ... 100 (right).
    public var stereoPan: Float {
        get { value("stereoPan") }
        set { set("stereoPan", newValue) }
    }

    /// Decibels; AVFAudio's overall gain is the master gain here.
    public var overallGain: Float {
        get { masterGain }
        set { masterGain = newValue }
    }

    /// Loads while the graph holds the sampler uninitialized; while it renders, a new
    /// sampler with the bank replaces it in one edit (notes sounding stop).
    private func load(_ path: String) throws {
        let sampler = unit as! Sampler
        guard sampler.isInitialized, let engine, let id = nodeID else {
            do { try sampler.loadContent(path: path) } catch { throw AVAudioError(.file, "\(error)") }
            return
        }
        let fresh = Sampler()
        for identifier in ["masterGain", "globalTuning", "stereoPan", "polyphony"] {
            guard let info = try? fresh.parameter(named: identifier) else { continue }
            try? fresh.setParameter(info.address, value(identifier), rampFrames: 0)
        }
        do { try fresh.loadContent(path: path) } catch { throw AVAudioError(.file, "\(error)") }
        let failure: String? = engine.edit {
            do { try engine.graph.replaceUnit(of: id, with: fresh) } catch { return "\(error)" }
            return nil
        }
        if let failure { throw AVAudioError(.file, failure) }
        replaceUnit(with: fresh)
    }
}
