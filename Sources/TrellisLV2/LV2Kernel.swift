import CLilv
import Glibc
import Synchronization
import TrellisCore

/// The real-time half of a hosted plugin: control values (the control ports point
/// here), parameter ramps, bus-to-port tables, atom buffers, the cycle's MIDI, the
/// ends of the MIDI rings and the worker's responder. Plain memory; every pointer is
/// owned by `LV2Renderer`.
struct LV2Kernel: CallKernel {
    struct PendingMIDI: BitwiseCopyable {
        var frame: Int32
        var bus: Int32
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
    private let values: ParameterValues
    /// Parameters with an id at or past this are properties, set through `properties`.
    private let portCount: Int
    let properties: PatchMessages
    /// The atom input and output slots that carry patch messages, or -1.
    private let patchInputSlot: Int
    private let patchOutputSlot: Int

    private let inputBuses: PortTable
    private let outputBuses: PortTable
    private let silence: UnsafeMutablePointer<Float>
    private let sink: UnsafeMutablePointer<Float>

    let atomCapacity: Int
    private let atomInputs: PortBuffers
    private let atomOutputs: PortBuffers
    private let readBack: PortBuffers
    /// MIDI input bus → atom input slot, and atom output slot → MIDI output bus (or -1).
    private let midiInputSlots: UnsafeMutablePointer<Int32>
    private let midiInputCount: Int
    private let midiOutputBuses: UnsafeMutablePointer<Int32>
    private let sequenceType: UInt32
    private let chunkType: UInt32
    private let midiType: UInt32
    /// Atom input slots that take `time:Position`, and what writes it there: at the
    /// first cycle and whenever the transport changes.
    private let timeSlots: UnsafeMutablePointer<Int32>
    private let timeSlotCount: Int
    /// Control inputs the transport sets before each run: their ports and what each takes.
    private let timeControlPorts: UnsafeMutablePointer<Int32>
    private let timeControls: UnsafeMutablePointer<LV2TimeControl>
    private let timeControlCount: Int
    private let timeWriter: TimePositionWriter
    private var positionSent = false

    private let events: UnsafeMutablePointer<PendingMIDI>
    private var eventCount = 0
    private let queuedMIDI: SPSCRingEnd<MIDIMessage>
    private let sentMIDI: SPSCRingEnd<LV2SentMIDI>
    /// Messages `sentMIDI` had no room for since the finish service last looked.
    let droppedMIDI: UnsafeMutablePointer<Atomic<Int>>
    private let worker: LV2WorkerResponder?
    let gate: UnsafeMutablePointer<Atomic<Int>>

