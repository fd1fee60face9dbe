import Foundation
import Testing
import TrellisCore
@testable import TrellisLV2

@Suite("Hosting LV2 plugins as audio units")
struct HostingTests {
    @Test("eg-amp scales its input by the gain's decibels")
    func ampGainMatchesDecibels() throws {
        let unit = try makeUnit(Fixture.amp)
        try unit.setParameter(named: "gain", -6)
        try unit.initialize()
        var noise = Noise()
        let input = noise.samples(4096)
        let output = OfflineRender(unit).process([input], frames: input.count)[0]
        let expected = powf(10, -6 / 20)
        let worst = zip(input, output).map { abs($0 * expected - $1) }.max() ?? 1
        #expect(worst < 1e-6)
    }

    @Test("eg-amp's output equals lv2apply's on the same file")
    func ampMatchesLv2apply() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-lv2-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let inputPath = directory.appendingPathComponent("in.wav").path
        let outputPath = directory.appendingPathComponent("out.wav").path
        var noise = Noise()
        let input = noise.samples(48_000)
        try WAV.write(input, sampleRate: 48_000, to: inputPath)
        try run("lv2apply", ["-i", inputPath, "-o", outputPath, "-c", "gain", "-9.5", Fixture.amp])
        let reference = try WAV.read(outputPath)
        #expect(reference.count == input.count)

