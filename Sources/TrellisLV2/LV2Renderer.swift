import CLilv
import Glibc
import Synchronization
import TrellisCore

/// Owns, on the control side, everything the audio thread touches for one plugin
/// instance: the `LV2Kernel` in memory allocated once when the unit is initialized,
/// its rings and tables. Freed when the unit lets go of it, after the programs that
/// ran the kernel were retired.
///
/// The render gate keeps the instance's audio calls and its instantiation-class calls
/// (state save/restore, deactivate) apart without a lock on the audio thread: render
/// takes the gate or, when the control side holds it, outputs silence for that cycle.
final class LV2Renderer: @unchecked Sendable {
    let kernel: UnsafeMutablePointer<LV2Kernel>
    /// The kernel and every table and buffer it reaches.
    private let memory = Arena()
    let queuedMIDI = SPSCRing<MIDIMessage>(capacity: 1024)
    /// What the plugin sent on its MIDI outputs, for the finish service.
    let sentMIDI = SPSCRing<LV2SentMIDI>(capacity: 4096)
    /// The ports of the atom buffers, for connecting them.
    private let atomInputPorts: [Int]
    private let atomOutputPorts: [Int]

    /// `parameters[i]` is control port `parameters[i].address.id`.
    init(
        instance: UnsafeMutablePointer<LilvInstance>, layout: LV2PortLayout, portCount: Int,
        parameters: [ParameterInfo], values: AtomicFloats, maximumFrames: Int, atomCapacity: Int,
        urids: URIDMap, worker: LV2Worker?
    ) {
        atomInputPorts = layout.atomInputs
        atomOutputPorts = layout.atomOutputs
        kernel = memory.place(LV2Kernel(
            instance: instance, layout: layout, portCount: portCount, parameters: parameters, values: values.view,
            maximumFrames: maximumFrames, atomCapacity: atomCapacity, urids: urids, worker: worker?.responder,
            queuedMIDI: queuedMIDI.end, sentMIDI: sentMIDI.end, in: memory))

        kernel.pointee.connectControlsAndAtoms(atomInputPorts: atomInputPorts, atomOutputPorts: atomOutputPorts)
    }

    /// The kernel as a program holds it. Thread: control.
    var renderKernel: RenderKernel {
        RenderKernel(state: UnsafeMutableRawPointer(kernel), render: { LV2Kernel.render($0, $1) }, reset: { _ in })
    }

    /// Connects a port the layout left out (an optional port of an unknown type).
    /// Thread: control, before rendering.
    func connectNothing(port: Int) { kernel.pointee.connect(port: port, to: nil) }

    /// Takes the instance away from the audio thread, waiting at most `timeout`
    /// nanoseconds for a render in progress to finish. Thread: control.
    func acquireForControl(timeoutNanoseconds: UInt64 = 2_000_000_000) -> Bool {
        let start = HostClock.now()
        while !kernel.pointee.gate.pointee.compareExchange(expected: 0, desired: 2, ordering: .acquiring).exchanged {
            if HostClock.now() - start > timeoutNanoseconds { return false }
            var pause = timespec(tv_sec: 0, tv_nsec: 100_000)
            nanosleep(&pause, nil)
        }
        return true
    }

    /// Has the plugin report its properties' values at the next render, as after a
    /// state was restored. Thread: control, after `acquireForControl` returned true.
    func askForPropertyValues() { kernel.pointee.properties.askForValues() }

    /// Runs the plugin over `frames` frames of silence, outside any program, with no
    /// events: what it writes to its control outputs (its latency) reaches the unit's
    /// values. Thread: control, while no program runs the kernel.
    func runOnSilence(frames: Int) {
        let none = BusBuffers(buses: nil, count: 0)
        let context = RenderContext(frameCount: frames, timeStamp: AudioTimeStamp(sampleTime: 0), inputs: none, outputs: none)
        _ = kernel.pointee.render(context)
    }

    /// Thread: control, after `acquireForControl` returned true.
    func releaseControl() { kernel.pointee.gate.pointee.store(0, ordering: .releasing) }

    /// Thread: control, while no program runs the kernel.
    func setParameter(index: Int, value: Float, rampFrames: Int) {
        kernel.pointee.setParameter(index: index, value: value, rampFrames: rampFrames)
    }

    /// Thread: the rendering thread, before a standalone render.
    func schedule(_ message: MIDIMessage, frame: Int) -> Bool { kernel.pointee.schedule(message, frame: frame) }

    /// Calls `body` with each event an atom output produced in the last render.
    /// Thread: the rendering thread, between renders.
    func forEachOutputEvent(slot: Int, _ body: (_ frame: Int, _ type: UInt32, _ data: UnsafeRawBufferPointer) -> Void) {
        kernel.pointee.forEachOutputEvent(slot: slot, body)
    }
}
