import Foundation
import Testing

/// `count` samples of a sine at `frequency` by sox, mono float, at `rate`, `level` dBFS.
private func sine(_ name: String, rate: Int, frequency: Int, level: Double, seconds: Double = 2) throws -> String {
    let path = temporaryPath(name)
    #expect(try runTool("/usr/bin/sox", ["-n", "-r", "\(rate)", "-c", "1", "-b", "32", "-e", "float", path,
                                         "synth", "\(seconds)", "sine", "\(frequency)", "vol", "\(level)dB"]) == 0)
    return path
}

/// The amplitude of `frequency` in `samples` (a Goertzel filter over all of them).
private func amplitude(_ samples: [Float], frequency: Double, rate: Double) -> Double {
    let w = 2 * Double.pi * frequency / rate
    var re = 0.0, im = 0.0
    for (n, sample) in samples.enumerated() {
        re += Double(sample) * cos(w * Double(n))
        im -= Double(sample) * sin(w * Double(n))
    }
    return 2 * (re * re + im * im).squareRoot() / Double(samples.count)
}

@Suite("Files: sample types, dither and rates")
struct FileConversionTests {
    @Test("a chain to FLAC needs no flags: it writes 24-bit samples within dither of the source")
    func flacWithoutFlags() throws {
        let input = try sine("in.wav", rate: 48_000, frequency: 997, level: -3)
        let output = temporaryPath("out.flac")
        let result = try trellis(["chain", input, "!", "gain", "gain=0", "!", output])
        #expect(result.status == 0, "\(result.stderr)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/soxi")
        process.arguments = ["-b", output]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let bits = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(bits.trimmingCharacters(in: .whitespacesAndNewlines) == "24")
        let a = try floats(input), b = try floats(output)
        #expect(a.count == b.count)
        let lsb = Float(1) / Float(1 << 23)
        #expect(zip(a, b).allSatisfy { abs($0 - $1) <= 1.5 * lsb }, "TPDF dither moves a sample by at most 1.5 LSB")
    }

    @Test("16-bit output of a -100 dBFS sine keeps the sine in a dithered noise floor, with no harmonics above it")
    func ditherMakesNoiseNotHarmonics() throws {
        let input = try sine("quiet.wav", rate: 48_000, frequency: 1_000, level: -100)
        let dithered = temporaryPath("dithered.wav"), plain = temporaryPath("plain.wav")
        #expect(try trellis(["chain", "--sample-type", "int16", input, "!", "gain", "gain=0", "!", dithered]).status == 0)
        #expect(try trellis(["chain", "--sample-type", "int16", "--dither", "none", input, "!", "gain", "gain=0", "!", plain]).status == 0)
        let samples = try floats(dithered)
        let fundamental = amplitude(samples, frequency: 1_000, rate: 48_000)
        #expect(abs(20 * log10(fundamental) - -100) < 1, "the sine comes through at -100 dBFS: \(20 * log10(fundamental))")
        let floor = [1_370.0, 2_230, 4_410, 6_170, 8_590, 11_030, 13_310, 17_770].map { amplitude(samples, frequency: $0, rate: 48_000) }.max()!
        for harmonic in [2_000.0, 3_000, 5_000, 7_000] {
            #expect(amplitude(samples, frequency: harmonic, rate: 48_000) < 2 * floor, "\(harmonic) Hz stands out of the noise")
        }
        // Without dither the sine (a third of an LSB) rounds away to nothing.
        #expect(try floats(plain).allSatisfy { $0 == 0 })
    }

    @Test("a chain at another rate converts the file: a 1 kHz sine at 44.1 kHz comes out at 48 kHz with THD+N below -100 dB")
    func chainConvertsRates() throws {
        let input = try sine("in44.wav", rate: 44_100, frequency: 1_000, level: -6)
        let output = temporaryPath("out48.wav")
        let result = try trellis(["chain", "--sample-rate", "48000", input, "!", "gain", "gain=0", "!", output])
        #expect(result.status == 0, "\(result.stderr)")
        let samples = try floats(output)
        #expect(samples.count == 96_000, "2 s at 48 kHz")
        // What a sine at exactly 1 kHz leaves unexplained is THD+N. A frequency off by
        // 0.01 % would leave a residual near the signal itself.
        let (thdN, level) = sineFit(samples)
        #expect(thdN < -100, "THD+N \(thdN) dB")
        #expect(abs(level - -6) < 0.01, "the level is kept")
    }

