import TrellisCore
import TrellisGraph
import TrellisMedia

public typealias AVAudioNodeTapBlock = @Sendable (AVAudioPCMBuffer, AVAudioTime) -> Void

/// A tap on one output bus: Trellis' tap (the render thread copies into a ring and never
/// waits; a thread of the tap's own calls the block), and the block it calls.
struct InstalledTap {
    let tap: Tap
    var token: ObserverToken?
}

extension AVAudioNode {
    /// Calls `tapBlock` with each `bufferSize` frames of output bus `bus`, in order, on
    /// a thread of the tap's own (never the audio thread), with the time of the first
    /// frame. Offline, rendering waits for the block, so no frame is dropped; live, a
    /// block slower than the audio loses frames, and the next buffer's time shows the
    /// gap. A second tap on the same bus replaces the first. `format`, when given, must
    /// have the bus's rate and channel count.
    public func installTap(onBus bus: AVAudioNodeBus, bufferSize: AVAudioFrameCount, format: AVAudioFormat?, block tapBlock: @escaping AVAudioNodeTapBlock) {
        removeTap(onBus: bus)
        let busFormat = outputFormat(forBus: bus)
        let channels = Int(busFormat.channelCount), rate = busFormat.sampleRate
        let tap = Tap(channelCount: channels, bufferSize: Int(max(1, bufferSize))) { delivered in
            guard let buffer = AVAudioPCMBuffer(pcmFormat: busFormat, frameCapacity: AVAudioFrameCount(delivered.frameCount)) else { return }
            buffer.frameLength = AVAudioFrameCount(delivered.frameCount)
            for channel in 0..<min(channels, delivered.buffers.channelCount) {
                buffer.floatChannelData![channel].update(from: delivered.buffers[channel], count: delivered.frameCount)
            }
            tapBlock(buffer, AVAudioTime(hostTime: delivered.timeStamp.hostTime, sampleTime: delivered.timeStamp.sampleTime, atRate: rate))
        }
        taps[bus] = InstalledTap(tap: tap)
        engine?.installTaps(of: self)
    }

    /// Stops the tap on `bus`; a block running now finishes first.
    public func removeTap(onBus bus: AVAudioNodeBus) {
        guard let installed = taps.removeValue(forKey: bus) else { return }
        if let token = installed.token, let engine { engine.edit { _ = try? engine.graph.removeObserver(token) } }
    }
}

extension AVAudioEngine {
    /// Puts `node`'s taps that are not in the graph yet into it.
    func installTaps(of node: AVAudioNode) {
        guard let id = node.nodeID else { return }
        edit { installTaps(of: node, id: id) }
    }

    private func installTaps(of node: AVAudioNode, id: NodeID) {
        for (bus, installed) in node.taps where installed.token == nil {
            do {
                node.taps[bus]?.token = try graph.addObserver(installed.tap, node: id, bus: bus)
            } catch {
                refuse("installTap on \(node.unit.name) bus \(bus): \(error)")
            }
        }
    }
}
