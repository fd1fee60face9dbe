import Glibc
import TrellisCore

/// Plays a Standard MIDI File as the transport moves (Core Audio's MusicPlayer, for
/// one sequence): a generator with no audio and MIDI outputs, bus 0 carrying every
/// track and bus N track N alone (`player.midi2 -> bass`). The file's tempo map places
/// each event in seconds from song time zero, which is the transport's frame `start`
/// seconds in; the transport's play, stop and locate move the song, and a stop or a
/// jump ends the notes left sounding. `loops` plays it again (-1 without end).
///
/// Thread: control for loading and settings; the kernel runs on the audio thread.
public final class MIDIFilePlayer: AudioUnitBase, @unchecked Sendable {
    public static let componentDescription = ComponentDescription(
        type: ComponentType.generator, subtype: BuiltInSubtype.midiFilePlayer, manufacturer: Manufacturer.trellis)

    public private(set) var song: StandardMIDIFile?
    public private(set) var path: String?
    /// Times the song plays again after the first; -1 without end. Set before the
    /// graph initializes the unit.
    public var loopCount = 0
    private let endedFlag: UnsafeMutablePointer<Bool>
    private let flags = Arena(firstBlock: 64)

    public init() {
        endedFlag = flags.take(1, repeating: false)
        super.init(description: Self.componentDescription, shortName: "midi-player", inputs: [], outputs: [], fixedScopes: [.input, .output])
        declareParameter(ParameterInfo(
            address: ParameterAddress(0), identifier: "start", name: "Start", unit: .seconds,
            range: 0...86_400, defaultValue: 0, flags: [.readable, .writable]))
    }

    /// Reads the file at `path` (before the graph initializes the unit; its tracks
    /// become its buses). Thread: control.
    public func load(path: String) throws(MediaError) {
        guard !isInitialized else { throw .invalidSettings("a MIDI file is loaded before the player runs", unit: name) }
        let bytes: [UInt8]
        do { bytes = try Files.readRegular(path, limit: StandardMIDIFile.byteLimit) } catch {
            switch error {
            case .tooLarge, .grew: throw .invalidSettings("\(path) is more than a MIDI file may have here (16 MiB)", unit: name)
            case .missing: throw .invalidSettings("\(path): no such file", unit: name)
            case .unreadable(let reason): throw .invalidSettings("\(path) cannot be read (\(reason))", unit: name)
            case .folder, .fifo, .device: throw .invalidSettings("\(path) is not a regular file to read", unit: name)
            }
        }
        do { song = try StandardMIDIFile(bytes: bytes, name: path) } catch { throw .invalidSettings(error.message, unit: name) }
        self.path = path
    }

    /// Bus 0 with every track, then one a track.
    public override func midiBusCount(_ scope: Scope) -> Int {
        guard scope == .output else { return 0 }
        guard let song else { return 1 }
        return song.trackCount > 1 ? song.trackCount + 1 : 1
    }

    public override func midiBusNames(_ scope: Scope) -> [String] {
        scope == .output ? ["song"] + (midiBusCount(.output) > 1 ? (1..<midiBusCount(.output)).map { "track\($0)" } : []) : []
    }

    /// The song's length in seconds, 0 with no file.
    public var duration: Double { song?.length ?? 0 }

    /// Whether the song has played to its end (its last pass). Thread: control.
    public var hasEnded: Bool { endedFlag.pointee }

    public override func allocateRenderResources() throws(AudioUnitError) {
        let song = self.song
        let events = song?.events ?? []
        let split = midiBusCount(.output) > 1, rate = sampleRate
        let timed = events.map { SongEvent(frame: TimeContext.frame(clamping: ($0.seconds * rate).rounded()), bus: split ? Int32($0.track + 1) : 0, message: $0.message) }
        let buses = midiBusCount(.output), ended = endedFlag, loops = loopCount
        let length = TimeContext.frame(clamping: ((song?.length ?? 0) * rate).rounded())
        let start = TimeContext.frame(clamping: (Double(values[0]) * rate).rounded())
        endedFlag.pointee = false
        kernelStorage = KernelStorage(render: { MIDIFilePlayerKernel.render($0, $1) }, reset: { $0.assumingMemoryBound(to: MIDIFilePlayerKernel.self).pointee.reset() }) { memory in
            MIDIFilePlayerKernel(
                events: memory.copy(timed), count: timed.count, length: length, loops: loops, start: start, sampleRate: rate,
                busCount: buses, held: memory.take(buses * 16 * 128, repeating: 0), ended: ended)
        }
    }

    /// A new `start` while nothing renders (the kernel takes it from its events while
    /// rendering). Thread: control.
    public override func parameterDidChange(index: Int, value: Float, rampFrames: Int) {
        guard index == 0, let kernel = storedKernel(as: MIDIFilePlayerKernel.self) else { return }
        kernel.pointee.start = TimeContext.frame(clamping: (Double(value) * sampleRate).rounded())
        kernel.pointee.expected = -1
    }
}