    @Test("a converter rate= stage sets the chain's rate as --sample-rate does, and the two must agree")
    func converterRate() throws {
        let input = try sine("in44.wav", rate: 44_100, frequency: 1_000, level: -6)
        let viaOption = temporaryPath("option.wav"), viaConverter = temporaryPath("converter.wav")
        #expect(try trellis(["chain", "--sample-rate", "48000", input, "!", "converter", "!", viaOption]).status == 0)
        let result = try trellis(["chain", input, "!", "converter", "rate=48000", "!", viaConverter])
        #expect(result.status == 0, "\(result.stderr)")
        let a = try floats(viaOption), b = try floats(viaConverter)
        #expect(a.count == 96_000 && a == b)
        let clash = try trellis(["chain", "--sample-rate", "44100", input, "!", "converter", "rate=48000", "!", temporaryPath("x.wav")])
        #expect(clash.status != 0 && clash.stderr.contains("disagree"), "\(clash.stderr)")
    }

    @Test("--quality sets an Ogg Vorbis file's quality (a lower one is a smaller file) and is refused for other formats")
    func vorbisQuality() throws {
        let input = temporaryPath("noise.wav")
        #expect(try runTool("/usr/bin/sox", ["-n", "-r", "48000", "-c", "2", "-b", "32", "-e", "float", input, "synth", "3", "pinknoise", "vol", "0.3"]) == 0)
        let low = temporaryPath("low.ogg"), high = temporaryPath("high.ogg")
        #expect(try trellis(["chain", "--quality", "0.1", input, "!", "gain", "gain=0", "!", low]).status == 0)
        #expect(try trellis(["chain", "--quality", "0.9", input, "!", "gain", "gain=0", "!", high]).status == 0)
        let lowBytes = (try FileManager.default.attributesOfItem(atPath: low)[.size] as? Int) ?? 0
        let highBytes = (try FileManager.default.attributesOfItem(atPath: high)[.size] as? Int) ?? 0
        #expect(lowBytes > 0 && lowBytes * 2 < highBytes, "quality 0.1: \(lowBytes) bytes, 0.9: \(highBytes)")
        #expect(try floats(low).count == 2 * 144_000)
        #expect(try floats(high).count == 2 * 144_000)
        let refused = try trellis(["chain", "--quality", "0.5", input, "!", "gain", "gain=0", "!", temporaryPath("q.wav")])
        #expect(refused.status != 0 && refused.stderr.contains("a quality setting applies to Ogg Vorbis, not WAV"), "\(refused.stderr)")
    }

    @Test("render --input takes a file at another rate and converts it")
    func renderConvertsInputs() throws {
        let input = try sine("in44.wav", rate: 44_100, frequency: 1_000, level: -6)
        let session = temporaryPath("s.yaml"), output = temporaryPath("r.wav")
        try """
            version: 1
            defaults: { sample-rate: 48000 }
            jack: { inputs: [mic] }
            nodes:
              in: { unit: input, channels: 1 }
              out: { unit: output, channels: 1 }
            connections: [in -> out]
            """.write(toFile: session, atomically: true, encoding: .utf8)
        let result = try trellis(["render", session, "--duration", "1", "--input", "mic=\(input)", "-o", output])
        #expect(result.status == 0, "\(result.stderr)")
        let samples = try floats(output)
        #expect(samples.count == 48_000)
        #expect(abs(20 * log10(amplitude(Array(samples[4_800..<43_200]), frequency: 1_000, rate: 48_000)) - -6) < 0.05)
    }

