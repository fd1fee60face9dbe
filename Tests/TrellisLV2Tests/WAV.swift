import CSndfile

/// Mono float WAV files through libsndfile, for comparisons with outside programs.
enum WAV {
    struct Failure: Error { let message: String }

    static func write(_ samples: [Float], sampleRate: Int, to path: String) throws {
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = 1
        info.format = Int32(SF_FORMAT_WAV | SF_FORMAT_FLOAT)
        guard let file = sf_open(path, Int32(SFM_WRITE), &info) else { throw Failure(message: "cannot write \(path)") }
        defer { sf_close(file) }
        var copy = samples
        guard sf_writef_float(file, &copy, sf_count_t(samples.count)) == samples.count else { throw Failure(message: "short write \(path)") }
    }

    static func read(_ path: String) throws -> [Float] {
        var info = SF_INFO()
        guard let file = sf_open(path, Int32(SFM_READ), &info) else { throw Failure(message: "cannot read \(path)") }
        defer { sf_close(file) }
        var interleaved = [Float](repeating: 0, count: Int(info.frames) * Int(info.channels))
        let frames = Int(sf_readf_float(file, &interleaved, info.frames))
        return stride(from: 0, to: frames * Int(info.channels), by: Int(info.channels)).map { interleaved[$0] }
    }
}
