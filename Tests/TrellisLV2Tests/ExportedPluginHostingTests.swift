import CAllocationCounter
import CTrellisShim
import Testing
import Foundation
import TrellisCore
import TrellisLV2
import TrellisPlugins
import TrellisTestSupport

/// Values away from the defaults for every control the plugin shows: 30 % of the way
/// across each range (in ratio for logarithmic ones), whole numbers where they must be.
private func settings(_ ports: [ExportedPort]) -> [(port: ExportedPort, value: Float)] {
    ports.compactMap { port in
        guard case .controlInput = port.role, let parameter = port.parameter else { return nil }
        let low = parameter.range.lowerBound, high = parameter.range.upperBound
        var value = parameter.flags.contains(.logarithmic) && low > 0 ? low * Float.pow(high / low, 0.3) : low + (high - low) * 0.3
        if parameter.flags.contains(.enumeration) || parameter.flags.contains(.toggled) || parameter.unit == .indexed { value = value.rounded() }
        if parameter.identifier.hasSuffix("distance") { value = min(value, 4) }
        return (port, value)
    }
}

extension Float {
    fileprivate static func pow(_ x: Float, _ y: Float) -> Float { Float(Foundation.pow(Double(x), Double(y))) }
}

@Suite("Trellis' exported plugins hosted through lilv")
struct ExportedPluginHostingTests {
    @Test("each renders what its built-in unit renders, bit for bit, through parameter changes, allocating nothing",
          arguments: ExportedPlugins.all.map(\.symbol))
    func matchesTheBuiltIn(_ symbol: String) throws {
        let plugin = try #require(ExportedPlugins.all.first { $0.symbol == symbol })
        let world = LV2World(path: try ExportedBundle.folder())
        let probe = try plugin.makeUnit(sampleRate: 48_000, maximumFrames: 256)
        let chosen = settings(plugin.ports(of: probe))
        let builtIn = try plugin.makeUnit(sampleRate: 48_000, maximumFrames: ExportedPlugin.sliceFrames,
                                          values: Dictionary(uniqueKeysWithValues: chosen.map { ($0.port.parameter!.identifier, $0.value) }))
        let hosted = try makeUnit(plugin.uri, world: world, maxFrames: 256)
        for (port, value) in chosen { try hosted.setParameter(named: port.symbol, value) }
        try hosted.initialize()

        // (Trellis' host learns a plugin's latency on a throwaway instance: the one hosted
        // here has not run before its first block, as the built-in has not.)
        let ours = OfflineRender(builtIn), theirs = OfflineRender(hosted)
        var noise = Noise()
        // A host writes a control only when it changes.
        var changes = chosen.filter { $0.value != $0.port.parameter!.defaultValue }.makeIterator()
        for block in 0..<200 {
            for bus in 0..<ours.inputs.busCount {
                for channel in 0..<ours.inputs[bus].channelCount {
                    for frame in 0..<256 {
                        let sample = noise.next()
                        ours.inputs[bus][channel][frame] = sample
                        theirs.inputs[bus][channel][frame] = sample
                    }
                }
            }
            // Every tenth block moves one control back to its default, as a host would.
            if block % 10 == 5, let change = changes.next(), let parameter = change.port.parameter {
                builtIn.applyParameterEvent(index: try builtIn.index(of: parameter.address), value: parameter.defaultValue, rampFrames: 0)
                let index = try #require(hosted.parameters.firstIndex { $0.identifier == change.port.symbol })
                hosted.applyParameterEvent(index: index, value: parameter.defaultValue, rampFrames: 0)
            }
            _ = ours.renderBlock(frames: 256)
            if block >= 8 {
                trellis_set_audio_thread(1)
                trellis_allocation_counter_arm()
            }
            _ = theirs.renderBlock(frames: 256)
            trellis_allocation_counter_disarm()
            trellis_set_audio_thread(0)
            for bus in 0..<ours.outputs.busCount {
                for channel in 0..<ours.outputs[bus].channelCount {
                    let a = UnsafeBufferPointer(start: ours.outputs[bus][channel], count: 256)
                    let b = UnsafeBufferPointer(start: theirs.outputs[bus][channel], count: 256)
                    guard a.elementsEqual(b) else {
                        Issue.record("block \(block), bus \(bus), channel \(channel): the hosted plugin differs from the built-in unit")
                        return
                    }
                }
            }
        }
        #expect(trellis_allocation_counter_allocations() == 0)
        #expect(trellis_allocation_counter_frees() == 0)
    }

    @Test("a plugin's settings come back from the LV2 state a host saved")
    func stateRestores() throws {
        let world = LV2World(path: try ExportedBundle.folder())
        let uri = ExportedPlugin.uriBase + "eq8-stereo"
        let first = try makeUnit(uri, world: world, maxFrames: 256)
        try first.initialize()
        try first.setParameter(named: "band2_freq", 2_500)
        try first.setParameter(named: "band2_gain", -7.5)
        try first.setParameter(named: "band2_type", 1)
        let saved = try first.saveState()

        let second = try makeUnit(uri, world: world, maxFrames: 256)
        try second.initialize()
        try second.restoreState(saved)
        for name in ["band2_freq", "band2_gain", "band2_type", "gain"] {
            let parameter = try second.parameter(named: name)
            #expect(try second.parameterValue(parameter.address) == first.parameterValue(try first.parameter(named: name).address), "\(name)")
        }
    }

    @Test("the iPod EQ's presets, applied by a host, choose their curve")
    func presetsApply() throws {
        let world = LV2World(path: try ExportedBundle.folder())
        let unit = try makeUnit(ExportedPlugin.uriBase + "ipod-eq-stereo", world: world, maxFrames: 256)
        try unit.initialize()
        let plugin = try #require(ExportedPlugins.plugin(uri: ExportedPlugin.uriBase + "ipod-eq-stereo"))
        #expect(Set(unit.presets.map(\.label)) == Set(plugin.presets.map(\.name)))
        for preset in plugin.presets {
            try unit.applyPreset(labelOrURI: preset.name)
            #expect(try unit.parameterValue(try unit.parameter(named: "preset").address) == preset.values["preset"], "\(preset.name)")
        }
    }
}
