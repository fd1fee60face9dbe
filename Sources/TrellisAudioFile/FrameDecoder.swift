import TrellisCore

/// Decodes one open file into non-interleaved float. One thread at a time.
protocol FrameDecoder: AnyObject {
    /// Reads up to `frameCount` frames into each channel of `buffers`, starting `offset`
    /// frames into them; fewer only at the end of the file. Allocates nothing.
    func read(into buffers: AudioBuffers, offset: Int, frameCount: Int) throws(AudioFileError) -> Int
    /// Moves so the next read starts at `frame`, exactly.
    func seek(toFrame frame: Int) throws(AudioFileError)
    var isOpen: Bool { get }
    /// Frees the C resource; later calls do nothing.
    func close()
}
