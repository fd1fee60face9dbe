import CFluidSynth
import TrellisCore

/// Sampler's real-time half: MIDI in, stereo out, from libfluidsynth (a SoundFont) or
/// from `NoteBank` (note-named files). Each MIDI message lands on its frame: the cycle is
/// rendered in segments between messages. The unit owns what the pointers reach and
/// frees it after the last program that runs the kernel. Thread: audio, or the control
/// side while no program runs it.
struct SamplerKernel: UnitKernel {
    /// The SoundFont synth, when the bank is a SoundFont.
    let synth: OpaquePointer?
    let fontID: Int32
    /// The note bank's voices, when the bank is files.
    let voices: UnsafeMutablePointer<NoteVoices>?
    /// A mono output's right half goes here: `maximumFrames` floats.
    let scratch: UnsafeMutablePointer<Float>
    var gain: Float = 1
    var program = 0
    var bank = 0

    enum Index {
        static let masterGain = 0, globalTuning = 1, stereoPan = 2, polyphony = 3, program = 4, bank = 5
    }

    mutating func reset() {
        if let synth { FluidCalls.soundsOff(synth) }
        voices?.pointee.silence()
    }

    mutating func setParameter(index: Int, value: Float, rampFrames: Int) {
        switch index {
        case Index.masterGain:
            gain = Float(_exp(Double(value) * 0.11512925464970229))  // 10^(dB/20)
            if let synth { FluidCalls.setGain(synth, gain) }
            voices?.pointee.gain = gain
        case Index.globalTuning:
            if let synth { FluidCalls.setGenerator(synth, Int32(GEN_FINETUNE.rawValue), value) }
            voices?.pointee.tuningCents = value
        case Index.stereoPan:
            if let synth { FluidCalls.setGenerator(synth, Int32(GEN_PAN.rawValue), value * 5) }
            voices?.pointee.pan = value / 100
        case Index.polyphony:
            let count = max(1, Int(value))
            if let synth { FluidCalls.setPolyphony(synth, count) }
            voices?.pointee.polyphony = min(count, NoteVoices.capacity)
        case Index.program, Index.bank:
            if index == Index.program { program = Int(value) } else { bank = Int(value) }
            if let synth { FluidCalls.programSelect(synth, font: fontID, bank: bank, program: program) }
        default: break
        }
    }

    mutating func receiveMIDI(_ event: RenderEvent) {
        if let synth { FluidCalls.send(synth, status: event.status, data1: event.data1, data2: event.data2) }
        voices?.pointee.receive(status: event.status, data1: event.data1, data2: event.data2)
    }

    mutating func process(_ context: RenderContext) -> RenderStatus {
        let output = context.outputs[0]
        guard output.channelCount > 0 else { return .ok }
        let left = output[0], right = output.channelCount > 1 ? output[1] : scratch
        if let synth {
            FluidCalls.write(synth, context.frameCount, left, right)
        } else if let voices {
            voices.pointee.render(left: left, right: right, frames: context.frameCount)
        } else {
            left.update(repeating: 0, count: context.frameCount)
            right.update(repeating: 0, count: context.frameCount)
        }
        if output.channelCount == 1 {
            for frame in 0..<context.frameCount { left[frame] = 0.5 * (left[frame] + right[frame]) }
        }
        for channel in 2..<max(2, output.channelCount) { output[channel].update(repeating: 0, count: context.frameCount) }
        return .ok
    }

    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func render(_ state: UnsafeMutableRawPointer, _ context: UnsafeRawPointer) -> UInt8 {
        renderInSegments(state, context)
    }
}
