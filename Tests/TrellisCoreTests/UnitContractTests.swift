import Testing
import TrellisCore
import TrellisUnits

@Suite("Properties and parameters of a unit")
struct UnitContractTests {
    @Test("the stream format of an input element that does not exist is an invalid element error, with the count")
    func missingElement() {
        let gain = Gain()
        #expect { try gain.format(scope: .input, element: 1) } throws: {
            "\($0)" == "gain (aufx:gain:trls): input element 1 does not exist (the unit has 1 input element)"
        }
        #expect { try gain.property(.streamFormat, scope: .output, element: 7) } throws: { "\($0)".contains("output element 7 does not exist") }
    }

    @Test("a tone generator has no input elements")
    func generatorHasNoInputs() {
        let tone = ToneGenerator()
        #expect(tone.elementCount(.input) == 0)
        #expect { try tone.format(scope: .input, element: 0) } throws: { "\($0)".contains("has 0 input elements") }
    }

    @Test("the stream format has no global scope")
    func formatNotGlobal() {
        #expect { try Gain().property(.streamFormat, scope: .global, element: 0) } throws: {
            "\($0)".contains("property stream format does not exist in global scope")
        }
    }

    @Test("global-only properties refuse input and output scopes", arguments: [PropertyID.latency, .tailTime, .maximumFramesPerSlice, .bypassEffect])
    func globalOnly(id: PropertyID) {
        for scope in [Scope.input, .output] {
            #expect { try Gain().propertyInfo(id, scope: scope, element: 0) } throws: { "\($0)".contains("does not exist in \(scope) scope") }
        }
    }

    @Test("an unknown property is an invalid property error")
    func unknownProperty() {
        #expect { try Gain().property(PropertyID(rawValue: 9999, name: "Nope"), scope: .global, element: 0) } throws: {
            "\($0)".contains("property nope is not supported")
        }
    }

    @Test("formats cannot change while initialized, and can again after uninitialize")
    func formatLockedWhileInitialized() throws {
        let gain = Gain()
        try gain.initialize()
        #expect { try gain.setFormat(.canonical(sampleRate: 44_100, channelCount: 2), scope: .input, element: 0) } throws: {
            "\($0)".contains("cannot change while the unit is initialized")
        }
        gain.uninitialize()
        try gain.setFormat(.canonical(sampleRate: 44_100, channelCount: 2), scope: .input, element: 0)
        #expect(try gain.format(scope: .input, element: 0).sampleRate == 44_100)
    }

    @Test("an interleaved or integer format inside a graph is not supported")
    func canonicalOnly() {
        let interleaved = StreamFormat(sampleRate: 48_000, channelCount: 2, sampleType: .float32, isInterleaved: true)
        #expect { try Gain().setFormat(interleaved, scope: .input, element: 0) } throws: { "\($0)".contains("not supported") }
        let integer = StreamFormat(sampleRate: 48_000, channelCount: 2, sampleType: .int16)
        #expect { try Gain().setFormat(integer, scope: .output, element: 0) } throws: { "\($0)".contains("not supported") }
    }

    @Test("an impossible format is refused with what is wrong")
    func invalidFormat() {
        #expect { try Gain().setFormat(.canonical(sampleRate: 10, channelCount: 2), scope: .input, element: 0) } throws: {
            "\($0)".contains("sample rate 10.0 Hz is outside")
        }
        #expect { try Gain().setFormat(.canonical(sampleRate: 48_000, channelCount: 0), scope: .input, element: 0) } throws: {
            "\($0)".contains("channel count 0 is outside 1...64")
        }
    }

    @Test("a fixed element count cannot change; a settable one can")
    func elementCounts() throws {
        #expect { try Gain().setElementCount(2, scope: .input) } throws: { "\($0)".contains("the number of input elements is fixed") }
        let splitter = Splitter()
        try splitter.setElementCount(4, scope: .output)
        #expect(splitter.elementCount(.output) == 4)
    }

    @Test("a property of the wrong kind is refused, naming both kinds")
    func wrongKind() {
        #expect { try Gain().setProperty(.maximumFramesPerSlice, .bool(true), scope: .global, element: 0) } throws: {
            "\($0)".contains("takes a integer, not boolean") || "\($0)".contains("takes a integer")
        }
    }

    @Test("read-only properties refuse to be set")
    func readOnly() {
        #expect { try Gain().setProperty(.latency, .double(1), scope: .global, element: 0) } throws: { "\($0)".contains("is read-only") }
    }

    @Test("a parameter value outside its range is rejected, naming the range, and the value stays")
    func parameterOutOfRange() throws {
        let gain = Gain()
        #expect { try gain.setParameter(Gain.gainParameter, 30, rampFrames: 0) } throws: { "\($0)".contains("30.0 is outside the range of gain, -120.0...24.0") }
        #expect(try gain.parameterValue(Gain.gainParameter) == 0)
    }

    @Test("a parameter in a scope or element it does not exist in is an invalid parameter error")
    func parameterWrongScope() {
        #expect { try Gain().parameterValue(ParameterAddress(0, scope: .input, element: 0)) } throws: { "\($0)".contains("no parameter 0 (input 0)") }
        #expect { try Gain().setParameter(ParameterAddress(5), 1, rampFrames: 0) } throws: { "\($0)".contains("no parameter 5") }
    }

    @Test("an unknown parameter name suggests the close ones")
    func parameterByName() throws {
        #expect { try ToneGenerator().parameter(named: "frq") } throws: { "\($0)".contains("did you mean freq") }
        #expect(try ToneGenerator().parameter(named: "Frequency").identifier == "freq")
    }

    @Test("listeners hear parameter and property changes")
    func listeners() throws {
        let gain = Gain()
        final class Heard: @unchecked Sendable { var parameters: [Float] = []; var properties: [PropertyID] = [] }
        let heard = Heard()
        gain.addParameterListener { _, value in heard.parameters.append(value) }
        let token = gain.addPropertyListener { id, _, _ in heard.properties.append(id) }
        try gain.setParameter(Gain.gainParameter, -3, rampFrames: 0)
        try gain.setProperty(.bypassEffect, .bool(true), scope: .global, element: 0)
        gain.removeListener(token)
        try gain.setProperty(.bypassEffect, .bool(false), scope: .global, element: 0)
        #expect(heard.parameters == [-3])
        #expect(heard.properties == [.bypassEffect])
    }

    @Test("a unit pulled on its own renders its input source through itself")
    func standalonePull() throws {
        let gain = Gain(channelCount: 1)
        try gain.setParameter(Gain.gainParameter, -20, rampFrames: 0)
        try gain.setFormat(.canonical(sampleRate: 48_000, channelCount: 1), scope: .output, element: 0)
        try gain.initialize()
        gain.preparePulling()
        struct Ones: InputSource {
            func pullInput(bus: Int, frameCount: Int, timeStamp: AudioTimeStamp, into buffers: AudioBuffers) -> RenderStatus {
                buffers[0].update(repeating: 1, count: frameCount)
                return .ok
            }
        }
        let out = AudioBufferList(channelCount: 1, frameCapacity: 64)
        #expect(gain.render(frameCount: 64, timeStamp: .zero, outputBus: 0, into: out[0], pullingFrom: Ones()) == .ok)
        #expect(out.samples(channel: 0, frameCount: 64).allSatisfy { abs($0 - 0.1) < 1e-6 })
        #expect(gain.render(frameCount: 99_999, timeStamp: .zero, outputBus: 0, into: out[0], pullingFrom: Ones()) == .tooManyFrames)
    }
}