        let unit = try makeUnit(Fixture.amp)
        try unit.setParameter(named: "gain", -9.5)
        try unit.initialize()
        let ours = OfflineRender(unit, blockSize: 512).process([try WAV.read(inputPath)], frames: input.count)[0]
        let worst = zip(ours, reference).map { abs($0 - $1) }.max() ?? 1
        #expect(worst < 1e-6)
    }

    @Test("a ramp is applied in 32-frame steps that end on the target")
    func rampInSubBlocks() throws {
        let unit = try makeUnit(Fixture.amp)
        try unit.initialize()
        let render = OfflineRender(unit, blockSize: 256)
        for frame in 0..<256 { render.inputs[0][0][frame] = 1 }
        unit.applyParameterEvent(index: 0, value: -20, rampFrames: 128)
        _ = render.renderBlock(frames: 256)
        let output = Array(UnsafeBufferPointer(start: render.outputs[0][0], count: 256))
        for block in 0..<8 {
            let gainDB: Float = block < 4 ? -20 * Float(block + 1) / 4 : -20
            let expected = powf(10, gainDB / 20)
            for frame in block * 32..<(block + 1) * 32 { #expect(abs(output[frame] - expected) < 1e-5, "frame \(frame)") }
        }
    }

    @Test("a value outside a parameter's range is rejected")
    func outOfRangeRejected() throws {
        let unit = try makeUnit(Fixture.amp)
        #expect(throws: AudioUnitError.self) { try unit.setParameter(named: "gain", 30) }
        #expect(try unit.parameterValue(ParameterAddress(0)) == 0)
    }

    @Test("bounds given as fractions of the sample rate are scaled to the unit's rate")
    func sampleRateBounds() throws {
        // butthigh_iir's cutoff: 0.0001...0.45 × rate, default 0.112575 × rate, logarithmic.
        let unit = try makeUnit("http://plugin.org.uk/swh-plugins/butthigh_iir")
        let cutoff = try unit.parameter(named: "cutoff")
        #expect(abs(cutoff.range.lowerBound - 0.0001 * 48_000) < 1e-3)
        #expect(abs(cutoff.range.upperBound - 0.45 * 48_000) < 1e-2)
        #expect(abs(cutoff.defaultValue - 0.112575 * 48_000) < 1e-2)
        #expect(cutoff.flags.contains(.logarithmic))
        try unit.setSampleRate(44_100)
        try unit.initialize()
        let scaled = try unit.parameter(named: "cutoff")
        #expect(abs(scaled.range.upperBound - 0.45 * 44_100) < 1e-2)
        #expect(abs(try unit.parameterValue(scaled.address) - 0.112575 * 44_100) < 1e-2)
    }

    @Test("parameters carry units and enumeration labels from the plugin's data")
    func unitsAndScalePoints() throws {
        let amp = try makeUnit(Fixture.amp)
        #expect(try amp.parameter(named: "gain").unit == .decibels)
        // mda Combo's model: an enumeration whose scale points are fractions, not indices.
        let combo = try makeUnit("http://drobilla.net/plugins/mda/Combo")
        let model = try combo.parameter(named: "model")
        #expect(model.flags.contains(.enumeration))
        #expect(model.valueStrings.isEmpty)
        let port = try #require(combo.info.ports.first { $0.symbol == "model" })
        #expect(port.scalePoints.first?.label == "D.I. (flat frequency response)")
        #expect(port.scalePoints.first?.value == 0)
        #expect(port.scalePoints.count == 7)
    }

    @Test("stereo port groups become one two-channel bus")
    func portGroupsMakeStereoBuses() throws {
        let unit = try makeUnit("http://drobilla.net/plugins/mda/Combo")
        #expect(unit.elementCount(.input) == 1)
        #expect(try unit.format(scope: .input, element: 0).channelCount == 2)
        #expect(try unit.format(scope: .output, element: 0).channelCount == 2)
        let amp = try makeUnit(Fixture.amp)
        #expect(try amp.format(scope: .output, element: 0).channelCount == 1)
    }

    @Test("control outputs are read-only parameters that the render updates")
    func controlOutputsAreMeters() throws {
        let unit = try makeUnit("http://plugin.org.uk/swh-plugins/fastLookaheadLimiter", sampleRate: 48_000)
        let latency = try #require(unit.parameters.first { $0.identifier == "latency" })
        #expect(latency.flags.contains(.output))
        #expect(throws: AudioUnitError.self) { try unit.setParameter(latency.address, 1) }
        try unit.initialize()
        var noise = Noise()
        _ = OfflineRender(unit).process([noise.samples(1024)], frames: 1024)
        let reported = try unit.parameterValue(latency.address)
        #expect(reported > 0)
        #expect(unit.latencyFrames == Int(reported.rounded()))
        #expect(try unit.property(.latency, scope: .global, element: 0) == .double(Double(unit.latencyFrames) / 48_000))
    }

    @Test("eg-fifths answers a note with the note and its fifth")
    func fifthsAddsAFifth() throws {
        let unit = try makeUnit(Fixture.fifths)
        try unit.initialize()
        let render = OfflineRender(unit)
        #expect(unit.scheduleMIDI(.noteOn(note: 60, velocity: 100), frame: 17))
        _ = render.renderBlock(frames: 256)
        var events: [(Int, [UInt8])] = []
        unit.forEachOutputEvent { frame, _, data in events.append((frame, Array(data))) }
        #expect(events.map(\.0) == [17, 17])
        #expect(events.map(\.1) == [[0x90, 60, 100], [0x90, 67, 100]])
        var sent: [UnitMessage] = []
        #expect(unit.drainMessages { sent.append($0) } == 0)
        #expect(sent == [
            .midi(TimedMIDIMessage(sampleTime: 17, message: .noteOn(note: 60, velocity: 100)), bus: 0),
            .midi(TimedMIDIMessage(sampleTime: 17, message: .noteOn(note: 67, velocity: 100)), bus: 0),
        ])
    }

    @Test("a MIDI note-on through the atom port makes mda EPiano sound")
    func instrumentSounds() throws {
        let unit = try makeUnit(Fixture.epiano)
        try unit.initialize()
        let render = OfflineRender(unit, blockSize: 512)
        let silent = render.process([], frames: 4800)
        #expect(silent.allSatisfy { rms($0[...]) == 0 })
        #expect(unit.queueMIDI(.noteOn(note: 60, velocity: 110)))
        let played = render.process([], frames: 9600)
        #expect(played.allSatisfy { rms($0[...]) > 0.01 })
        #expect(played.allSatisfy { channel in channel.allSatisfy { $0.isFinite } })
    }

    @Test("eg-sampler loads its default sample through the worker and plays it on a note")
    func samplerPlays() throws {
        let unit = try makeUnit(Fixture.sampler)
        try unit.initialize()
        let render = OfflineRender(unit, blockSize: 256)
        let before = render.process([], frames: 2048)
        #expect(rms(before[0][...]) == 0)
        #expect(unit.queueMIDI(.noteOn(note: 60, velocity: 127)))
        let played = render.process([], frames: 4096)
        #expect(rms(played[0][...]) > 0.001)
    }

    static let effects = [
        "http://plugin.org.uk/swh-plugins/plate", "http://plugin.org.uk/swh-plugins/sc4",
        "http://plugin.org.uk/swh-plugins/flanger", "http://plugin.org.uk/swh-plugins/valve",
        "http://plugin.org.uk/swh-plugins/butthigh_iir", "http://drobilla.net/plugins/mda/Ambience",
        "http://drobilla.net/plugins/mda/Combo", "http://drobilla.net/plugins/mda/Leslie",
        "http://drobilla.net/plugins/mda/Overdrive", "http://drobilla.net/plugins/mda/DubDelay",
    ]

    @Test("ten swh and mda effects keep 10 s of noise finite", arguments: effects)
    func effectsStayFinite(uri: String) throws {
        let unit = try makeUnit(uri)
        try unit.initialize()
        var noise = Noise()
        let input = noise.samples(480_000)
        let outputs = OfflineRender(unit, blockSize: 1024).process([input], frames: input.count)
        for output in outputs {
            #expect(output.allSatisfy { $0.isFinite })
            #expect(rms(output[...]) > 0)
        }
    }
}
