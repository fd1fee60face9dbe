import Testing
import TrellisCore
@testable import TrellisUnits

@Suite("Kernels")
struct KernelTests {
    @Test("a gain change in the middle of a call lands on its frame and ramps from the old gain")
    func sampleAccurateGainStep() throws {
        let gain = Gain(channelCount: 1)
        try gain.setMaximumFramesPerSlice(256)
        try gain.initialize()
        let frames = 256, step = 100, ramp = 32
        let inputs = AudioBufferList(channelCount: 1, frameCapacity: frames)
        let outputs = AudioBufferList(channelCount: 1, frameCapacity: frames)
        // Views the kernel points into the middle of the call.
        let segmentInputs = AudioBufferList(channelCount: 1, frameCapacity: 1)
        let segmentOutputs = AudioBufferList(channelCount: 1, frameCapacity: 1)
        inputs[0][0].update(repeating: 1, count: frames)
        let events = [RenderEvent.parameter(index: 0, value: -20, rampFrames: Int32(ramp), offset: Int32(step))]
        let status = events.withUnsafeBufferPointer { list in
            gain.render(RenderContext(
                frameCount: frames, timeStamp: AudioTimeStamp(sampleTime: 0),
                inputs: inputs.buses, outputs: outputs.buses,
                events: RenderEventList(base: list.baseAddress, count: list.count),
                segmentInputs: segmentInputs.buses, segmentOutputs: segmentOutputs.buses))
        }
        #expect(status == .ok)
        let output = outputs.samples(channel: 0, frameCount: frames)
        let target = decibelsToGain(-20)
        var expected = Array(repeating: Float(1), count: step)
        var current: Float = 1
        let increment = (target - 1) / Float(ramp)
        for frame in 0..<(frames - step) {
            current = frame < ramp - 1 ? current + increment : target
            expected.append(current)
        }
        #expect(output == expected)
        gain.uninitialize()
    }
}