    init(
        instance: UnsafeMutablePointer<LilvInstance>, layout: LV2PortLayout, portCount: Int,
        parameters: [ParameterInfo], values: ParameterValues, maximumFrames: Int, atomCapacity: Int,
        urids: URIDMap, worker: LV2WorkerResponder?, queuedMIDI: SPSCRingEnd<MIDIMessage>,
        sentMIDI: SPSCRingEnd<LV2SentMIDI>, in memory: Arena
    ) {
        let descriptor = instance.pointee.lv2_descriptor!.pointee
        handle = instance.pointee.lv2_handle
        runFunction = descriptor.run
        connectFunction = descriptor.connect_port
        self.maximumFrames = maximumFrames
        self.values = values
        self.portCount = portCount
        let propertyParameters = layout.properties.indices.map { number in
            parameters.firstIndex { Int($0.address.id) == portCount + number } ?? 0
        }
        properties = PatchMessages(properties: layout.properties, parameterIndices: propertyParameters, urids: urids, in: memory)
        patchInputSlot = layout.patchInput.flatMap { layout.atomInputs.firstIndex(of: $0) } ?? -1
        patchOutputSlot = layout.patchOutput.flatMap { layout.atomOutputs.firstIndex(of: $0) } ?? -1
        self.worker = worker
        self.queuedMIDI = queuedMIDI
        self.sentMIDI = sentMIDI
        gate = memory.takeAtomics(1, initial: 0)
        droppedMIDI = memory.takeAtomics(1, initial: 0)

        controls = memory.take(portCount, repeating: 0)
        parameterCount = parameters.count
        parameterPorts = memory.take(parameters.count)
        parameterIsOutput = memory.take(parameters.count)
        rampStep = memory.take(parameters.count)
        rampTarget = memory.take(parameters.count)
        rampRemaining = memory.take(parameters.count)
        for (index, parameter) in parameters.enumerated() {
            parameterPorts[index] = Int32(parameter.address.id)
            parameterIsOutput[index] = parameter.flags.contains(.output)
            rampStep[index] = 0
            rampTarget[index] = values[index]
            rampRemaining[index] = 0
            if Int(parameter.address.id) < portCount { controls[Int(parameter.address.id)] = values[index] }
        }

        inputBuses = PortTable(layout.inputBuses.map(\.ports), in: memory)
        outputBuses = PortTable(layout.outputBuses.map(\.ports), in: memory)
        silence = memory.take(maximumFrames, repeating: 0)
        sink = memory.take(maximumFrames, repeating: 0)

        self.atomCapacity = atomCapacity
        atomInputs = PortBuffers(count: layout.atomInputs.count, capacity: atomCapacity, in: memory)
        atomOutputs = PortBuffers(count: layout.atomOutputs.count, capacity: atomCapacity, in: memory)
        readBack = PortBuffers(count: layout.atomOutputs.count, capacity: atomCapacity, in: memory)
        midiInputCount = layout.midiInputs.count
        midiInputSlots = memory.take(layout.midiInputs.count)
        for (bus, port) in layout.midiInputs.enumerated() {
            midiInputSlots[bus] = Int32(layout.atomInputs.firstIndex(of: port) ?? 0)
        }
        midiOutputBuses = memory.take(layout.atomOutputs.count)
        for (slot, port) in layout.atomOutputs.enumerated() {
            midiOutputBuses[slot] = Int32(layout.midiOutputs.firstIndex(of: port) ?? -1)
        }
        sequenceType = urids.map(LV2URI.atomSequence)
        chunkType = urids.map(LV2URI.atomChunk)
        midiType = urids.map(LV2URI.midiEvent)
        timeSlotCount = layout.timeInputs.count
        timeSlots = memory.take(timeSlotCount)
        for (index, port) in layout.timeInputs.enumerated() { timeSlots[index] = Int32(layout.atomInputs.firstIndex(of: port) ?? 0) }
        timeWriter = TimePositionWriter(urids: urids, in: memory)
        timeControlCount = layout.timeControls.count
        timeControlPorts = memory.take(timeControlCount)
        timeControls = memory.take(timeControlCount)
        for (index, designated) in layout.timeControls.enumerated() {
            timeControlPorts[index] = Int32(designated.port)
            (timeControls + index).initialize(to: designated.control)
        }
        events = memory.take(Self.eventCapacity)
        for port in layout.controlPorts { connectFunction(handle, UInt32(port), controls + port) }
    }

    /// Connects the atom ports to their buffers. Thread: control, before rendering.
    func connectControlsAndAtoms(atomInputPorts: [Int], atomOutputPorts: [Int]) {
        for slot in 0..<atomInputs.count {
            AtomSequence.clear(atomInputs.buffers[slot], sequenceType: sequenceType)
            connectFunction(handle, UInt32(atomInputPorts[slot]), atomInputs.buffers[slot])
        }
        for slot in 0..<atomOutputs.count {
            AtomSequence.prepareOutput(atomOutputs.buffers[slot], capacity: atomCapacity, chunkType: chunkType)
            AtomSequence.clear(readBack.buffers[slot], sequenceType: sequenceType)
            connectFunction(handle, UInt32(atomOutputPorts[slot]), atomOutputs.buffers[slot])
        }
    }

    /// Thread: control, before rendering.
    func connect(port: Int, to buffer: UnsafeMutableRawPointer?) { connectFunction(handle, UInt32(port), buffer) }

    /// Takes a parameter change; ramps run in sub-blocks of `subBlockFrames`.
    /// Thread: audio while rendering, else control.
    @inline(__always)
    func setParameter(index: Int, value: Float, rampFrames: Int) {
        guard index >= 0, index < parameterCount, !parameterIsOutput[index] else { return }
        let port = Int(parameterPorts[index])
        if port >= portCount {
            properties.set(slot: port &- portCount, value: value)
            return
        }
        if rampFrames <= 0 {
            controls[port] = value
            rampRemaining[index] = 0
        } else {
            rampTarget[index] = value
            rampStep[index] = (value - controls[port]) / Float(rampFrames)
            rampRemaining[index] = Int32(clamping: rampFrames)
        }
    }

    /// Adds a MIDI message for MIDI input `bus` in the coming render at `frame`, kept in
    /// time order. Thread: audio.
    @inline(__always)
    mutating func schedule(_ message: MIDIMessage, frame: Int, bus: Int = 0) -> Bool {
        guard eventCount < Self.eventCapacity, bus >= 0, bus < midiInputCount else { return false }
        let clamped = Int32(min(max(frame, 0), maximumFrames &- 1))
        var position = eventCount
        while position > 0, events[position &- 1].frame > clamped {
            events[position] = events[position &- 1]
            position &-= 1
        }
        events[position] = PendingMIDI(frame: clamped, bus: Int32(bus), message: message)
        eventCount &+= 1
        return true
    }

