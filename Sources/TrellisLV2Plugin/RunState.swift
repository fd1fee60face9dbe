import CTrellisShim
import TrellisCore
import TrellisPlugins

/// What `run` touches: plain memory laid out at instantiation, reached through the
/// LV2 handle without a class reference. Owned by its `PluginInstance`.
struct RunState {
    /// The `PluginInstance` (retained), for the non-real-time callbacks.
    var owner: UnsafeMutableRawPointer?
    var kernel: RenderKernel
    var values: ParameterValues
    var latency: Float
    let portCount: Int
    /// Where the host connected each port.
    let ports: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    let roles: UnsafeMutablePointer<PortRole>
    /// Each control input's value as last handed to the kernel.
    let lastValues: UnsafeMutablePointer<Float>
    let ranges: UnsafeMutablePointer<(Float, Float)>
    /// A `run`'s events: control changes, then the event input's MIDI.
    let events: UnsafeMutablePointer<RenderEvent>
    let eventCapacity: Int
    /// The atom input of a plugin that takes MIDI or loads content.
    let eventInput: EventInput?
    /// The generation of the unit `kernel` belongs to (`PluginInstance`'s units).
    var generation = 0
    let inputs: BusTables
    let outputs: BusTables
    /// Inputs copied out of the way when the host runs the plugin in place.
    let scratch: UnsafeMutablePointer<Float>
    let maximumFrames: Int
    var sampleTime: Int64 = 0
    let sampleRate: Double

    struct PortRole {
        enum Kind: UInt8 { case audioInput, audioOutput, controlInput, controlOutput, latency, events }
        var kind: Kind
        var bus: Int32
        var channel: Int32
        var index: Int32
    }

    init(unit: AudioUnitBase, ports: [ExportedPort], maximumFrames: Int, eventInput: EventInput?, in memory: Arena) {
        portCount = ports.count
        self.eventInput = eventInput
        self.maximumFrames = maximumFrames
        sampleRate = unit.sampleRate
        self.ports = memory.take(max(1, ports.count), repeating: nil)
        roles = memory.take(ports.count)
        lastValues = memory.take(max(1, ports.count), repeating: .nan)
        ranges = memory.take(ports.count)
        eventCapacity = max(1, ports.count) + (eventInput == nil ? 0 : EventInput.maximumEvents)
        events = memory.take(eventCapacity)
        var inputChannels: [Int] = [], outputChannels: [Int] = []
        for (index, port) in ports.enumerated() {
            var role = PortRole(kind: .latency, bus: 0, channel: 0, index: 0)
            switch port.role {
            case .audioInput(let bus, let channel):
                role = PortRole(kind: .audioInput, bus: Int32(bus), channel: Int32(channel), index: 0)
                if inputChannels.count <= bus { inputChannels.append(0) }
                inputChannels[bus] += 1
            case .audioOutput(let bus, let channel):
                role = PortRole(kind: .audioOutput, bus: Int32(bus), channel: Int32(channel), index: 0)
                if outputChannels.count <= bus { outputChannels.append(0) }
                outputChannels[bus] += 1
            case .controlInput(let parameter):
                role = PortRole(kind: .controlInput, bus: 0, channel: 0, index: Int32(parameter))
            case .controlOutput(let parameter):
                role = PortRole(kind: .controlOutput, bus: 0, channel: 0, index: Int32(parameter))
            case .latency:
                break
            case .events:
                role = PortRole(kind: .events, bus: 0, channel: 0, index: 0)
            }
            roles[index] = role
            let range = port.parameter?.range ?? 0...0
            ranges[index] = (range.lowerBound, range.upperBound)
        }
        inputs = BusTables(channels: inputChannels, in: memory)
        outputs = BusTables(channels: outputChannels, in: memory)
        scratch = memory.take(inputChannels.reduce(0, +) * maximumFrames)
        kernel = unit.renderKernel!
        values = unit.realtime.values
        latency = Float(unit.latencyFrames)
    }