    @Test("asking FLAC for float32 is refused with the message docs/files.md prints")
    func flacRefusalAsDocumented() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/files.md").path
        let printed = try #require(try String(contentsOfFile: docs, encoding: .utf8).components(separatedBy: "\n").first { $0.hasPrefix("'out.flac': ") })
        let input = try sine("in.wav", rate: 48_000, frequency: 440, level: -6, seconds: 0.1)
        let output = temporaryPath("out.flac")
        let result = try trellis(["chain", "--sample-type", "float32", input, "!", output])
        #expect(result.status != 0)
        #expect(result.stderr.contains(printed.replacingOccurrences(of: "'out.flac'", with: "'\(output)'")), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output), "nothing is created")
    }

    @Test("converter channel-map=1,0 swaps a stereo file's channels, sample for sample")
    func channelMapSwaps() throws {
        let input = temporaryPath("pair.wav"), output = temporaryPath("swapped.wav")
        #expect(try runTool("/usr/bin/sox", ["-n", "-r", "48000", "-c", "2", "-b", "32", "-e", "float", input,
                                             "synth", "0.5", "sine", "1000", "sine", "300", "vol", "0.5"]) == 0)
        let result = try trellis(["chain", input, "!", "converter", "channel-map=1,0", "!", output])
        #expect(result.status == 0, "\(result.stderr)")
        let a = try floats(input), b = try floats(output)
        #expect(a.count == b.count && a.count == 48_000)
        #expect(swapsPairs(a, b))
    }

    @Test("converter channel-map=0,0 spreads a mono file over a stereo output file")
    func channelMapSpreadsMono() throws {
        let input = try sine("mono.wav", rate: 48_000, frequency: 440, level: -6, seconds: 0.5)
        let output = temporaryPath("spread.wav")
        let result = try trellis(["chain", input, "!", "converter", "channel-map=0,0", "!", output])
        #expect(result.status == 0, "\(result.stderr)")
        let a = try floats(input), b = try floats(output)
        #expect(b.count == 2 * a.count)
        #expect(a.indices.allSatisfy { b[2 * $0] == a[$0] && b[2 * $0 + 1] == a[$0] })
    }

    @Test("a channel map naming a channel the input lacks is refused, saying which channels there are")
    func channelMapOutOfRange() throws {
        let input = try sine("mono.wav", rate: 48_000, frequency: 440, level: -6, seconds: 0.1)
        let result = try trellis(["chain", input, "!", "converter", "channel-map=0,3", "!", temporaryPath("x.wav")])
        #expect(result.status != 0)
        #expect(result.stderr.contains("channel-map") && result.stderr.contains("not 3"), "\(result.stderr)")
        let words = try trellis(["chain", input, "!", "converter", "channel-map=left,right", "!", temporaryPath("x.wav")])
        #expect(words.status != 0 && words.stderr.contains("silence or mix"), "\(words.stderr)")
    }

    @Test("converter quality= picks libsoxr's recipe: quick is cubic and measurably worse than the default high")
    func converterQuality() throws {
        let input = try sine("in44.wav", rate: 44_100, frequency: 1_000, level: -6)
        let quick = temporaryPath("quick.wav"), high = temporaryPath("high.wav"), plain = temporaryPath("plain.wav")
        #expect(try trellis(["chain", input, "!", "converter", "rate=48000", "quality=quick", "!", quick]).status == 0)
        #expect(try trellis(["chain", input, "!", "converter", "rate=48000", "quality=high", "!", high]).status == 0)
        #expect(try trellis(["chain", "--sample-rate", "48000", input, "!", "gain", "!", plain]).status == 0)
        let quickSamples = try floats(quick), highSamples = try floats(high), plainSamples = try floats(plain)
        #expect(highSamples == plainSamples, "high is the default")
        let quickResidual = sineFit(quickSamples).thdN, highResidual = sineFit(highSamples).thdN
        #expect(quickResidual > highResidual + 20, "quick: \(quickResidual) dB, high: \(highResidual) dB")
    }

    @Test("converter dither=false rounds 16-bit output without dither, as --dither none does; --dither tpdf against it is an error")
    func converterDither() throws {
        let input = try sine("quiet.wav", rate: 48_000, frequency: 1_000, level: -100, seconds: 0.5)
        let viaConverter = temporaryPath("c.wav"), viaOption = temporaryPath("o.wav")
        #expect(try trellis(["chain", "--sample-type", "int16", input, "!", "converter", "dither=false", "!", viaConverter]).status == 0)
        #expect(try trellis(["chain", "--sample-type", "int16", "--dither", "none", input, "!", "gain", "!", viaOption]).status == 0)
        let converted = try floats(viaConverter), optioned = try floats(viaOption)
        #expect(converted.count == 24_000 && converted.allSatisfy { $0 == 0 })
        #expect(optioned.count == 24_000 && optioned.allSatisfy { $0 == 0 })
        let clash = try trellis(["chain", "--sample-type", "int16", "--dither", "tpdf", input, "!", "converter", "dither=false", "!", viaConverter])
        #expect(clash.status != 0 && clash.stderr.contains("disagree"), "\(clash.stderr)")
    }

    @Test("a session's converter sets the render's rate, quality and channel map; one at odds with defaults: sample-rate is refused at its value")
    func sessionConverter() throws {
        let input = temporaryPath("pair44.wav"), output = temporaryPath("r.wav"), session = temporaryPath("conv.yaml")
        #expect(try runTool("/usr/bin/sox", ["-n", "-r", "44100", "-c", "2", "-b", "32", "-e", "float", input,
                                             "synth", "1", "sine", "1000", "sine", "300", "vol", "0.5"]) == 0)
        func write(rate: Int, defaults: String = "") throws {
            try """
                version: 1
                \(defaults)
                nodes:
                  play: { unit: player, file: \(input) }
                  conv:
                    unit: converter
                    channel-map: 1,0
                    parameters: { rate: \(rate), quality: very-high }
                  out: output
                connections: [play -> conv, conv -> out]
                """.write(toFile: session, atomically: true, encoding: .utf8)
        }
        try write(rate: 44_100)
        let result = try trellis(["render", session, "-o", output])
        #expect(result.status == 0, "\(result.stderr)")
        let a = try floats(input), b = try floats(output)
        #expect(b.count == a.count, "rendered at the converter's 44.1 kHz, the file's own rate")
        #expect(swapsPairs(a, b))
        try write(rate: 48_000, defaults: "defaults: { sample-rate: 44100 }")
        let clash = try trellis(["render", session, "-o", output])
        #expect(clash.status != 0 && clash.stderr.contains("conv.yaml:8:25:") && clash.stderr.contains("a graph runs at one rate"), "\(clash.stderr)")
    }
}