    /// The kernel's render entry. Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func render(_ state: UnsafeMutableRawPointer, _ context: UnsafeRawPointer) -> UInt8 {
        renderCall(state, context)
    }

    /// Runs the plugin over one call: MIDI of the event list goes into the atom input at
    /// its frame; the plugin runs in pieces that end where a parameter changes or a
    /// ramp takes its next step. Thread: audio.
    @inline(__always)
    mutating func render(_ context: RenderContext) -> RenderStatus {
        let frames = context.frameCount
        guard frames <= maximumFrames else { return .tooManyFrames }
        guard gate.pointee.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged else {
            for bus in 0..<context.outputs.count { context.outputs[bus].clear(frameCount: frames) }
            return .ok
        }
        while let message = queuedMIDI.pop() {
            if !schedule(message, frame: 0) { break }
        }
        let list = context.events
        for index in 0..<list.count where list[index].kind == .midi {
            let event = list[index]
            _ = schedule(MIDIMessage(status: event.status, data1: event.data1, data2: event.data2, length: event.length),
                         frame: Int(event.offset), bus: Int(event.index))
        }
        for slot in 0..<readBack.count { AtomSequence.clear(readBack.buffers[slot], sequenceType: sequenceType) }
        for index in 0..<timeControlCount { controls[Int(timeControlPorts[index])] = timeControls[index].value(in: context.time) }
        let sendsPosition = timeSlotCount > 0 && (!positionSent || context.time.changed)
        positionSent = positionSent || timeSlotCount > 0

        var offset = 0
        var next = 0
        while offset < frames {
            while next < list.count && Int(list[next].offset) <= offset {
                let event = list[next]
                if event.kind == .parameter {
                    setParameter(index: Int(event.index), value: event.value, rampFrames: Int(event.rampFrames))
                }
                next &+= 1
            }
            var boundary = frames
            var scan = next
            while scan < list.count {
                if list[scan].kind == .parameter {
                    boundary = min(frames, Int(list[scan].offset))
                    break
                }
                scan &+= 1
            }
            let ramping = advanceRamps(maximum: boundary &- offset)
            let count = ramping > 0 ? ramping : boundary &- offset
            connectAudio(context, offset: offset)
            writeMIDI(offset: offset, count: count, last: offset &+ count == frames, position: offset == 0 && sendsPosition ? context.time : nil)
            for slot in 0..<atomOutputs.count {
                AtomSequence.prepareOutput(atomOutputs.buffers[slot], capacity: atomCapacity, chunkType: chunkType)
            }
            // The one call no checker can see into: the plugin's own `run`. LV2
            // plugins that claim hardRTCapable promise it neither allocates nor blocks.
            _unsafePerformance { runFunction(handle, UInt32(count)) }
            worker?.deliverResponses()
            collectOutputs(offset: offset, sampleTime: context.timeStamp.sampleTime, midiOutputs: context.midiOutputs)
            offset &+= count
        }
        eventCount = 0
        for index in 0..<parameterCount where parameterIsOutput[index] && Int(parameterPorts[index]) < portCount {
            values[index] = controls[Int(parameterPorts[index])]
        }
        gate.pointee.store(0, ordering: .releasing)
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
                rampRemaining[index] = Int32(remaining &- count)
            }
        }
        return count
    }

    /// Points the audio ports at this piece of the buses. `connect_port` is the plugin's
    /// code, audio-class by the LV2 spec (no allocation, no blocking), behind a function
    /// pointer the checker cannot follow: fenced like `run`.
    @inline(__always)
    private func connectAudio(_ context: RenderContext, offset: Int) {
        for bus in 0..<inputBuses.busCount {
            let buffers = bus < context.inputs.count ? context.inputs[bus] : AudioBuffers(channelPointers: nil, channelCount: 0)
            for channel in 0..<inputBuses.channelCount(bus) {
                let pointer = channel < buffers.channelCount ? buffers[channel] + offset : silence
                _unsafePerformance { connectFunction(handle, UInt32(inputBuses.port(bus, channel)), pointer) }
            }
        }
        for bus in 0..<outputBuses.busCount {
            let buffers = bus < context.outputs.count ? context.outputs[bus] : AudioBuffers(channelPointers: nil, channelCount: 0)
            for channel in 0..<outputBuses.channelCount(bus) {
                let pointer = channel < buffers.channelCount ? buffers[channel] + offset : sink
                _unsafePerformance { connectFunction(handle, UInt32(outputBuses.port(bus, channel)), pointer) }
            }
        }
    }

    /// Fills the atom inputs for one piece: property changes and the transport's
    /// `position` (when it is to be told) at the piece's first frame, then its MIDI.
    @inline(__always)
    private func writeMIDI(offset: Int, count: Int, last: Bool, position: TimeContext?) {
        for slot in 0..<atomInputs.count { AtomSequence.clear(atomInputs.buffers[slot], sequenceType: sequenceType) }
        if patchInputSlot >= 0 { properties.write(into: atomInputs.buffers[patchInputSlot], capacity: atomCapacity) }
        if let position {
            for index in 0..<timeSlotCount {
                _ = timeWriter.write(position, frame: 0, into: atomInputs.buffers[Int(timeSlots[index])], capacity: atomCapacity)
            }
        }
        for index in 0..<eventCount {
            let event = events[index]
            let buffer = atomInputs.buffers[Int(midiInputSlots[Int(event.bus)])]
            let frame = Int(event.frame)
            guard frame >= offset, frame < offset &+ count || last else { continue }
            var message = event.message
            let relative = Int64(min(frame, offset &+ count &- 1) &- offset)
            withUnsafeBytes(of: &message) { raw in
                // MIDIMessage is laid out length, status, data1, data2: the bytes start at 1.
                _ = AtomSequence.append(buffer, capacity: atomCapacity, frame: relative, type: midiType,
                                        data: raw.baseAddress.unsafelyUnwrapped + 1, size: Int(event.message.length))
            }
        }
    }

    @inline(__always)
    private func collectOutputs(offset: Int, sampleTime: Int64, midiOutputs: MIDIBuses) {
        for slot in 0..<atomOutputs.count {
            let bus = Int(midiOutputBuses[slot])
            let target = readBack.buffers[slot]
            let output = atomOutputs.buffers[slot]
            let end = AtomSequence.eventsEnd(output, capacity: atomCapacity, sequenceType: sequenceType)
            var position = AtomSequence.eventsStart
            while let event = AtomSequence.event(output, at: position, end: end) {
                _ = AtomSequence.append(target, capacity: atomCapacity, frame: event.frame + Int64(offset), type: event.type,
                                        data: event.data, size: event.size)
                if slot == patchOutputSlot {
                    properties.read(type: event.type, data: event.data, size: event.size) { index, value in values[index] = value }
                }
                if event.type == midiType, event.size >= 1, event.size <= 3 {
                    let bytes = event.data.assumingMemoryBound(to: UInt8.self)
                    let message = MIDIMessage(
                        status: bytes[0], data1: event.size > 1 ? bytes[1] : 0, data2: event.size > 2 ? bytes[2] : 0,
                        length: UInt8(event.size))
                    if bus >= 0 {
                        let sent = LV2SentMIDI(
                            timed: TimedMIDIMessage(sampleTime: sampleTime &+ event.frame &+ Int64(offset), message: message),
                            bus: Int32(truncatingIfNeeded: bus))
                        if !sentMIDI.push(sent) { droppedMIDI.pointee.add(1, ordering: .relaxed) }
                    }
                    if bus >= 0 && bus < midiOutputs.count {
                        midiOutputs[bus].append(
                            status: message.status, data1: message.data1, data2: message.data2, length: message.length,
                            offset: Int32(truncatingIfNeeded: event.frame &+ Int64(offset)))
                    }
                }
                position = event.next
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

    init(_ buses: [[Int]], in memory: Arena) {
        busCount = buses.count
        starts = memory.take(buses.count + 1)
        ports = memory.take(buses.reduce(0) { $0 + $1.count })
        var position = 0
        for (bus, list) in buses.enumerated() {
            starts[bus] = Int32(position)
            for port in list { ports[position] = Int32(port); position += 1 }
        }
        starts[buses.count] = Int32(position)
    }

    @inline(__always) func channelCount(_ bus: Int) -> Int { Int(starts[bus + 1] - starts[bus]) }
    @inline(__always) func port(_ bus: Int, _ channel: Int) -> Int { Int(ports[Int(starts[bus]) + channel]) }

}

/// One raw buffer per atom port.
struct PortBuffers {
    let count: Int
    let buffers: UnsafeMutablePointer<UnsafeMutableRawPointer>

    init(count: Int, capacity: Int, in memory: Arena) {
        self.count = count
        buffers = memory.take(count)
        for slot in 0..<count { buffers[slot] = UnsafeMutableRawPointer(memory.take(capacity, repeating: UInt8(0))) }
    }
}

/// A MIDI message a plugin sent, and which of its MIDI output buses carried it.
struct LV2SentMIDI: BitwiseCopyable {
    var timed: TimedMIDIMessage
    var bus: Int32
}
