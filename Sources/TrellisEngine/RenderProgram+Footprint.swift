import TrellisCore

extension RenderProgram {
    /// What a program of `plan` allocates for slices of up to `maximumFrames`, in bytes:
    /// its audio buffers, MIDI buffers and delay lines, and a small table entry per unit.
    /// The units' own memory (a reverb's lines, a plugin's) is not counted. Known from
    /// the plan alone, so a graph can refuse a program before allocating it. Thread: any.
    public static func footprint(of plan: ProgramPlan, maximumFrames: Int) -> Int {
        let stride = (maximumFrames + 15) & ~15
        let audio = (plan.bufferCount + 1).multipliedReportingOverflow(by: stride * MemoryLayout<Float>.stride)
        let midi = plan.midiBufferCount * midiCapacity * MemoryLayout<RenderEvent>.stride
        let delays = plan.delays.reduce(0) { $0 + max(1, $1.frames * $1.channelCount) * MemoryLayout<Float>.stride }
        let perUnit = plan.units.count * 512
        return audio.overflow ? .max : audio.partialValue + midi + delays + perUnit
    }
}
