import CJack
import CTrellisShim

/// The C calls a JACK cycle makes, each fenced for the real-time checker, which cannot
/// see into C. JACK documents every one as callable from the process callback: none
/// allocates, locks or blocks. Thread: audio.
enum JACKProcessCalls {
    @inline(__always)
    static func buffer(_ port: OpaquePointer?, _ frames: jack_nframes_t) -> UnsafeMutableRawPointer? {
        _unsafePerformance { jack_port_get_buffer(port, frames) }
    }

    @inline(__always)
    static func clearMIDI(_ buffer: UnsafeMutableRawPointer) {
        _unsafePerformance { jack_midi_clear_buffer(buffer) }
    }

    @inline(__always)
    static func reserveMIDI(_ buffer: UnsafeMutableRawPointer, _ time: jack_nframes_t, _ size: Int) -> UnsafeMutablePointer<jack_midi_data_t>? {
        _unsafePerformance { jack_midi_event_reserve(buffer, time, size) }
    }

    @inline(__always)
    static func midiEventCount(_ buffer: UnsafeMutableRawPointer) -> UInt32 {
        _unsafePerformance { jack_midi_get_event_count(buffer) }
    }

    @inline(__always)
    static func midiEvent(_ event: inout jack_midi_event_t, _ buffer: UnsafeMutableRawPointer, _ index: UInt32) -> Bool {
        _unsafePerformance { jack_midi_event_get(&event, buffer, index) == 0 }
    }

    @inline(__always)
    static func transport(_ client: OpaquePointer, _ position: inout jack_position_t) -> jack_transport_state_t {
        _unsafePerformance { jack_transport_query(client, &position) }
    }

    /// Host time in ns (CLOCK_MONOTONIC).
    @inline(__always)
    static func now() -> UInt64 { _unsafePerformance { trellis_host_time_ns() } }

    /// Marks the thread as the audio thread and flushes denormals (the thread's MXCSR).
    @inline(__always)
    static func enterCycle() {
        _unsafePerformance {
            trellis_set_audio_thread(1)
            _ = trellis_enable_flush_denormals()
        }
    }

    /// Sets the CPU latency request `descriptor` holds: one write(2) to
    /// /dev/cpu_dma_latency, which the kernel serves with a spinlock and an interrupt to
    /// idle CPUs, never sleeping (`CPULatencyRequest.write`).
    @inline(__always)
    static func requestCPULatency(_ descriptor: Int32, _ microseconds: Int32) {
        _unsafePerformance { CPULatencyRequest.write(descriptor, microseconds) }
    }
}
