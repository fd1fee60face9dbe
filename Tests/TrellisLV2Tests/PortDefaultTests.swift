import Testing
import TrellisCore
@testable import TrellisLV2

extension LV2PluginUnit {
    fileprivate func value(_ identifier: String) throws -> Float {
        let parameter = try #require(parameters.first { $0.identifier == identifier })
        return try parameterValue(parameter.address)
    }
}

@Suite("Control port defaults and side-chains, as plugins write them")
struct PortDefaultTests {
    static let sawtooth = "http://drobilla.net/plugins/blop/sawtooth"
    static let moog = "http://drobilla.net/plugins/fomp/mvclpf1"
    static let highpass = "http://plugin.org.uk/swh-plugins/highpass_iir"
    static let sidechain = "http://plugin.org.uk/swh-plugins/sc2"

    @Test("blop's sawtooth, whose sampleRate default is written in Hz, starts at 440 Hz")
    func hertzDefaultOscillator() throws {
        let unit = try makeUnit(Self.sawtooth, sampleRate: 48_000)
        #expect(try unit.value("freq") == 440)
        try unit.initialize()
        let render = OfflineRender(unit, blockSize: 1024)
        let samples = render.process([], frames: 48_000)[0]
        // A sawtooth falls through zero once per period: 440 falls in one second (a
        // band-limited fall takes a few samples; crossings closer than 20 are one fall).
        #expect((samples.map(abs).max() ?? 0) > 0.1, "the oscillator sounds")
        var falls = 0, last = -100
        for index in 1..<samples.count where samples[index - 1] >= 0 && samples[index] < 0 && index - last > 20 {
            falls += 1
            last = index
        }
        #expect(abs(falls - 440) <= 1, "\(falls) periods in one second")
    }

    @Test("fomp's Moog filter starts at its 440 Hz cutoff, not wide open", arguments: [44_100.0, 48_000.0])
    func hertzDefaultFilter(rate: Double) throws {
        let unit = try makeUnit(Self.moog, sampleRate: rate)
        try unit.initialize()
        #expect(try unit.value("freq") == 440)
    }

    @Test("swh's highpass, whose sampleRate default is a fraction (0.1126), starts at that fraction of the rate",
          arguments: [44_100.0, 48_000.0])
    func fractionDefault(rate: Double) throws {
        let unit = try makeUnit(Self.highpass, sampleRate: rate)
        try unit.initialize()
        let written = try #require(unit.info.ports.first { $0.symbol == "cutoff" }?.defaultValue)
        #expect(abs(written - 0.1126) < 0.0001, "the plugin writes its default as a fraction")
        let cutoff = try unit.value("cutoff")
        #expect(abs(cutoff - written * Float(rate)) < 0.01, "\(cutoff)")
    }

    @Test("a control output starts at its default, else 0, not at its minimum")
    func outputStartsAtZero() {
        func port(minimum: Float, defaultValue: Float?) -> LV2PortInfo {
            LV2PortInfo(
                index: 3, symbol: "level", name: "Level", direction: .output, kind: .control, minimum: minimum, maximum: 10,
                defaultValue: defaultValue, unit: nil, hints: [], scalePoints: [], group: nil, designation: nil,
                supportsMIDI: false, minimumBufferSize: nil, types: [])
        }
        #expect(LV2PortLayout.parameter(for: port(minimum: -60, defaultValue: nil), sampleRate: 48_000).defaultValue == 0)
        #expect(LV2PortLayout.parameter(for: port(minimum: -60, defaultValue: -6), sampleRate: 48_000).defaultValue == -6)
    }

    @Test("swh sc2 lists its side-chain first; Trellis makes the main input bus 0 and marks the side-chain")
    func sideChainComesSecond() throws {
        let unit = try makeUnit(Self.sidechain, sampleRate: 48_000)
        let ports = Dictionary(uniqueKeysWithValues: unit.info.ports.map { ($0.symbol, $0) })
        let sideChainPort = try #require(unit.info.ports.first { $0.has(.sideChain) })
        #expect(sideChainPort.index < (ports["input"]?.index ?? 0), "the plugin lists its side-chain before its input")
        #expect(unit.busNames(.input) == ["input", sideChainPort.symbol])
        #expect(unit.sideChainBuses(.input) == [false, true])
    }
}
