import CJack
import CTrellisJACKShim
import CTrellisShim
import Foundation
import Synchronization
import TrellisJACK

/// A plain JACK client written against the C API, standing in for another program on the
/// server: subclasses fill or read their ports in `process`.
class TestJACKClient: @unchecked Sendable {
    let name: String
    private(set) var client: OpaquePointer?
    var ports: [OpaquePointer] = []
    /// The same ports as a C table, so `process` reads them without touching an Array.
    let portTable: UnsafeMutablePointer<OpaquePointer?>
    let portCount: Int

    init(name: String, server: String, audioOutputs: Int = 0, audioInputs: Int = 0, midiOutputs: Int = 0) throws {
        self.name = name
        portCount = audioOutputs + audioInputs + midiOutputs
        portTable = .allocate(capacity: max(1, portCount))
        var status = jack_status_t(rawValue: 0)
        guard let client = trellis_jack_client_open(name, JackNoStartServer, &status, server) else {
            throw TestFailure("could not open test client \(name) on \(server): status \(status.rawValue)")
        }
        self.client = client
        func register(_ port: String, _ type: String, _ flags: JackPortFlags) throws {
            guard let handle = jack_port_register(client, port, type, UInt(flags.rawValue), 0) else {
                throw TestFailure("could not register \(name):\(port)")
            }
            ports.append(handle)
        }
        for index in 0..<audioOutputs { try register("out_\(index + 1)", "32 bit float mono audio", JackPortIsOutput) }
        for index in 0..<audioInputs { try register("in_\(index + 1)", "32 bit float mono audio", JackPortIsInput) }
        for index in 0..<midiOutputs { try register("midi_out_\(index + 1)", "8 bit raw midi", JackPortIsOutput) }
        for (index, port) in ports.enumerated() { portTable[index] = port }
        jack_set_process_callback(client, { frames, arg in
            Unmanaged<TestJACKClient>.fromOpaque(arg!).takeUnretainedValue().process(frames)
            return 0
        }, Unmanaged.passUnretained(self).toOpaque())
        guard jack_activate(client) == 0 else { throw TestFailure("could not activate \(name)") }
    }

    deinit {
        close()
        portTable.deallocate()
    }

    /// Called on the test client's process thread.
    func process(_ frames: jack_nframes_t) {}

    /// Connects two ports by full name through this client.
    func connect(_ source: String, _ destination: String) throws {
        let code = jack_connect(client, source, destination)
        guard code == 0 || code == EEXIST else { throw TestFailure("could not connect \(source) to \(destination): \(code)") }
    }

    func close() {
        if let client {
            jack_deactivate(client)
            jack_client_close(client)
        }
        client = nil
    }

    func setFreewheel(_ on: Bool) -> Int32 { jack_set_freewheel(client, on ? 1 : 0) }
}

/// Plays a cosine-like tone per output port: amplitude * sin(2 pi f t + 0.5), starting when
/// `playing` turns on (silence before, so the first sound marks the alignment).
final class TestPlayer: TestJACKClient, @unchecked Sendable {
    let playing = Atomic<Bool>(false)
    private let frequencies: UnsafeMutablePointer<Double>
    private let amplitude: Double
    private let sampleRate: Double
    private var frame = 0

    init(server: String, frequencies: [Double], amplitude: Double = 0.5, sampleRate: Double = 48000) throws {
        self.frequencies = .allocate(capacity: frequencies.count)
        self.frequencies.initialize(from: frequencies, count: frequencies.count)
        self.amplitude = amplitude
        self.sampleRate = sampleRate
        try super.init(name: "player", server: server, audioOutputs: frequencies.count)
    }

    override func process(_ frames: jack_nframes_t) {
        let isPlaying = playing.load(ordering: .relaxed)
        for channel in 0..<portCount {
            let out = jack_port_get_buffer(portTable[channel], frames).assumingMemoryBound(to: Float.self)
            for index in 0..<Int(frames) {
                let t = Double(frame + index) / sampleRate
                out[index] = isPlaying ? Float(amplitude * sin(2 * Double.pi * frequencies[channel] * t + 0.5)) : 0
            }
        }
        if isPlaying { frame += Int(frames) }
    }
}

/// Records what arrives on its input ports into preallocated buffers while `recording`.
final class TestRecorder: TestJACKClient, @unchecked Sendable {
    let capacity: Int
    let recorded = Atomic<Int>(0)
    let recording = Atomic<Bool>(false)
    private let buffers: UnsafeMutablePointer<Float>

    init(server: String, channels: Int, capacity: Int) throws {
        self.capacity = capacity
        buffers = .allocate(capacity: channels * capacity)
        buffers.initialize(repeating: 0, count: channels * capacity)
        try super.init(name: "recorder", server: server, audioInputs: channels)
    }

    override func process(_ frames: jack_nframes_t) {
        guard recording.load(ordering: .acquiring) else { return }
        let start = recorded.load(ordering: .relaxed)
        let count = min(Int(frames), capacity - start)
        guard count > 0 else { return }
        for channel in 0..<portCount {
            let input = jack_port_get_buffer(portTable[channel], frames).assumingMemoryBound(to: Float.self)
            (buffers + channel * capacity + start).update(from: input, count: count)
        }
        recorded.store(start + count, ordering: .releasing)
    }

    /// Starts a fresh recording, runs `started`, and waits until the buffers are full.
    func record(timeout: Double = 20, started: () -> Void = {}) throws {
        recording.store(false, ordering: .releasing)
        usleep(20_000)
        recorded.store(0, ordering: .releasing)
        recording.store(true, ordering: .releasing)
        usleep(20_000)
        started()
        try waitUntil(timeout: timeout, "recorder filled \(capacity) frames") { recorded.load(ordering: .acquiring) >= capacity }
        recording.store(false, ordering: .releasing)
    }

    func samples(channel: Int) -> [Float] {
        Array(UnsafeBufferPointer(start: buffers + channel * capacity, count: capacity))
    }
}

/// Sends a fixed pair of MIDI messages every cycle while `sending`: a note-on at frame
/// 17 and a note-off at frame 200.
final class TestMIDISender: TestJACKClient, @unchecked Sendable {
    let sending = Atomic<Bool>(false)

    init(server: String) throws {
        try super.init(name: "midisender", server: server, midiOutputs: 1)
    }

    override func process(_ frames: jack_nframes_t) {
        let buffer = jack_port_get_buffer(portTable[0], frames)
        jack_midi_clear_buffer(buffer)
        guard sending.load(ordering: .relaxed) else { return }
        var noteOn: (UInt8, UInt8, UInt8) = (0x90, 60, 100)
        var noteOff: (UInt8, UInt8, UInt8) = (0x80, 60, 0)
        withUnsafeBytes(of: &noteOn) { _ = jack_midi_event_write(buffer, 17, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), 3) }
        withUnsafeBytes(of: &noteOff) { _ = jack_midi_event_write(buffer, 200, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), 3) }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Polls `condition` every 10 ms until it holds or `timeout` seconds pass.
func waitUntil(timeout: Double, _ what: String, _ condition: () -> Bool) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() > deadline { throw TestFailure("timed out waiting for: \(what)") }
        usleep(10_000)
    }
}
