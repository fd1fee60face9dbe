import CAllocationCounter
import Glibc
import Synchronization
import TrellisCore
import TrellisJACK

/// A stand-in for a compiled graph until the engine lands: each channel is scaled by a
/// gain and then run through a one-pole low-pass, y += a * (g * x - y) — a gain and an EQ.
/// It can also count the process thread's allocations over a window of cycles and record
/// the MIDI events of the first cycle that has any.
final class GainFilterSource: RenderSource, @unchecked Sendable {
    let gain: Float
    let coefficient: Float
    let channels: Int
    private let memory: UnsafeMutablePointer<Float>

    let preparedSettings = Mutex<[BackendSettings]>([])
    let renders = Atomic<Int>(0)
    let renderThread = Atomic<UInt>(0)

    /// Counting window: arm at `armAt` renders, disarm `window` renders later.
    var armAt = -1
    var window = 1000
    let allocations = Atomic<Int>(-1)
    let frees = Atomic<Int>(-1)

    /// Set before start; read during render.
    var midi: MIDIEventList?
    let midiSeen = Atomic<Int>(0)
    let midiFrames: UnsafeMutablePointer<Int>
    let midiBytes: UnsafeMutablePointer<UInt8>

    /// Sleeps once, for this many microseconds, at render `stallAt`: a deliberate overrun.
    var stallAt = -1
    var stallMicroseconds: UInt32 = 0

    init(channels: Int, gain: Float, coefficient: Float) {
        self.channels = channels
        self.gain = gain
        self.coefficient = coefficient
        memory = .allocate(capacity: max(1, channels))
        memory.initialize(repeating: 0, count: max(1, channels))
        midiFrames = .allocate(capacity: 8)
        midiFrames.initialize(repeating: -1, count: 8)
        midiBytes = .allocate(capacity: 24)
        midiBytes.initialize(repeating: 0, count: 24)
    }

    func prepare(_ settings: BackendSettings) {
        preparedSettings.withLock { $0.append(settings) }
    }

    func render(frameCount: Int, timeStamp: AudioTimeStamp, input: AudioBuffers, output: AudioBuffers) -> RenderStatus {
        let count = renders.wrappingAdd(1, ordering: .relaxed).oldValue
        renderThread.store(UInt(pthread_self()), ordering: .relaxed)
        if count == armAt { trellis_allocation_counter_arm() }
        if count == armAt + window {
            trellis_allocation_counter_disarm()
            frees.store(Int(trellis_allocation_counter_frees()), ordering: .relaxed)
            allocations.store(Int(trellis_allocation_counter_allocations()), ordering: .releasing)
        }
        if count == stallAt { usleep(stallMicroseconds) }
        for channel in 0..<min(channels, output.channelCount) {
            let x = channel < input.channelCount ? input[channel] : nil
            let y = output[channel]
            var state = memory[channel]
            for index in 0..<frameCount {
                let sample = x?[index] ?? 0
                state += coefficient * (gain * sample - state)
                y[index] = state
            }
            memory[channel] = state
        }
        if let midi, midi.count > 0, midiSeen.load(ordering: .relaxed) == 0 {
            for index in 0..<min(midi.count, 8) {
                let event = midi[index]
                midiFrames[index] = event.frame
                for byte in 0..<min(3, event.bytes.count) { midiBytes[index * 3 + byte] = event.bytes[byte] }
            }
            midiSeen.store(midi.count, ordering: .releasing)
        }
        return .ok
    }

    /// What the source computes for `input`, starting from rest, in the same float operations.
    func expected(for input: [Float]) -> [Float] {
        var state: Float = 0
        return input.map { sample in
            state += coefficient * (gain * sample - state)
            return state
        }
    }
}
