import CLV2
import Synchronization
import TrellisCore
import TrellisPlugins

/// The control half of one plugin instance: its units and the memory its `RunState`
/// points into. Made by `instantiate`, freed by `cleanup`, the one owner of both.
/// Thread: the host's instantiation threading class (never `run`), and for a plugin that
/// loads content the worker thread (`loadContent`, `retire`) and the state's `save`.
final class PluginInstance {
    let plugin: ExportedPlugin
    let sampleRate: Double
    let ports: [ExportedPort]
    let state: UnsafeMutablePointer<RunState>
    private let memory = Arena()
    private let units: Mutex<Units>

    /// The unit `run` renders, and units the worker made whose kernels `run` may be
    /// rendering or about to: each lives until a later one has taken its place.
    private struct Units {
        var generations: [Int: AudioUnitBase]
        var newest: Int
        /// The bank the units play; nil for the unit's default.
        var contentPath: String?
    }

    /// Nil when the plugin takes events and the host maps no URIDs (a required feature).
    init?(plugin: ExportedPlugin, sampleRate: Double, features: HostFeatures) {
        self.plugin = plugin
        self.sampleRate = sampleRate
        guard let unit = try? plugin.makeUnit(sampleRate: sampleRate, maximumFrames: ExportedPlugin.sliceFrames) else { return nil }
        units = Mutex(Units(generations: [0: unit], newest: 0, contentPath: nil))
        ports = plugin.ports(of: unit)
        var eventInput: EventInput?
        if ports.contains(where: { $0.role == .events }) {
            guard let map = features.map else { return nil }
            eventInput = EventInput(map: map, content: plugin.content?.uri, schedule: features.schedule, in: memory)
        }
        state = memory.place(RunState(unit: unit, ports: ports, maximumFrames: ExportedPlugin.sliceFrames, eventInput: eventInput, in: memory))
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

    /// The control ports' values as the host last wrote them, by parameter.
    private func portValues() -> [String: Float] {
        var values: [String: Float] = [:]
        for (index, port) in ports.enumerated() {
            guard case .controlInput = port.role, let parameter = port.parameter,
                  let pointer = state.pointee.ports[index] else { continue }
            values[parameter.identifier] = RunState.clamp(pointer.assumingMemoryBound(to: Float.self).pointee, parameter)
        }
        return values
    }

    /// A new generation of the unit, with the control ports' values and `contentPath`'s
    /// bank; kept until a later one renders.
    private func makeGeneration(contentPath: String?) throws(AudioUnitError) -> (unit: AudioUnitBase, generation: Int, values: [String: Float]) {
        let values = portValues()
        let unit = try plugin.makeUnit(sampleRate: sampleRate, maximumFrames: ExportedPlugin.sliceFrames, values: values, contentPath: contentPath)
        let generation = units.withLock { units in
            units.newest += 1
            units.generations[units.newest] = unit
            return units.newest
        }
        return (unit, generation, values)
    }

    /// Starts from silence with the values on the control ports landing at once, as a
    /// unit's values do when set before it initializes. Thread: instantiation (`run` is not running).
    func activate() {
        let path = units.withLock { $0.contentPath }
        guard let made = (try? makeGeneration(contentPath: path)) ?? (try? makeGeneration(contentPath: nil)) else {
            _ = units.withLock { $0.generations[state.pointee.generation]?.reset() }
            return
        }
        adopt(made)
    }

    /// Renders `made` from the next `run`, dropping the unit it replaces. Units the worker
    /// made stay: a response may still be on its way with one of them.
    private func adopt(_ made: (unit: AudioUnitBase, generation: Int, values: [String: Float])) {
        let replaced = state.pointee.generation
        state.pointee.adopt(made.unit, generation: made.generation)
        _ = units.withLock { $0.generations.removeValue(forKey: replaced) }
        for (index, port) in ports.enumerated() {
            guard case .controlInput = port.role, let parameter = port.parameter else { continue }
            state.pointee.lastValues[index] = made.values[parameter.identifier] ?? .nan
        }
    }

    /// The bank the instance plays, as its state saves it. Thread: any but audio.
    var contentPath: String? { units.withLock { $0.contentPath } }

    /// Reads the bank at `path` into a new unit for `run` to take (the worker's response).
    /// Nil when it cannot be read: the instance plays what it played. Thread: worker.
    func loadContent(path: String) -> LoadedContent? {
        guard let made = try? makeGeneration(contentPath: path), let kernel = made.unit.renderKernel else { return nil }
        units.withLock { $0.contentPath = path }
        return LoadedContent(generation: made.generation, kernel: kernel, values: made.unit.realtime.values,
                             latency: Float(made.unit.latencyFrames))
    }

    /// The unit of `generation` renders: the ones before it are no longer reached. Thread: worker.
    func retire(before generation: Int) {
        units.withLock { units in
            for old in units.generations.keys where old < generation { units.generations[old] = nil }
        }
    }

    /// A restored state's bank, read now and rendered from the next `run`. Thread:
    /// instantiation (`run` is not running).
    func restoreContent(path: String) throws(AudioUnitError) {
        let made = try makeGeneration(contentPath: path)
        units.withLock { $0.contentPath = path }
        adopt(made)
    }
}

/// A unit the worker made, as the worker's response carries it to `run`.
struct LoadedContent: BitwiseCopyable {
    var generation: Int
    var kernel: RenderKernel
    var values: ParameterValues
    var latency: Float
}
