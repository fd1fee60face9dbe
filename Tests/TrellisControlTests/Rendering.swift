import Foundation
import TrellisAudioFile
import TrellisCore
import TrellisGraph
import TrellisOffline

/// Renders `frames` frames of a graph offline and returns the first channel.
func renderOffline(_ graph: Graph, frames: Int) throws -> [Float] {
    let path = NSTemporaryDirectory() + "trellis-control-render-\(UUID().uuidString.prefix(8)).wav"
    defer { try? FileManager.default.removeItem(atPath: path) }
    try OfflineRenderer(graph: graph).render(frameCount: frames, to: path)
    let reader = try AudioFileReader(path: path)
    let buffers = AudioBufferList(channelCount: reader.info.channelCount, frameCapacity: frames)
    let read = try reader.read(into: buffers[0], frameCount: frames)
    return Array(UnsafeBufferPointer(start: buffers[0][0], count: read))
}
