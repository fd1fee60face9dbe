import Testing
import TrellisCore
@testable import TrellisLV2

@Suite("LV2 errors")
struct ErrorTests {
    static let unknownFeature = "urn:trellis:fixtures:no-host-has-this-feature"

    @Test("a plugin that requires a feature Trellis lacks fails with the feature's URI")
    func missingFeatureNamed() {
        let world = LV2World(path: Fixture.directory)
        #expect {
            try LV2PluginUnit(world: world, uri: "urn:trellis:fixtures:requires-unknown-feature")
        } throws: { error in
            guard case LV2Error.missingFeatures(let features, _) = error else { return false }
            return features == [Self.unknownFeature] && "\(error)".contains(Self.unknownFeature)
        }
    }

    @Test("the registry's error for that plugin names the feature too")
    func missingFeatureThroughRegistry() {
        let registry = ComponentRegistry()
        LV2Components.addResolver(to: registry, world: LV2World(path: Fixture.directory))
        #expect {
            try registry.instantiate(named: "urn:trellis:fixtures:requires-unknown-feature")
        } throws: { "\($0)".contains(Self.unknownFeature) }
    }

    @Test("a library that fails to load is named with the loader's reason")
    func brokenLibrary() throws {
        let unit = try LV2PluginUnit(world: LV2World(path: Fixture.directory), uri: "urn:trellis:fixtures:broken-library")
        #expect {
            try unit.initialize()
        } throws: { error in
            let text = "\(error)"
            return text.contains("broken.so") && text.contains("failed to load") && text.contains("urn:trellis:fixtures:broken-library")
        }
        #expect(!unit.isInitialized)
    }

    @Test("a bus format with the wrong channel count is refused")
    func wrongChannelCount() throws {
        let unit = try makeUnit(Fixture.amp)
        #expect(throws: AudioUnitError.self) {
            try unit.setFormat(.canonical(sampleRate: 48_000, channelCount: 2), scope: .input, element: 0)
        }
    }
}
