import TrellisCore
import TrellisPlugins

/// The control half of one plugin instance: the unit and the memory its `RunState`
/// points into. Made by `instantiate`, freed by `cleanup`, the one owner of both.
/// Thread: the host's instantiation threading class (never `run`).
final class PluginInstance {
    let plugin: ExportedPlugin
    let sampleRate: Double
    private(set) var unit: AudioUnitBase
    let ports: [ExportedPort]
    let state: UnsafeMutablePointer<RunState>

    /// The largest slice the unit renders at once; `run` splits longer calls.
    static let maximumFrames = 4096

    init(plugin: ExportedPlugin, sampleRate: Double) throws(AudioUnitError) {
        self.plugin = plugin
        self.sampleRate = sampleRate
        unit = try plugin.makeUnit(sampleRate: sampleRate, maximumFrames: Self.maximumFrames)
        ports = plugin.ports(of: unit)
        state = .allocate(capacity: 1)
        state.initialize(to: RunState(unit: unit, ports: ports, maximumFrames: Self.maximumFrames))
        state.pointee.owner = Unmanaged.passRetained(self).toOpaque()
    }

    static func owner(of state: UnsafeMutablePointer<RunState>) -> PluginInstance {
        Unmanaged<PluginInstance>.fromOpaque(state.pointee.owner!).takeUnretainedValue()
    }

    static func release(_ state: UnsafeMutablePointer<RunState>) {
        let owner = Unmanaged<PluginInstance>.fromOpaque(state.pointee.owner!)
        state.pointee.owner = nil
        owner.release()
    }

    deinit {
        state.pointee.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Starts from silence with the values on the control ports landing at once, as a
    /// unit's values do when set before it initializes.
    func activate() {
        var values: [String: Float] = [:]
        for (index, port) in ports.enumerated() {
            guard case .controlInput = port.role, let parameter = port.parameter,
                  let pointer = state.pointee.ports[index] else { continue }
            values[parameter.identifier] = RunState.clamp(pointer.assumingMemoryBound(to: Float.self).pointee, parameter)
        }
        guard let fresh = try? plugin.makeUnit(sampleRate: sampleRate, maximumFrames: Self.maximumFrames, values: values) else {
            unit.reset()
            return
        }
        unit = fresh
        state.pointee.adopt(unit)
        for (index, port) in ports.enumerated() {
            guard case .controlInput = port.role, let parameter = port.parameter else { continue }
            state.pointee.lastValues[index] = values[parameter.identifier] ?? .nan
        }
    }
}
