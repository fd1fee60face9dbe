import TrellisCore

/// Where each part of a bridged plugin's cycle lies in the memory the host and its
/// bridge process share. Both sides compute it from the same figures (the setup
/// message carries them), so the shared memory holds samples and events only.
///
/// The header's first two words are futexes: the host moves `request` on to post a
/// cycle, the bridge copies it into `reply` when the cycle is done.
struct BridgeLayout: Sendable, Equatable {
    let inputChannels: [Int]
    let outputChannels: [Int]
    let midiOutputCount: Int
    let maximumFrames: Int
    let parameterCount: Int

    static let eventCapacity = 4096
    static let midiCapacity = 1024

    static let requestOffset = 0
    static let replyOffset = 4
    static let frameCountOffset = 8
    static let eventCountOffset = 12
    static let statusOffset = 16
    static let timeStampOffset = 32
    static let timeOffset = 64
    static let headerSize = 512

    let inputsOffset: Int
    let outputsOffset: Int
    let eventsOffset: Int
    let midiOffset: Int
    let valuesOffset: Int
    let size: Int

    init(inputChannels: [Int], outputChannels: [Int], midiOutputCount: Int, maximumFrames: Int, parameterCount: Int) {
        precondition(MemoryLayout<AudioTimeStamp>.size <= Self.timeOffset - Self.timeStampOffset)
        precondition(MemoryLayout<TimeContext>.size <= Self.headerSize - Self.timeOffset)
        self.inputChannels = inputChannels
        self.outputChannels = outputChannels
        self.midiOutputCount = midiOutputCount
        self.maximumFrames = maximumFrames
        self.parameterCount = parameterCount
        func aligned(_ bytes: Int) -> Int { (bytes + 63) & ~63 }
        let channelBytes = maximumFrames * MemoryLayout<Float>.size
        inputsOffset = Self.headerSize
        outputsOffset = inputsOffset + aligned(inputChannels.reduce(0, +) * channelBytes)
        eventsOffset = outputsOffset + aligned(outputChannels.reduce(0, +) * channelBytes)
        midiOffset = eventsOffset + aligned(Self.eventCapacity * MemoryLayout<RenderEvent>.stride)
        valuesOffset = midiOffset + midiOutputCount * Self.midiBusBytes
        size = valuesOffset + aligned(max(1, parameterCount) * MemoryLayout<Float>.size)
    }

    /// One MIDI output bus: its count, its dropped count, its events.
    static var midiBusBytes: Int { 64 + midiCapacity * MemoryLayout<RenderEvent>.stride }

    /// The words a text message carries (see `init(words:)`).
    var words: [String] {
        ["\(maximumFrames)", "\(parameterCount)", "\(midiOutputCount)",
         inputChannels.map(String.init).joined(separator: ","), outputChannels.map(String.init).joined(separator: ",")]
    }

    init?(words: [Substring]) {
        guard words.count == 5, let frames = Int(words[0]), let parameters = Int(words[1]), let midi = Int(words[2]),
              frames > 0, frames <= 1 << 20, parameters >= 0, parameters <= 1 << 16, midi >= 0, midi <= 64
        else { return nil }
        func channels(_ word: Substring) -> [Int]? {
            guard !word.isEmpty else { return [] }
            let counts = word.split(separator: ",").compactMap { Int($0) }
            return counts.count == word.split(separator: ",").count && counts.allSatisfy({ $0 > 0 && $0 <= 64 }) && counts.count <= 64 ? counts : nil
        }
        guard let inputs = channels(words[3]), let outputs = channels(words[4]) else { return nil }
        self.init(inputChannels: inputs, outputChannels: outputs, midiOutputCount: midi, maximumFrames: frames, parameterCount: parameters)
    }
}

/// The shared memory seen through a layout: typed pointers into it, and the figures
/// the audio side needs as plain values (no array, so copying the view retains
/// nothing). Used by the host's kernel and the bridge's render thread; its bus table
/// lives in its owner's arena.
struct BridgeView: @unchecked Sendable {
    let base: UnsafeMutableRawPointer
    let maximumFrames: Int
    let parameterCount: Int
    let midiOutputCount: Int
    let inputBusCount: Int
    let outputBusCount: Int
    /// Channels per bus: the input buses', then the output buses'.
    let busChannels: UnsafeMutablePointer<Int>
    private let inputsOffset: Int
    private let outputsOffset: Int
    private let eventsOffset: Int
    private let midiOffset: Int
    private let valuesOffset: Int

    init(base: UnsafeMutableRawPointer, layout: BridgeLayout, in memory: Arena) {
        self.base = base
        maximumFrames = layout.maximumFrames
        parameterCount = layout.parameterCount
        midiOutputCount = layout.midiOutputCount
        inputBusCount = layout.inputChannels.count
        outputBusCount = layout.outputChannels.count
        let counts = layout.inputChannels + layout.outputChannels
        busChannels = memory.copy(counts)
        inputsOffset = layout.inputsOffset
        outputsOffset = layout.outputsOffset
        eventsOffset = layout.eventsOffset
        midiOffset = layout.midiOffset
        valuesOffset = layout.valuesOffset
    }

    @inline(__always) func inputChannels(_ bus: Int) -> Int { busChannels[bus] }
    @inline(__always) func outputChannels(_ bus: Int) -> Int { busChannels[inputBusCount &+ bus] }

    var request: UnsafeMutablePointer<UInt32> { (base + BridgeLayout.requestOffset).assumingMemoryBound(to: UInt32.self) }
    var reply: UnsafeMutablePointer<UInt32> { (base + BridgeLayout.replyOffset).assumingMemoryBound(to: UInt32.self) }
    var frameCount: UnsafeMutablePointer<Int32> { (base + BridgeLayout.frameCountOffset).assumingMemoryBound(to: Int32.self) }
    var eventCount: UnsafeMutablePointer<Int32> { (base + BridgeLayout.eventCountOffset).assumingMemoryBound(to: Int32.self) }
    var status: UnsafeMutablePointer<UInt8> { (base + BridgeLayout.statusOffset).assumingMemoryBound(to: UInt8.self) }
    var timeStamp: UnsafeMutablePointer<AudioTimeStamp> { (base + BridgeLayout.timeStampOffset).assumingMemoryBound(to: AudioTimeStamp.self) }
    var time: UnsafeMutablePointer<TimeContext> { (base + BridgeLayout.timeOffset).assumingMemoryBound(to: TimeContext.self) }
    var events: UnsafeMutablePointer<RenderEvent> { (base + eventsOffset).assumingMemoryBound(to: RenderEvent.self) }
    var values: UnsafeMutablePointer<Float> { (base + valuesOffset).assumingMemoryBound(to: Float.self) }

    /// Channel `channel` of all input channels counted across buses.
    func input(_ channel: Int) -> UnsafeMutablePointer<Float> {
        (base + inputsOffset).assumingMemoryBound(to: Float.self) + channel &* maximumFrames
    }

    func output(_ channel: Int) -> UnsafeMutablePointer<Float> {
        (base + outputsOffset).assumingMemoryBound(to: Float.self) + channel &* maximumFrames
    }

    /// MIDI output bus `bus` as a buffer over the shared memory.
    func midiOutput(_ bus: Int) -> MIDIBuffer {
        let start = base + midiOffset + bus &* BridgeLayout.midiBusBytes
        return MIDIBuffer(
            events: (start + 64).assumingMemoryBound(to: RenderEvent.self),
            counter: start.assumingMemoryBound(to: Int.self),
            capacity: BridgeLayout.midiCapacity,
            dropped: (start + 8).assumingMemoryBound(to: Int.self))
    }
}
