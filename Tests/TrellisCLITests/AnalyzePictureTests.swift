import Foundation
import FoundationXML
import Testing
import TrellisTestSupport

/// `trellis analyze --png/--svg`, the pictures decoded by programs of their own: ffmpeg
/// decodes the PNG to pixels, Foundation's XML parser reads the SVG.
@Suite("trellis analyze's pictures")
struct AnalyzePictureTests {
    /// A picture's pixels as ffmpeg decodes them: RGB rows, and the size it read.
    static func decodePNG(_ path: String) throws -> (width: Int, height: Int, rgb: [UInt8]) {
        let probe = String(decoding: try output(of: "/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height", "-of", "csv=p=0", path]), as: UTF8.self)
        let sides = probe.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Int($0) }
        guard sides.count == 2 else { throw TestFailure("ffprobe read no size: \(probe)") }
        let raw = temporaryPath("pixels.rgb")
        #expect(try runTool("/usr/bin/ffmpeg", ["-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", raw]) == 0)
        return (sides[0], sides[1], [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw))))
    }

    @Test("--png draws a picture of the stated size that ffmpeg decodes, with the clipped passage marked red above the waveform")
    func pngOfAClippedFile() throws {
        let input = temporaryPath("clipped.wav"), picture = temporaryPath("clipped.png")
        // Four seconds of a quiet tone, then four driven 20 dB into clipping.
        let loud = temporaryPath("loud.wav"), quiet = temporaryPath("quiet.wav")
        #expect(try runTool("/usr/bin/sox", ["-n", "-r", "48000", "-c", "1", "-b", "16", quiet, "synth", "4", "sine", "440", "vol", "0.2"]) == 0)
        #expect(try runTool("/usr/bin/sox", ["-n", "-r", "48000", "-c", "1", "-b", "16", loud, "synth", "4", "sine", "440", "gain", "20"]) == 0)
        #expect(try runTool("/usr/bin/sox", [quiet, loud, input]) == 0)
        let result = try trellis(["analyze", input, "--png", picture, "--picture-size", "480x320"])
        #expect(result.status == 0, "\(result.stderr)")
        let image = try Self.decodePNG(picture)
        #expect(image.width == 480 && image.height == 320)
        #expect(image.rgb.count == 480 * 320 * 3)
        // Red marks (255, 51, 51) in the waveform's top rows, only over the second half.
        var marked: [Int] = []
        for y in 0..<image.height {
            for x in 0..<image.width {
                let i = (y * image.width + x) * 3
                if image.rgb[i] == 255 && image.rgb[i + 1] == 51 && image.rgb[i + 2] == 51 { marked.append(x) }
            }
        }
        let plotLeft = 64, plotWidth = 480 - 64 - 16
        #expect(!marked.isEmpty)
        #expect(marked.allSatisfy { $0 >= plotLeft + plotWidth / 2 - 2 }, "marks at \(Set(marked).sorted().prefix(5))")
    }

    @Test("--svg writes an SVG document of the stated size")
    func svgDocument() throws {
        let input = temporaryPath("tone.wav"), picture = temporaryPath("tone.svg")
        #expect(try runTool("/usr/bin/sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", input, "synth", "3", "sine", "1000", "vol", "0.5"]) == 0)
        let result = try trellis(["analyze", input, "--svg", picture, "--picture-size", "640x400"])
        #expect(result.status == 0, "\(result.stderr)")
        final class Root: NSObject, XMLParserDelegate {
            var attributes: [String: String]?
            func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
                if self.attributes == nil { self.attributes = attributes.merging(["element": name]) { $1 } }
            }
        }
        let parser = try #require(XMLParser(contentsOf: URL(fileURLWithPath: picture)))
        let root = Root()
        parser.delegate = root
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        #expect(root.attributes?["element"] == "svg")
        #expect(root.attributes?["width"] == "640pt" || root.attributes?["width"] == "640", "\(root.attributes ?? [:])")
        #expect(root.attributes?["height"] == "400pt" || root.attributes?["height"] == "400", "\(root.attributes ?? [:])")
    }

    @Test("bad requests are errors naming what is wrong, and leave no picture, whole or half",
          arguments: [
            ("text", ["--png"], "clipped"),
            ("two files", ["--png"], "draw one file"),
            ("size", ["--picture-size", "10x10", "--png"], "320x240 to 8192x8192"),
            ("folder", ["--png"], "could not be written"),
          ])
    func badRequests(_ kind: String, _ options: [String], _ message: String) throws {
        let audio = temporaryPath("tone.wav")
        #expect(try runTool("/usr/bin/sox", ["-n", "-r", "48000", "-c", "1", audio, "synth", "1", "sine", "440"]) == 0)
        let folder = temporaryPath("pictures")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var picture = folder + "/out.png"
        var files = [audio]
        switch kind {
        case "text":
            let text = folder + "/notes.txt"
            try "not audio".write(toFile: text, atomically: true, encoding: .utf8)
            files = [text]
        case "two files": files = [audio, audio]
        case "folder": picture = folder + "/missing/out.png"
        default: break
        }
        let result = try trellis(["analyze"] + files + options + [picture])
        #expect(result.status != 0)
        if kind != "text" { #expect(result.stderr.contains(message), "\(result.stderr)") } else { #expect(result.stderr.contains("notes.txt"), "\(result.stderr)") }
        let left = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".png") || $0.contains("trellis") }
        #expect(left.isEmpty, "\(left)")
    }
}
