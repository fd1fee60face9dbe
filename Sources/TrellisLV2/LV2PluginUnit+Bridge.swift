import TrellisCore

extension LV2PluginUnit: IsolatableUnit {
    /// Why the bridge stopped, if it did. Thread: control.
    public var isolationFailure: String? {
        guard let bridge, !bridge.isRunning else { return nil }
        return bridge.lastFailure ?? "stopped"
    }

    /// Starts the plugin in a new bridge process from its last saved state, after a
    /// fault (or to replace one that runs). Thread: control.
    public func collectIsolatedMessages() { bridge?.collectLog() }

    public func restartIsolated() throws(AudioUnitError) {
        guard let bridge else { throw .notInitialized(unit: name) }
        do {
            try bridge.restart(bridgeSetup(state: lastSavedState))
            for file in givenFiles { _ = try bridge.restore(file.stateText, preset: false) }
            applyReportedValues(bridge.reportedValues, outputsOnly: true)
        } catch {
            throw .failedToInitialize("\(error)", unit: name)
        }
    }
}

extension LV2PluginUnit {
    /// What a bridge starts with: the control ports' values and the properties set
    /// before initialization (as an instance in this process would get them).
    func bridgeSetup(state: String?) -> BridgeSetup {
        let layout = BridgeLayout(
            inputChannels: busChannels(.input), outputChannels: busChannels(.output),
            midiOutputCount: midiBusCount(.output), maximumFrames: maximumFramesPerSlice, parameterCount: parameters.count)
        let portCount = UInt32(info.ports.count)
        let sent = parameters.indices.filter { index in
            let parameter = parameters[index]
            return parameter.isWritable && (parameter.address.id < portCount || pendingProperties[index] != nil)
        }
        return BridgeSetup(
            uri: uri, searchPath: world.index.directories.joined(separator: ":"), sampleRate: sampleRate, layout: layout,
            offline: isOfflineRender, values: sent.map { ($0, values[$0]) }, state: state)
    }

    func startBridge(_ isolation: Isolation) throws(LV2Error) {
        redeclareParametersIfRateChanged()
        var state: String?
        if case .text(let text) = pendingState { state = text }
        let outputs = parameters.indices.filter { !parameters[$0].isWritable }
        let bridge = try LV2Bridge(
            setup: bridgeSetup(state: state), values: values.view, outputs: outputs,
            deadlineFraction: isolation.deadline, passesInputOnFault: isolation.onFault == .input)
        applyReportedValues(bridge.reportedValues, outputsOnly: true)
        do {
            if case .preset(let preset) = pendingState { applyReportedValues(try bridge.restore(preset, preset: true)) }
            for file in givenFiles { _ = try bridge.restore(file.stateText, preset: false) }
        } catch {
            bridge.stop()
            throw error
        }
        lastSavedState = state
        pendingState = nil
        pendingProperties = [:]
        self.bridge = bridge
        bridgeOutlet.withLock { $0 = bridge }
    }

    func stopBridge() {
        guard let bridge else { return }
        if pendingState == nil {
            if bridge.isRunning, let text = try? bridge.saveState() { lastSavedState = text }
            if let lastSavedState { pendingState = .text(lastSavedState) }
        }
        bridge.stop()
        bridgeOutlet.withLock { $0 = nil }
        self.bridge = nil
    }

    /// Takes the values the bridge's plugin has: the outputs (latency, meters), and
    /// unless `outputsOnly`, what a state or preset set. (At a start, the inputs here
    /// are newer than what the bridge was given.)
    func applyReportedValues(_ reported: [(Int, Float)], outputsOnly: Bool = false) {
        for (index, value) in reported where index < parameters.count && (!outputsOnly || !parameters[index].isWritable) {
            values[index] = value
        }
    }
}
