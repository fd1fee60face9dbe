import CLilv
import Glibc
import Synchronization
import TrellisCore

/// Everything the audio thread touches for one plugin instance, in memory allocated
/// once when the unit is initialized: control values (the control ports point here),
/// parameter ramps, bus-to-port tables, atom buffers, MIDI event lists and rings.
///
/// The render gate keeps the instance's audio calls and its instantiation-class calls
/// (state save/restore, deactivate) apart without a lock on the audio thread: render
/// takes the gate or, when the control side holds it, outputs silence for that cycle.
final class LV2Renderer: @unchecked Sendable {
    struct PendingMIDI: BitwiseCopyable {
        var frame: Int32
        var message: MIDIMessage
    }

    static let subBlockFrames = 32
    static let eventCapacity = 1024

    let handle: LV2_Handle
    private let runFunction: @convention(c) (LV2_Handle?, UInt32) -> Void
    private let connectFunction: @convention(c) (LV2_Handle?, UInt32, UnsafeMutableRawPointer?) -> Void
    let maximumFrames: Int

    let controls: UnsafeMutablePointer<Float>
    private let parameterCount: Int
    private let parameterPorts: UnsafeMutablePointer<Int32>
    private let parameterIsOutput: UnsafeMutablePointer<Bool>
    private let rampStep: UnsafeMutablePointer<Float>
    private let rampTarget: UnsafeMutablePointer<Float>
    private let rampRemaining: UnsafeMutablePointer<Int32>
    private let values: AtomicFloats

    private let inputBuses: PortTable
    private let outputBuses: PortTable
    private let silence: UnsafeMutablePointer<Float>
    private let sink: UnsafeMutablePointer<Float>

    let atomCapacity: Int
    private let atomInputs: PortBuffers
    private let atomOutputs: PortBuffers
    private let readBack: PortBuffers
    private let midiInputSlot: Int
    private let sequenceType: UInt32
    private let chunkType: UInt32
    private let midiType: UInt32

    private let events: UnsafeMutablePointer<PendingMIDI>
    private var eventCount = 0
    let queuedMIDI = SPSCRing<MIDIMessage>(capacity: 1024)
    let midiOutput = SPSCRing<TimedMIDIMessage>(capacity: 4096)
    let worker: LV2Worker?
    private let gate = Atomic<Int>(0)

