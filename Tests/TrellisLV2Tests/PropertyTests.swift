import Foundation
import Testing
import TrellisCore
@testable import TrellisLV2

/// eg-params (lv2-examples) has no control ports: its controls are patch:writable and
/// patch:readable properties of every atom type.
@Suite("Plugin properties as parameters")
struct PropertyTests {
    static let params = "http://lv2plug.in/plugins/eg-params"

    func value(_ unit: LV2PluginUnit, _ name: String) throws -> Float {
        try unit.parameterValue(try unit.parameter(named: name).address)
    }

    @Test("numeric properties are parameters with their type and range")
    func declared() throws {
        let unit = try makeUnit(Self.params)
        let byName = Dictionary(uniqueKeysWithValues: unit.parameters.map { ($0.identifier, $0) })
        #expect(Set(byName.keys) == ["int", "long", "float", "double", "bool", "spring", "lfo"])
        #expect(byName["int"]?.flags.contains(.integer) == true)
        #expect(byName["bool"]?.flags.contains(.toggled) == true)
        #expect(byName["lfo"]?.isWritable == false)
        #expect(byName["lfo"]?.range == -1...1)
        #expect(byName["spring"]?.isWritable == true)
    }

    @Test("a property set before initialize reaches the plugin, which saves it in its state")
    func setBeforeInitialize() throws {
        let unit = try makeUnit(Self.params)
        try unit.setParameter(named: "int", 7)
        try unit.setParameter(named: "double", 0.5)
        try unit.initialize()
        _ = OfflineRender(unit).process([], frames: 256)
        let state = try unit.saveState()
        #expect(state.contains(#/eg-params#int>\s+"7"\^\^xsd:int/#))
        #expect(state.contains(#/eg-params#double>\s+"0\.5"?/#))
        #expect(try value(unit, "int") == 7)
    }

    @Test("a property set on a running unit reaches the plugin with the next render, as patch:Set")
    func setWhileInitialized() throws {
        let unit = try makeUnit(Self.params)
        try unit.initialize()
        let render = OfflineRender(unit)
        _ = render.process([], frames: 256)
        try unit.setParameter(named: "bool", 1)
        try unit.setParameter(named: "long", 123_456)
        _ = render.process([], frames: 256)
        let state = try unit.saveState()
        #expect(state.contains(#/eg-params#bool>\s+true/#))
        #expect(state.contains(#/eg-params#long>\s+"123456"/#))
    }

    @Test("values the plugin reports are read back: a state restored while running shows in get")
    func readBack() throws {
        let unit = try makeUnit(Self.params)
        try unit.initialize()
        let render = OfflineRender(unit)
        _ = render.process([], frames: 256)
        // The plugin's default state, which it reports when asked after instantiation.
        #expect(try value(unit, "float") == 0.1234)
        try unit.restoreState("<http://lv2plug.in/plugins/eg-params#int> 42 ; <http://lv2plug.in/plugins/eg-params#float> 2.5 .")
        _ = render.process([], frames: 256)
        #expect(try value(unit, "int") == 42)
        #expect(try value(unit, "float") == 2.5)
    }

    @Test("a property only patch:readable cannot be set")
    func readableOnly() throws {
        let unit = try makeUnit(Self.params)
        #expect(throws: AudioUnitError.self) { try unit.setParameter(named: "lfo", 0.5) }
    }
}
