import Foundation
import Testing
import TrellisAudioFile
import TrellisCore
import TrellisGraph
import TrellisLV2
import TrellisMedia
import TrellisOffline
import TrellisSession
import TrellisUnits

private func rms(_ samples: ArraySlice<Float>) -> Double {
    (samples.reduce(0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
}

/// The RBJ cookbook high-pass magnitude at `frequency`, straight from its formula.
private func highPassMagnitude(cutoff: Double, q: Double, at frequency: Double, sampleRate: Double) -> Double {
    let w0 = 2 * Double.pi * cutoff / sampleRate, alpha = sin(w0) / (2 * q), c = cos(w0)
    let b = [(1 + c) / 2, -(1 + c), (1 + c) / 2], a = [1 + alpha, -2 * c, 1 - alpha]
    let w = 2 * Double.pi * frequency / sampleRate
    func evaluate(_ k: [Double]) -> (Double, Double) {
        (k[0] + k[1] * cos(w) + k[2] * cos(2 * w), -(k[1] * sin(w) + k[2] * sin(2 * w)))
    }
    let (nr, ni) = evaluate(b), (dr, di) = evaluate(a)
    return ((nr * nr + ni * ni) / (dr * dr + di * di)).squareRoot()
}

private func run(_ tool: String, _ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
    process.standardOutput = Pipe()
    process.standardError = Pipe()
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw TestFailure("\(tool) \(arguments.joined(separator: " ")) failed") }
}

private struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

@Suite("The example sessions render what the math says")
struct ExampleRenderTests {
    @Test("the live mix: a 1 kHz sine on mic1 comes out through the 80 Hz high-pass, the centred panner's -3 dB and the mixer's 0.8")
    func liveMix() throws {
        let session = try SessionLoader.load(path: sessionsFolder + "/live-mix.yaml", registry: testRegistry())
        #expect(session.graph.plan?.inputChannelCount == 8)
        let sine = (0..<48_000).map { Float(0.5 * sin(2 * Double.pi * 1_000 * Double($0) / 48_000)) }
        let input = [sine] + Array(repeating: [Float](), count: 7)
        let out = render(session.graph, frames: 48_000, input: input)
        let amplitude = 0.5 * highPassMagnitude(cutoff: 80, q: 0.7071, at: 1_000, sampleRate: 48_000) * 0.5.squareRoot() * 0.8
        for channel in out {
            let measured = rms(channel[24_000...]) * 2.squareRoot()
            #expect(abs(20 * log10(measured / amplitude)) < 0.05, "measured \(measured), expected \(amplitude)")
        }
        // The limiter's look-ahead is the graph's latency; nothing precedes it.
        #expect(session.graph.latency == 240)
        #expect(out[0][0..<240].allSatisfy { $0 == 0 })
    }

    @Test("the file render is the players' files, resampled where needed, mixed at their volumes and delayed by the limiter")
    func fileRender() throws {
        let folder = try temporaryFolder()
        let copy = folder + "/file-render.yaml"
        try FileManager.default.copyItem(atPath: sessionsFolder + "/file-render.yaml", toPath: copy)
        try copySupportFiles(from: sessionsFolder + "/file-render.yaml", to: copy)
        let session = try SessionLoader.load(path: copy, registry: testRegistry())
        let frames = try #require(session.playedFrames)
        #expect(frames == 24_000)
        let recorders = try session.startTransport(atSampleTime: 0)
        let rendered = folder + "/rendered.wav"
        try OfflineRenderer(graph: session.graph).render(frameCount: frames, to: rendered)
        for recorder in recorders { _ = try recorder.stop() }

        // The reference, made by sox (an outside program) from the same files.
        let bass48 = folder + "/bass48.wav"
        try run("/usr/bin/sox", [folder + "/audio/bass.wav", "-e", "floating-point", "-b", "32", bass48, "rate", "-v", "48000"])
        let drums = try AudioFileReader(path: folder + "/audio/drums.wav").readAll()[0]
        let bass = try AudioFileReader(path: bass48).readAll()[0]
        let keys = try AudioFileReader(path: folder + "/audio/keys.wav").readAll()
        let latency = session.graph.latency
        #expect(latency == 240)
        let output = try AudioFileReader(path: rendered).readAll()
        let recorded = try AudioFileReader(path: folder + "/file-render.wav").readAll()
        var worst: Float = 0
        for channel in 0..<2 {
            for frame in latency..<frames {
                let t = frame - latency
                let bassSample = bass.isEmpty ? 0 : bass[t % bass.count]
                let expected = 0.6 * (t < drums.count ? drums[t] : 0) + 0.5 * bassSample + 0.5 * (t < keys[channel].count ? keys[channel][t] : 0)
                // Across the bass loop's join the player resamples continuously (it hears the
                // loop's start) while sox's reference ends in silence; compare away from it.
                if bass.count > 0, abs(t - bass.count) < 128 { continue }
                worst = max(worst, abs(output[channel][frame] - expected))
            }
            #expect(recorded[channel] == output[channel], "the recorder got what the output got")
        }
        #expect(worst < 5e-4, "largest difference from the mix of the files: \(worst)")
    }

    @Test("the LV2 chain equals lv2apply running the same three plugins with the same settings, one after another")
    func lv2Chain() throws {
        let registry = testRegistry()
        LV2Components.addResolver(to: registry, world: LV2World())
        let session = try SessionLoader.load(path: sessionsFolder + "/lv2-chain.yaml", registry: registry)
        #expect(session.placeholders.isEmpty)
        let frames = 24_000
        let out = render(session.graph, frames: frames, input: [])
        // The same tone, rendered alone, is the input of the lv2apply chain.
        let folder = try temporaryFolder()
        let tone = Graph(registry: BuiltInUnits.registry(), sampleRate: 48_000, maximumFrames: 512)
        let generator = try tone.addNode(ToneGenerator(channelCount: 1))
        try tone.setParameter(generator, "waveform", 2)
        try tone.setParameter(generator, "freq", 110)
        try tone.setParameter(generator, "amp", 0.4)
        let toneOut = try tone.addNode(GenericOutput(channelCount: 1))
        try tone.connect(generator, to: toneOut)
        try tone.initialize()
        try OfflineRenderer(graph: tone, sliceFrames: 512).render(frameCount: frames, to: folder + "/tone.wav")
        try run("/usr/bin/lv2apply", ["-i", folder + "/tone.wav", "-o", folder + "/amp.wav", "-c", "gain", "-6", "http://lv2plug.in/plugins/eg-amp"])
        try run("/usr/bin/sox", [folder + "/amp.wav", "-e", "floating-point", "-b", "32", folder + "/amp2.wav", "remix", "1", "1"])
        try run("/usr/bin/lv2apply", ["-i", folder + "/amp2.wav", "-o", folder + "/drive.wav", "-c", "drive", "0.3", "-c", "muffle", "0.2", "-c", "output", "0.5", "http://drobilla.net/plugins/mda/Overdrive"])
        try run("/usr/bin/lv2apply", ["-i", folder + "/drive.wav", "-o", folder + "/echo.wav", "-c", "feedback", "0.4", "-c", "fx_mix", "0.3", "http://drobilla.net/plugins/mda/Delay"])
        let reference = try AudioFileReader(path: folder + "/echo.wav").readAll()
        for channel in 0..<2 {
            let difference = zip(out[channel], reference[channel]).map { abs($0 - $1) }.max() ?? 1
            #expect(difference < 1e-4, "channel \(channel): largest difference \(difference)")
        }
        #expect(rms(out[0][12_000...]) > 0.01, "the chain makes sound")
    }

    @Test("the placeholder example passes the tone through the missing plugin and the bypassed gain unchanged")
    func placeholderPassesThrough() throws {
        let session = try SessionLoader.load(path: sessionsFolder + "/placeholder-and-state.yaml", registry: testRegistry())
        #expect(session.placeholders.count == 1)
        let out = pull(session.graph, frames: 4_800)
        for channel in out {
            var error: Double = 0
            for (frame, sample) in channel.enumerated() {
                let expected: Double = 0.5 * sin(2 * Double.pi * 440 * Double(frame) / 48_000)
                error = max(error, abs(Double(sample) - expected))
            }
            #expect(error < 1e-5)
        }
    }
}
