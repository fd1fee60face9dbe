/// Something a backend (the JACK head node, the offline renderer) pulls each cycle:
/// a compiled graph, or anything else that turns input frames into output frames.
public protocol RenderSource: AnyObject, Sendable {
    /// Renders `frameCount` frames. `input` holds what the backend captured (the head
    /// node's input element) and `output` receives the result; both are non-interleaved
    /// float. On anything but `.ok` the backend outputs silence. Thread: audio.
    func render(frameCount: Int, timeStamp: AudioTimeStamp, input: AudioBuffers, output: AudioBuffers) -> RenderStatus
}
