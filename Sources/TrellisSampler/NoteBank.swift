import TrellisAudioFile
import TrellisCore

/// One sample of a note bank, in plain memory: `frames` frames of left then right (a mono
/// file's two halves are the same samples), recorded at `rate` with its pitch at `root`.
struct NoteSample {
    let left: UnsafeMutablePointer<Float>
    let right: UnsafeMutablePointer<Float>
    let frames: Int
    let rate: Double
    let root: Int
}

/// Audio files mapped to notes by their names (`NoteName`), as AVAudioUnitSampler's
/// `loadAudioFiles` maps a set of files: each MIDI note plays the sample whose root is
/// nearest (the lower one on a tie), repitched by the difference. Several files on one
/// note are velocity layers, quietest (by peak) for the softest velocities. The owner of
/// the samples' memory, which goes with it. Thread: made on the control side; read-only on
/// the audio thread once made.
final class NoteBank: @unchecked Sendable {
    /// At most this many files, and this many samples (channels × frames) in all: 512 MB.
    static let fileLimit = 1024
    static let sampleLimit = 1 << 27

    let samples: UnsafeMutablePointer<NoteSample>
    let sampleCount: Int
    /// For each note and each of 8 velocity bands (16 velocities each), the sample.
    let map: UnsafeMutablePointer<Int32>
    let path: String
    /// The samples, their list and the map.
    private let memory = Arena()

    /// Reads every note-named audio file in the folder `path` (or the one file `path`).
    /// Thread: control (reads files, allocates).
    init(path: String, unit: String) throws(AudioUnitError) {
        self.path = path
        var files: [(note: Int, path: String)] = []
        if Files.isDirectory(path) {
            let names = Files.entries(of: path).sorted()
            for name in names {
                guard let note = NoteName.note(inFileName: name),
                      AudioFileContainer(pathExtension: String(name.split(separator: ".").last ?? "")) != nil else { continue }
                files.append((note, path + "/" + name))
            }
            guard files.count <= Self.fileLimit else {
                throw .failedToInitialize("the folder \(path) holds \(files.count) note-named files; a bank takes at most \(Self.fileLimit)", unit: unit)
            }
            guard !files.isEmpty else {
                throw .failedToInitialize("the folder \(path) holds no audio files named by note (C4.wav, A#2-soft.flac)", unit: unit)
            }
        } else {
            guard let note = NoteName.note(inFileName: path) else {
                throw .failedToInitialize("\(path) is neither a SoundFont nor an audio file named by its note (C4.wav)", unit: unit)
            }
            files = [(note, path)]
        }
        var loaded: [(sample: NoteSample, peak: Float)] = []
        var total = 0
        for file in files {
            do {
                let reader = try AudioFileReader(path: file.path)
                defer { reader.close() }
                total += reader.info.frameCount * min(2, reader.info.channelCount)
                guard total <= Self.sampleLimit else {
                    throw AudioUnitError.failedToInitialize(
                        "the bank \(path) holds more than \(Self.sampleLimit) samples (512 MB) by \(file.path)", unit: unit)
                }
                let channels = try reader.readAll()
                guard let first = channels.first, !first.isEmpty else {
                    throw AudioFileError.readFailed(path: file.path, reason: "it holds no frames")
                }
                let left = memory.take(first.count, of: Float.self)
                left.initialize(from: first, count: first.count)
                var right = left
                if channels.count > 1 {
                    right = memory.take(first.count)
                    right.initialize(from: channels[1], count: first.count)
                }
                let peak = channels.prefix(2).map { $0.map(\.magnitude).max() ?? 0 }.max() ?? 0
                loaded.append((NoteSample(left: left, right: right, frames: first.count, rate: reader.info.sampleRate, root: file.note), peak))
            } catch {
                if let refusal = error as? AudioUnitError { throw refusal }
                throw .failedToInitialize("the sample \(file.path) could not be read: \(error)", unit: unit)
            }
        }
        // Layers on one note, quietest first.
        let order = loaded.indices.sorted { (loaded[$0].sample.root, loaded[$0].peak) < (loaded[$1].sample.root, loaded[$1].peak) }
        sampleCount = order.count
        samples = memory.take(order.count)
        for (index, source) in order.enumerated() { (samples + index).initialize(to: loaded[source].sample) }
        map = memory.take(128 * 8)
        let roots = Array(Set(order.map { loaded[$0].sample.root })).sorted()
        for note in 0..<128 {
            let nearest = roots.min { (abs($0 - note), $0) < (abs($1 - note), $1) }!
            let layers = (0..<sampleCount).filter { samples[$0].root == nearest }
            for band in 0..<8 { map[note * 8 + band] = Int32(layers[band * layers.count / 8]) }
        }
    }

    /// The sample note `note` plays at `velocity` (1...127). Thread: any.
    @inline(__always)
    func sample(note: Int, velocity: Int) -> Int { Int(map[note * 8 + min(7, max(0, velocity - 1) / 16)]) }
}