    /// `parameterPorts[i]` is the control port of parameter `i`.
    init(
        instance: UnsafeMutablePointer<LilvInstance>, layout: LV2PortLayout, portCount: Int,
        parameters: [ParameterInfo], values: AtomicFloats, maximumFrames: Int, atomCapacity: Int,
        urids: URIDMap, worker: LV2Worker?
    ) {
        let descriptor = instance.pointee.lv2_descriptor!.pointee
        handle = instance.pointee.lv2_handle
        runFunction = descriptor.run
        connectFunction = descriptor.connect_port
        self.maximumFrames = maximumFrames
        self.values = values
        self.worker = worker

        controls = .allocate(capacity: max(1, portCount))
        controls.initialize(repeating: 0, count: max(1, portCount))
        parameterCount = parameters.count
        parameterPorts = .allocate(capacity: max(1, parameters.count))
        parameterIsOutput = .allocate(capacity: max(1, parameters.count))
        rampStep = .allocate(capacity: max(1, parameters.count))
        rampTarget = .allocate(capacity: max(1, parameters.count))
        rampRemaining = .allocate(capacity: max(1, parameters.count))
        for (index, parameter) in parameters.enumerated() {
            parameterPorts[index] = Int32(parameter.address.id)
            parameterIsOutput[index] = parameter.flags.contains(.output)
            rampStep[index] = 0
            rampTarget[index] = values[index]
            rampRemaining[index] = 0
            controls[Int(parameter.address.id)] = values[index]
        }

        inputBuses = PortTable(layout.inputBuses.map(\.ports))
        outputBuses = PortTable(layout.outputBuses.map(\.ports))
        silence = .allocate(capacity: maximumFrames)
        silence.initialize(repeating: 0, count: maximumFrames)
        sink = .allocate(capacity: maximumFrames)
        sink.initialize(repeating: 0, count: maximumFrames)

        self.atomCapacity = atomCapacity
        atomInputs = PortBuffers(ports: layout.atomInputs, capacity: atomCapacity)
        atomOutputs = PortBuffers(ports: layout.atomOutputs, capacity: atomCapacity)
        readBack = PortBuffers(ports: layout.atomOutputs, capacity: atomCapacity)
        midiInputSlot = layout.midiInput.flatMap { layout.atomInputs.firstIndex(of: $0) } ?? -1
        sequenceType = urids.map(LV2URI.atomSequence)
        chunkType = urids.map(LV2URI.atomChunk)
        midiType = urids.map(LV2URI.midiEvent)
        events = .allocate(capacity: Self.eventCapacity)

        for port in layout.controlPorts { connectFunction(handle, UInt32(port), controls + port) }
        for slot in 0..<atomInputs.count {
            AtomSequence.clear(atomInputs.buffers[slot], sequenceType: sequenceType)
            connectFunction(handle, UInt32(atomInputs.ports[slot]), atomInputs.buffers[slot])
        }
        for slot in 0..<atomOutputs.count {
            AtomSequence.prepareOutput(atomOutputs.buffers[slot], capacity: atomCapacity, chunkType: chunkType)
            AtomSequence.clear(readBack.buffers[slot], sequenceType: sequenceType)
            connectFunction(handle, UInt32(atomOutputs.ports[slot]), atomOutputs.buffers[slot])
        }
    }

    deinit {
        controls.deallocate()
        parameterPorts.deallocate()
        parameterIsOutput.deallocate()
        rampStep.deallocate()
        rampTarget.deallocate()
        rampRemaining.deallocate()
        silence.deallocate()
        sink.deallocate()
        events.deallocate()
        inputBuses.deallocate()
        outputBuses.deallocate()
        atomInputs.deallocate()
        atomOutputs.deallocate()
        readBack.deallocate()
    }

    /// Connects a port the layout left out (an optional port of an unknown type).
    /// Thread: control, before rendering.
    func connectNothing(port: Int) { connectFunction(handle, UInt32(port), nil) }

    // MARK: - Gate

    /// Takes the instance away from the audio thread, waiting at most `timeout`
    /// nanoseconds for a render in progress to finish. Thread: control.
    func acquireForControl(timeoutNanoseconds: UInt64 = 2_000_000_000) -> Bool {
        let start = HostClock.now()
        while !gate.compareExchange(expected: 0, desired: 2, ordering: .acquiring).exchanged {
            if HostClock.now() - start > timeoutNanoseconds { return false }
            var pause = timespec(tv_sec: 0, tv_nsec: 100_000)
            nanosleep(&pause, nil)
        }
        return true
    }

    /// Thread: control, after `acquireForControl` returned true.
    func releaseControl() { gate.store(0, ordering: .releasing) }

    // MARK: - Audio thread

    /// Takes a parameter change; ramps run in sub-blocks of `subBlockFrames`.
    /// Thread: audio while rendering, else control.
    @inline(__always)
    func setParameter(index: Int, value: Float, rampFrames: Int) {
        guard index >= 0, index < parameterCount, !parameterIsOutput[index] else { return }
        let port = Int(parameterPorts[index])
        if rampFrames <= 0 {
            controls[port] = value
            rampRemaining[index] = 0
        } else {
            rampTarget[index] = value
            rampStep[index] = (value - controls[port]) / Float(rampFrames)
            rampRemaining[index] = Int32(clamping: rampFrames)
        }
    }

