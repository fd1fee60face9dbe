import CJack

/// JACK's callbacks as plain C function pointers; `arg` is the unretained
/// `JACKRealtimeState`, which the head node keeps alive while any client exists.
enum JACKCallbacks {
    @inline(__always)
    private static func state(_ arg: UnsafeMutableRawPointer?) -> Unmanaged<JACKRealtimeState> {
        Unmanaged<JACKRealtimeState>.fromOpaque(arg.unsafelyUnwrapped)
    }

    /// Thread: audio.
    static let process: JackProcessCallback = { nframes, arg in cycle(nframes, arg) }

    /// One process cycle, the first Swift the audio thread runs. Thread: audio.
    #if TRELLIS_CHECK_REALTIME
    @_noAllocation @_noLocks
    #endif
    static func cycle(_ nframes: jack_nframes_t, _ arg: UnsafeMutableRawPointer?) -> Int32 {
        state(arg)._withUnsafeGuaranteedRef { $0.process(nframes) }
    }

    static let bufferSize: JackBufferSizeCallback = { nframes, arg in
        state(arg)._withUnsafeGuaranteedRef { $0.bufferSizeChanged(nframes) }
        return 0
    }

    static let sampleRate: JackSampleRateCallback = { rate, arg in
        state(arg)._withUnsafeGuaranteedRef { $0.sampleRateChanged(rate) }
        return 0
    }

    static let xrun: JackXRunCallback = { arg in
        state(arg)._withUnsafeGuaranteedRef { $0.xrun() }
        return 0
    }

    static let freewheel: JackFreewheelCallback = { starting, arg in
        state(arg)._withUnsafeGuaranteedRef { $0.freewheelChanged(starting != 0) }
    }

    static let portConnect: JackPortConnectCallback = { _, _, _, arg in
        state(arg)._withUnsafeGuaranteedRef { _ = $0.notificationEvents.push(.portConnect) }
    }

    static let portRegistration: JackPortRegistrationCallback = { id, registered, arg in
        state(arg)._withUnsafeGuaranteedRef { _ = $0.notificationEvents.push(.portRegistration(id: id, registered: registered != 0)) }
    }

    /// Thread: JACK's notification thread.
    static let latency: JackLatencyCallback = { mode, arg in
        state(arg)._withUnsafeGuaranteedRef { $0.publishLatency(mode) }
    }

    /// Thread: audio, after `process`, while this client is JACK's timebase master.
    static let timebase: JackTimebaseCallback = { _, _, position, _, arg in
        guard let position else { return }
        state(arg)._withUnsafeGuaranteedRef { $0.timebase.fill(position) }
    }

    /// Must not call JACK: the server is gone, and this may run on the process thread.
    static let shutdown: JackInfoShutdownCallback = { _, reason, arg in
        state(arg)._withUnsafeGuaranteedRef { $0.serverWentAway(reason: reason) }
    }

    /// The same without a reason: jackd2 calls only the one above when both are set,
    /// PipeWire's libjack only this one.
    static let plainShutdown: JackShutdownCallback = { arg in
        state(arg)._withUnsafeGuaranteedRef { $0.serverWentAway(reason: nil) }
    }
}
