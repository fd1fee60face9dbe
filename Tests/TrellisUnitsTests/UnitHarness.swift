import CAllocationCounter
import Glibc
import TrellisCore
import TrellisUnits

/// Drives a unit outside a graph: owns its input and output buses and renders slices
/// from plain arrays, the way the graph's program would.
final class UnitHarness {
    let unit: AudioUnitBase
    let inputs: AudioBufferList
    let outputs: AudioBufferList
    let capacity: Int
    private var sampleTime: Int64 = 0

    init(_ unit: AudioUnitBase, sampleRate: Double = 48_000, frameCapacity: Int = 512) throws {
        self.unit = unit
        capacity = frameCapacity
        try unit.setSampleRate(sampleRate)
        try unit.setMaximumFramesPerSlice(frameCapacity)
        try unit.initialize()
        let inputCounts = try (0..<unit.elementCount(.input)).map { try unit.format(scope: .input, element: $0).channelCount }
        let outputCounts = try (0..<unit.elementCount(.output)).map { try unit.format(scope: .output, element: $0).channelCount }
        inputs = AudioBufferList(channelCounts: inputCounts.isEmpty ? [1] : inputCounts, frameCapacity: frameCapacity)
        outputs = AudioBufferList(channelCounts: outputCounts, frameCapacity: frameCapacity)
        inputBusCount = inputCounts.count
    }

    private let inputBusCount: Int

    @discardableResult
    func render(frames: Int) -> RenderStatus {
        let context = RenderContext(
            frameCount: frames, timeStamp: AudioTimeStamp(sampleTime: sampleTime),
            inputs: BusBuffers(buses: inputs.buses.buses, count: inputBusCount), outputs: outputs.buses)
        sampleTime += Int64(frames)
        return unit.render(context)
    }

    func fillInput(bus: Int = 0, channel: Int, with samples: ArraySlice<Float>) {
        let pointer = inputs[bus][channel]
        for (offset, sample) in samples.enumerated() { pointer[offset] = sample }
    }

    func output(bus: Int = 0, channel: Int, frames: Int) -> [Float] {
        outputs.samples(bus: bus, channel: channel, frameCount: frames)
    }

    /// Runs whole signals (one array per input channel of bus 0) through the unit in
    /// slices and returns every output channel of bus 0.
    func process(_ signal: [[Float]], slice: Int? = nil) -> [[Float]] {
        let length = signal.first?.count ?? 0
        let step = slice ?? capacity
        let channels = outputs[0].channelCount
        var result = Array(repeating: [Float](), count: channels)
        for channel in 0..<channels { result[channel].reserveCapacity(length) }
        var start = 0
        while start < length {
            let frames = min(step, length - start)
            for (channel, samples) in signal.enumerated() {
                fillInput(channel: channel, with: samples[start..<start + frames])
            }
            render(frames: frames)
            for channel in 0..<channels { result[channel] += output(channel: channel, frames: frames) }
            start += frames
        }
        return result
    }
}

/// Counts heap calls the body makes on this thread, the least of up to three runs: the
/// Swift runtime's metadata caches, grown by another test's thread, free their old
/// storage from whichever reader leaves last, now and then this one (a free with no
/// allocation, under a busy suite). What the body itself does is seen on every run.
func countAllocations(_ body: () -> Void) -> (allocations: UInt64, frees: UInt64) {
    var least: (allocations: UInt64, frees: UInt64)?
    for _ in 0..<3 {
        trellis_allocation_counter_arm()
        body()
        trellis_allocation_counter_disarm()
        let counts = (allocations: trellis_allocation_counter_allocations(), frees: trellis_allocation_counter_frees())
        if least.map({ counts.allocations + counts.frees < $0.allocations + $0.frees }) ?? true { least = counts }
        if counts.allocations == 0 && counts.frees == 0 { break }
    }
    return least!
}

func sine(frequency: Double, sampleRate: Double, count: Int, amplitude: Double = 1, phase: Double = 0) -> [Float] {
    (0..<count).map { Float(amplitude * Glibc.sin(2 * Double.pi * frequency * Double($0) / sampleRate + phase)) }
}

func rms(_ samples: ArraySlice<Float>) -> Double {
    (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
}

func decibels(_ ratio: Double) -> Double { 20 * log10(ratio) }

/// Frequencies spaced evenly on a log scale.
func logSpaced(_ count: Int, from low: Double, to high: Double) -> [Double] {
    (0..<count).map { low * Glibc.pow(high / low, Double($0) / Double(count - 1)) }
}