    /// Adds a MIDI message for the next render at `frame`, kept in time order.
    /// Thread: audio.
    @inline(__always)
    func schedule(_ message: MIDIMessage, frame: Int) -> Bool {
        guard eventCount < Self.eventCapacity else { return false }
        let clamped = Int32(min(max(frame, 0), maximumFrames - 1))
        var position = eventCount
        while position > 0, events[position - 1].frame > clamped {
            events[position] = events[position - 1]
            position -= 1
        }
        events[position] = PendingMIDI(frame: clamped, message: message)
        eventCount += 1
        return true
    }

    /// Renders one slice through the plugin. Thread: audio.
    func render(_ context: RenderContext) -> RenderStatus {
        let frames = context.frameCount
        guard frames <= maximumFrames else { return .tooManyFrames }
        guard gate.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged else {
            for bus in 0..<context.outputs.count { context.outputs[bus].clear(frameCount: frames) }
            return .ok
        }
        while let message = queuedMIDI.pop() {
            if !schedule(message, frame: 0) { break }
        }
        for slot in 0..<readBack.count { AtomSequence.clear(readBack.buffers[slot], sequenceType: sequenceType) }

        var offset = 0
        while offset < frames {
            let ramping = advanceRamps(maximum: frames - offset)
            let count = ramping > 0 ? ramping : frames - offset
            connectAudio(context, offset: offset)
            writeMIDI(offset: offset, count: count, last: offset + count == frames)
            for slot in 0..<atomOutputs.count {
                AtomSequence.prepareOutput(atomOutputs.buffers[slot], capacity: atomCapacity, chunkType: chunkType)
            }
            // The one call no checker can see into: the plugin's own `run`. LV2
            // plugins that claim hardRTCapable promise it neither allocates nor blocks.
            runFunction(handle, UInt32(count))
            worker?.deliverResponses()
            collectOutputs(offset: offset, sampleTime: context.timeStamp.sampleTime)
            offset += count
        }
        eventCount = 0
        for index in 0..<parameterCount where parameterIsOutput[index] {
            values[index] = controls[Int(parameterPorts[index])]
        }
        gate.store(0, ordering: .releasing)
        return .ok
    }

    /// Moves each ramping control one sub-block on; returns the sub-block length, or 0
    /// when nothing ramps.
    @inline(__always)
    private func advanceRamps(maximum: Int) -> Int {
        var ramping = false
        for index in 0..<parameterCount where rampRemaining[index] > 0 {
            ramping = true
            break
        }
        guard ramping else { return 0 }
        let count = min(Self.subBlockFrames, maximum)
        for index in 0..<parameterCount where rampRemaining[index] > 0 {
            let port = Int(parameterPorts[index])
            let remaining = Int(rampRemaining[index])
            if remaining <= count {
                controls[port] = rampTarget[index]
                rampRemaining[index] = 0
            } else {
                controls[port] += rampStep[index] * Float(count)
                rampRemaining[index] = Int32(remaining - count)
            }
        }
        return count
    }

    @inline(__always)
    private func connectAudio(_ context: RenderContext, offset: Int) {
        for bus in 0..<inputBuses.busCount {
            let buffers: AudioBuffers = bus < context.inputs.count ? context.inputs[bus] : .empty
            for channel in 0..<inputBuses.channelCount(bus) {
                let pointer = channel < buffers.channelCount ? buffers[channel] + offset : silence
                connectFunction(handle, UInt32(inputBuses.port(bus, channel)), pointer)
            }
        }
        for bus in 0..<outputBuses.busCount {
            let buffers: AudioBuffers = bus < context.outputs.count ? context.outputs[bus] : .empty
            for channel in 0..<outputBuses.channelCount(bus) {
                let pointer = channel < buffers.channelCount ? buffers[channel] + offset : sink
                connectFunction(handle, UInt32(outputBuses.port(bus, channel)), pointer)
            }
        }
    }