    /// Takes a freshly initialized unit's kernel (after `activate`). Thread: not audio.
    mutating func adopt(_ unit: AudioUnitBase, generation: Int) {
        kernel = unit.renderKernel!
        values = unit.realtime.values
        latency = Float(unit.latencyFrames)
        sampleTime = 0
        self.generation = generation
    }

    /// Renders from a unit the worker made (a new bank) from the next `run` on, every
    /// control handed to it again, and has the worker drop the units before it.
    /// Thread: audio (the worker's response).
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    mutating func switchTo(_ loaded: LoadedContent) {
        kernel = loaded.kernel
        values = loaded.values
        latency = loaded.latency
        generation = loaded.generation
        for port in 0..<portCount { lastValues[port] = .nan }
        guard let input = eventInput, let schedule = input.schedule else { return }
        input.request.storeBytes(of: WorkRequest.retire.rawValue, as: UInt32.self)
        input.request.storeBytes(of: Int64(loaded.generation), toByteOffset: 8, as: Int64.self)
        let handle = schedule.pointee.handle, work = schedule.pointee.schedule_work
        _ = _unsafePerformance { work?(handle, 16, input.request) }
    }

    static func clamp(_ value: Float, _ parameter: ParameterInfo) -> Float {
        guard value.isFinite else { return parameter.defaultValue }
        return min(max(value, parameter.range.lowerBound), parameter.range.upperBound)
    }

    /// LV2 `run`: control changes become the call's events (ramped as a live `set` is),
    /// then the kernel renders in slices of at most `maximumFrames`, with denormals
    /// flushed. Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func run(_ state: UnsafeMutablePointer<RunState>, frames: Int) {
        // Denormals flushed, as on Trellis' own audio threads, whatever the host does:
        // the same input gives the same output in every host, and no denormal stalls.
        // (The checker cannot see into C; these two only read and write MXCSR.)
        let floatState = _unsafePerformance { trellis_enable_flush_denormals() }
        defer { _unsafePerformance { trellis_restore_float_state(floatState) } }
        let count = state.pointee.portCount
        let roles = state.pointee.roles, ports = state.pointee.ports
        var eventCount = 0
        for port in 0..<count where roles[port].kind == .controlInput {
            guard let pointer = ports[port] else { continue }
            var value = pointer.assumingMemoryBound(to: Float.self).pointee
            let (low, high) = state.pointee.ranges[port]
            value = value.isFinite ? min(max(value, low), high) : state.pointee.lastValues[port]
            guard value.isFinite, value != state.pointee.lastValues[port] else { continue }
            state.pointee.lastValues[port] = value
            state.pointee.events[eventCount] = RenderEvent(
                offset: 0, kind: .parameter, length: 0, status: 0, data1: 0, data2: 0,
                index: roles[port].index, value: value, rampFrames: 0)
            eventCount += 1
        }
        if let input = state.pointee.eventInput {
            for port in 0..<count where roles[port].kind == .events {
                guard let sequence = ports[port] else { continue }
                eventCount = input.read(sequence, frames: frames, into: state.pointee.events, count: eventCount,
                                        capacity: state.pointee.eventCapacity)
            }
        }
        // Events are in time order (control changes at 0, then the sequence's); each
        // slice takes those that fall in it, their offsets made its own.
        var done = 0, nextEvent = 0
        while done < frames {
            let slice = min(frames - done, state.pointee.maximumFrames)
            guard state.pointee.point(at: done, frames: slice) else { return }
            let firstEvent = nextEvent
            while nextEvent < eventCount, done + slice == frames || Int(state.pointee.events[nextEvent].offset) < done + slice {
                state.pointee.events[nextEvent].offset -= Int32(done)
                nextEvent += 1
            }
            var context = RenderContext(
                frameCount: slice, timeStamp: AudioTimeStamp(sampleTime: state.pointee.sampleTime),
                inputs: state.pointee.inputs.buses, outputs: state.pointee.outputs.buses,
                events: RenderEventList(base: UnsafePointer(state.pointee.events + firstEvent), count: nextEvent - firstEvent),
                time: TimeContext(sampleRate: state.pointee.sampleRate),
                segmentInputs: state.pointee.inputs.segments, segmentOutputs: state.pointee.outputs.segments)
            // The fence, as in the graph's program: a kernel entry is checked on its own.
            let kernel = state.pointee.kernel
            let status = _unsafePerformance { kernel.render(&context) }
            if status != .ok { state.pointee.outputs.buses.clearAll(frameCount: slice) }
            state.pointee.sampleTime &+= Int64(slice)
            done += slice
        }
        for port in 0..<count {
            guard let pointer = ports[port] else { continue }
            switch roles[port].kind {
            case .controlOutput: pointer.assumingMemoryBound(to: Float.self).pointee = state.pointee.values[Int(roles[port].index)]
            case .latency: pointer.assumingMemoryBound(to: Float.self).pointee = state.pointee.latency
            default: break
            }
        }
    }

    /// Points the bus tables `offset` frames into the host's buffers, copying an input
    /// the host also uses as an output. False when an audio port is not connected.
    /// Thread: audio.
    private func point(at offset: Int, frames: Int) -> Bool {
        var scratchChannel = 0
        for port in 0..<portCount {
            let role = roles[port]
            guard role.kind == .audioInput || role.kind == .audioOutput else { continue }
            guard let raw = ports[port] else { return false }
            let samples = raw.assumingMemoryBound(to: Float.self) + offset
            if role.kind == .audioOutput {
                outputs.set(bus: Int(role.bus), channel: Int(role.channel), samples)
            } else if isAlsoAnOutput(raw) {
                let copy = scratch + scratchChannel * maximumFrames
                copySamples(from: samples, to: copy, count: frames)
                inputs.set(bus: Int(role.bus), channel: Int(role.channel), copy)
            } else {
                inputs.set(bus: Int(role.bus), channel: Int(role.channel), samples)
            }
            if role.kind == .audioInput { scratchChannel += 1 }
        }
        return true
    }

    private func isAlsoAnOutput(_ pointer: UnsafeMutableRawPointer) -> Bool {
        for port in 0..<portCount where roles[port].kind == .audioOutput && ports[port] == pointer { return true }
        return false
    }
}

