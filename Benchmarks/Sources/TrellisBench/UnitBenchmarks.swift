import TrellisCore
import TrellisUnits

/// Nanoseconds per frame for each DSP unit, rendering 256-frame slices of noise at 48 kHz.
func unitBenchmarks() -> [Benchmark] {
    var cases: [Benchmark] = []
    func add(_ name: String, _ make: () throws -> AudioUnitBase, setUp: (AudioUnitBase) throws -> Void = { _ in }) {
        do {
            let unit = try make()
            try setUp(unit)
            cases.append(try renderCase(name: name, unit: unit))
        } catch {
            print("units\t\(name)\tskipped: \(error)")
        }
    }
    add("mixer 8 mono -> stereo", { try monoMixer(8) }) { try $0.setParameter(named: "metering", 0) }
    add("mixer 8 mono -> stereo, metering", { try monoMixer(8) })
    add("mixer3d 8 -> stereo", { Mixer3D(inputCount: 8) }) { unit in
        for input in 0..<8 { try unit.setParameter(named: "in\(input).azimuth", Float(input * 40 - 160)) }
    }
    add("mixer3d 8 -> 5.1", {
        let unit = Mixer3D(inputCount: 8)
        try unit.setFormat(.canonical(sampleRate: 48_000, channelCount: 6), scope: .output, element: 0)
        return unit
    })
    add("eq 3 bands stereo", { ParametricEQ() }) { unit in
        for band in 0..<3 { try unit.setParameter(named: "band\(band).gain", Float(band * 2 + 3)) }
    }
    add("eq 16 bands stereo", { ParametricEQ() }) { unit in
        for band in 0..<16 { try unit.setParameter(named: "band\(band).gain", 2) }
    }
    add("graphic-eq 31 bands stereo", { GraphicEQ() }) { unit in
        try unit.setParameter(named: "bands", 1)
        for band in 0..<31 { try unit.setParameter(named: "band\(band).gain", Float(band % 5) - 2) }
    }
    add("ipod-eq Rock stereo", { IPodEQ() }) { try $0.setProperty(.presentPreset, .string("Rock"), scope: .global, element: 0) }
    add("limiter stereo", { PeakLimiter() }) { try $0.setParameter(named: "pregain", 12) }
    add("delay stereo", { Delay() }) { try $0.setParameter(named: "time", 0.3) }
    add("converter stereo swap", { Converter() }) { try $0.setProperty(.channelMap, .channelMap([1, 0]), scope: .global, element: 0) }
    cases.append(sampleRateCase())
    cases.append(ditherCase())
    return cases
}

private func monoMixer(_ inputs: Int) throws -> AudioUnitBase {
    let mixer = MultichannelMixer(inputCount: inputs)
    for input in 0..<inputs {
        try mixer.setFormat(.canonical(sampleRate: 48_000, channelCount: 1), scope: .input, element: input)
        try mixer.setParameter(named: "in\(input).pan", Float(input) / Float(inputs) * 2 - 1)
    }
    return mixer
}

private func fillNoise(_ buffers: AudioBufferList, frames: Int) {
    var state: UInt32 = 22_222
    for bus in 0..<buffers.busCount {
        for channel in 0..<buffers[bus].channelCount {
            for frame in 0..<frames {
                state = state &* 1_664_525 &+ 1_013_904_223
                buffers[bus][channel][frame] = Float(Int32(bitPattern: state)) * 0x1p-32
            }
        }
    }
}

private func renderCase(name: String, unit: AudioUnitBase, frames: Int = 256) throws -> Benchmark {
    try unit.setMaximumFramesPerSlice(frames)
    try unit.initialize()
    let inputCounts = try (0..<unit.elementCount(.input)).map { try unit.format(scope: .input, element: $0).channelCount }
    let outputCounts = try (0..<unit.elementCount(.output)).map { try unit.format(scope: .output, element: $0).channelCount }
    let inputs = AudioBufferList(channelCounts: inputCounts, frameCapacity: frames)
    let outputs = AudioBufferList(channelCounts: outputCounts, frameCapacity: frames)
    fillNoise(inputs, frames: frames)
    var time: Int64 = 0
    return Benchmark(group: "units", name: name, framesPerRun: frames * 16) {
        for _ in 0..<16 {
            let context = RenderContext(frameCount: frames, timeStamp: AudioTimeStamp(sampleTime: time), inputs: inputs.buses, outputs: outputs.buses)
            _ = unit.render(context)
            time += Int64(frames)
        }
        withExtendedLifetime((inputs, outputs)) {}
    }
}

private func sampleRateCase() -> Benchmark {
    let frames = 4096
    let converter = try! SampleRateConverter(inputRate: 44_100, outputRate: 48_000, channelCount: 2, quality: .high)
    let input = AudioBufferList(channelCount: 2, frameCapacity: frames)
    let output = AudioBufferList(channelCount: 2, frameCapacity: frames * 2)
    fillNoise(input, frames: frames)
    return Benchmark(group: "units", name: "soxr 44.1k -> 48k stereo high (per input frame)", framesPerRun: frames) {
        _ = converter.process(input: input[0], inputFrames: frames, output: output[0], outputCapacity: frames * 2)
    }
}

private func ditherCase() -> Benchmark {
    let frames = 4096
    let input = AudioBufferList(channelCount: 1, frameCapacity: frames)
    fillNoise(input, frames: frames)
    let output = UnsafeMutableRawPointer.allocate(byteCount: frames * 2, alignment: 4)
    var dither: TPDFDither? = TPDFDither()
    return Benchmark(group: "units", name: "float32 -> int16 with TPDF dither (per sample)", framesPerRun: frames) {
        SampleTypeConversion.fromFloat(input[0][0], count: frames, to: .int16, into: output, dither: &dither)
    }
}