    @inline(__always)
    private func writeMIDI(offset: Int, count: Int, last: Bool) {
        for slot in 0..<atomInputs.count { AtomSequence.clear(atomInputs.buffers[slot], sequenceType: sequenceType) }
        guard midiInputSlot >= 0 else { return }
        let buffer = atomInputs.buffers[midiInputSlot]
        for index in 0..<eventCount {
            let event = events[index]
            let frame = Int(event.frame)
            guard frame >= offset, frame < offset + count || last else { continue }
            var message = event.message
            let relative = Int64(min(frame, offset + count - 1) - offset)
            _ = withUnsafeBytes(of: &message) { raw in
                // MIDIMessage is laid out length, status, data1, data2: the bytes start at 1.
                AtomSequence.append(buffer, capacity: atomCapacity, frame: relative, type: midiType,
                                    data: raw.baseAddress! + 1, size: Int(event.message.length))
            }
        }
    }

    @inline(__always)
    private func collectOutputs(offset: Int, sampleTime: Int64) {
        for slot in 0..<atomOutputs.count {
            let target = readBack.buffers[slot]
            AtomSequence.forEachEvent(atomOutputs.buffers[slot], capacity: atomCapacity, sequenceType: sequenceType) {
                frame, type, data, size in
                _ = AtomSequence.append(target, capacity: atomCapacity, frame: frame + Int64(offset), type: type, data: data, size: size)
                if type == midiType, size >= 1, size <= 3 {
                    let bytes = data.assumingMemoryBound(to: UInt8.self)
                    let message = MIDIMessage(
                        status: bytes[0], data1: size > 1 ? bytes[1] : 0, data2: size > 2 ? bytes[2] : 0, length: UInt8(size))
                    _ = midiOutput.push(TimedMIDIMessage(sampleTime: sampleTime + frame + Int64(offset), message: message))
                }
            }
        }
    }

    /// Calls `body` with each event an atom output produced in the last render.
    /// Thread: the rendering thread, between renders.
    func forEachOutputEvent(slot: Int, _ body: (_ frame: Int, _ type: UInt32, _ data: UnsafeRawBufferPointer) -> Void) {
        guard slot >= 0, slot < readBack.count else { return }
        AtomSequence.forEachEvent(readBack.buffers[slot], capacity: atomCapacity, sequenceType: sequenceType) {
            frame, type, data, size in body(Int(frame), type, UnsafeRawBufferPointer(start: data, count: size))
        }
    }
}

/// Bus → channel → port index, flattened into one allocation.
struct PortTable {
    let busCount: Int
    private let starts: UnsafeMutablePointer<Int32>
    private let ports: UnsafeMutablePointer<Int32>

    init(_ buses: [[Int]]) {
        busCount = buses.count
        starts = .allocate(capacity: buses.count + 1)
        let total = buses.reduce(0) { $0 + $1.count }
        ports = .allocate(capacity: max(1, total))
        var position = 0
        for (bus, list) in buses.enumerated() {
            starts[bus] = Int32(position)
            for port in list { ports[position] = Int32(port); position += 1 }
        }
        starts[buses.count] = Int32(position)
    }

    @inline(__always) func channelCount(_ bus: Int) -> Int { Int(starts[bus + 1] - starts[bus]) }
    @inline(__always) func port(_ bus: Int, _ channel: Int) -> Int { Int(ports[Int(starts[bus]) + channel]) }

    func deallocate() {
        starts.deallocate()
        ports.deallocate()
    }
}

/// One raw buffer per atom port.
struct PortBuffers {
    let count: Int
    let ports: [Int]
    let buffers: UnsafeMutablePointer<UnsafeMutableRawPointer>

    init(ports: [Int], capacity: Int) {
        count = ports.count
        self.ports = ports
        buffers = .allocate(capacity: max(1, ports.count))
        for slot in 0..<ports.count {
            buffers[slot] = .allocate(byteCount: capacity, alignment: 16)
            buffers[slot].initializeMemory(as: UInt8.self, repeating: 0, count: capacity)
        }
    }

    func deallocate() {
        for slot in 0..<count { buffers[slot].deallocate() }
        buffers.deallocate()
    }
}