/// Channel tables for a set of buses, and the same again for the segments kernels cut.
struct BusTables {
    let buses: BusBuffers
    let segments: BusBuffers
    private let views: UnsafeMutablePointer<AudioBuffers>
    private let tables: UnsafeMutablePointer<UnsafeMutablePointer<Float>>

    init(channels: [Int], in memory: Arena) {
        let total = max(1, channels.reduce(0, +))
        tables = memory.take(total * 2, repeating: UnsafeMutablePointer(bitPattern: 0x10)!)
        views = memory.take(channels.count * 2)
        var start = 0
        for (bus, count) in channels.enumerated() {
            (views + bus).initialize(to: AudioBuffers(channelPointers: UnsafePointer(tables + start), channelCount: count))
            (views + channels.count + bus).initialize(to: AudioBuffers(channelPointers: UnsafePointer(tables + total + start), channelCount: count))
            start += count
        }
        buses = BusBuffers(buses: UnsafePointer(views), count: channels.count)
        segments = BusBuffers(buses: UnsafePointer(views + channels.count), count: channels.count)
    }

    /// Thread: audio.
    @inline(__always)
    func set(bus: Int, channel: Int, _ samples: UnsafeMutablePointer<Float>) {
        UnsafeMutablePointer(mutating: buses[bus].channelPointers.unsafelyUnwrapped)[channel] = samples
    }
}

extension BusBuffers {
    /// Thread: audio.
    func clearAll(frameCount: Int) {
        for bus in 0..<count { self[bus].clear(frameCount: frameCount) }
    }
}