/// A 1 kHz sine at 48 kHz fitted in phase by least squares over the middle second:
/// THD+N (what the fit leaves, against the fit) and the sine's level, both in dB.
private func sineFit(_ samples: [Float]) -> (thdN: Double, level: Double) {
    let middle = Array(samples[24_000..<72_000])
    var ss = 0.0, cc = 0.0, sc = 0.0, ys = 0.0, yc = 0.0
    for (index, sample) in middle.enumerated() {
        let phase = 2 * Double.pi * 1_000 * Double(index + 24_000) / 48_000
        let s = sin(phase), c = cos(phase), y = Double(sample)
        ss += s * s; cc += c * c; sc += s * c; ys += y * s; yc += y * c
    }
    let determinant = ss * cc - sc * sc
    let a = (ys * cc - yc * sc) / determinant, b = (yc * ss - ys * sc) / determinant
    var residual = 0.0, signal = 0.0
    for (index, sample) in middle.enumerated() {
        let phase = 2 * Double.pi * 1_000 * Double(index + 24_000) / 48_000
        let fit = a * sin(phase) + b * cos(phase)
        residual += (Double(sample) - fit) * (Double(sample) - fit)
        signal += fit * fit
    }
    return (10 * log10(residual / signal), 20 * log10((a * a + b * b).squareRoot()))
}

/// Whether `b` is `a` (interleaved stereo) with its two channels swapped.
private func swapsPairs(_ a: [Float], _ b: [Float]) -> Bool {
    guard a.count == b.count, a.count % 2 == 0 else { return false }
    for index in stride(from: 0, to: a.count, by: 2) where a[index] != b[index + 1] || a[index + 1] != b[index] { return false }
    return true
}
