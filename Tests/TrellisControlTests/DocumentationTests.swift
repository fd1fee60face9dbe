import Foundation
import Testing
import TrellisControl

/// Every transcript in docs/ (a fenced block of `> command` lines, each followed by the
/// reply and any events it brings) is run against a live session, and the replies must
/// read as the documentation prints them: the same words, codes and names, with numbers
/// (levels, times, frames) free to differ and `/home/me` standing for the session's
/// folder. The comment before each block names the session it runs in and the commands
/// that set the scene:
///
///     <!-- test
///     session: media
///     setup: save /home/me/mix-v2.yaml
///     -->
enum DocumentationExamples {
    struct Transcript {
        var file: String
        var line: Int
        var session: String
        var setup: [String]
        /// Each request with the lines expected after it: the reply, then events.
        var exchanges: [(request: String, expected: [String])]
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// The transcripts of a Markdown file, and the fenced blocks that look like one but
    /// have no `test` comment (which is itself a failure).
    static func transcripts(in name: String) throws -> (found: [Transcript], unannotated: [Int]) {
        let lines = try String(contentsOfFile: root + "/" + name, encoding: .utf8).components(separatedBy: "\n")
        var found: [Transcript] = [], unannotated: [Int] = []
        var comment: [String]? = nil, lastComment: (lines: [String], end: Int)? = nil
        var index = 0
        while index < lines.count {
            let line = lines[index].trimmingCharacters(in: .whitespaces)
            if comment != nil {
                if line == "-->" { lastComment = (comment!, index); comment = nil } else { comment!.append(line) }
                index += 1
                continue
            }
            if line == "<!-- test" { comment = []; index += 1; continue }
            guard line.hasPrefix("```") else { index += 1; continue }
            let start = index
            var body: [String] = []
            index += 1
            while index < lines.count, !lines[index].trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                body.append(lines[index].trimmingCharacters(in: .whitespaces))
                index += 1
            }
            index += 1
            guard line == "```", body.contains(where: { $0.hasPrefix("> ") }) else { continue }
            // The comment must end on the line just before the fence.
            guard let annotation = lastComment, annotation.end == start - 1 else {
                unannotated.append(start + 1)
                continue
            }
            var transcript = Transcript(file: name, line: start + 1, session: "tone", setup: [], exchanges: [])
            for entry in annotation.lines {
                if entry.hasPrefix("session:") { transcript.session = entry.dropFirst(8).trimmingCharacters(in: .whitespaces) }
                if entry.hasPrefix("setup:") { transcript.setup.append(entry.dropFirst(6).trimmingCharacters(in: .whitespaces)) }
            }
            for entry in body where !entry.isEmpty {
                if entry.hasPrefix("> ") {
                    transcript.exchanges.append((String(entry.dropFirst(2)), []))
                } else if !transcript.exchanges.isEmpty {
                    transcript.exchanges[transcript.exchanges.count - 1].expected.append(entry)
                }
            }
            found.append(transcript)
        }
        return (found, unannotated)
    }

    /// Numbers become `#`, so a level or a time may differ and nothing else may.
    static func normalized(_ text: String) -> String {
        text.replacingOccurrences(of: "-?[0-9]+(\\.[0-9]+)?", with: "#", options: .regularExpression)
    }

    /// The sessions the transcripts run in, by name.
    static let sessions: [String: String] = [
        "tone": """
            version: 1
            defaults: { sample-rate: 48000, block-size: 256 }
            jack: { outputs: [out_1] }
            nodes:
              tone1: { unit: tone, channels: 1, parameters: { freq: 1000, amp: 0.5 } }
              trim: { unit: gain, channels: 1 }
              out: { unit: output, channels: 1 }
            connections: [tone1 -> trim, trim -> out]
            """,
        "tone-amp": """
            version: 1
            defaults: { sample-rate: 48000, block-size: 256 }
            jack: { outputs: [out_1] }
            nodes:
              tone1: { unit: tone, channels: 1, parameters: { freq: 1000, amp: 0.5 } }
              trim: { unit: gain, channels: 1 }
              out: { unit: output, channels: 1 }
              amp: { lv2: http://lv2plug.in/plugins/eg-amp }
            connections: [tone1 -> trim, trim -> amp, amp -> out]
            """,
        "strip": LiveControlTests.stripSession.replacingOccurrences(
            of: "defaults: { sample-rate: 48000, block-size: 256 }\n",
            with: "defaults: { sample-rate: 48000, block-size: 256 }\njack: { outputs: [out_1] }\n"),
        "metro": """
            version: 1
            defaults: { sample-rate: 48000, block-size: 256 }
            jack: { outputs: [out_1] }
            transport: { tempo: 120, meter: 4/4 }
            nodes:
              metro: { lv2: http://lv2plug.in/plugins/eg-metro }
              out: { unit: output, channels: 1 }
            connections: [metro -> out]
            """,
        "media": """
            version: 1
            defaults: { sample-rate: 48000, block-size: 256 }
            jack: { outputs: [out_1, out_2] }
            nodes:
              drums: { unit: player, file: drums.wav }
              bass: { unit: player, file: bass.wav }
              tone1: { unit: tone, channels: 1, parameters: { amp: 0.1 } }
              mix: { unit: mixer3d, inputs: 3, input-channels: 1, output-channels: 2 }
              out: { unit: output, channels: 2 }
            connections: [drums -> mix.0, bass -> mix.1, tone1 -> mix.2, mix -> out]
            recorders:
              mixdown: { source: mix.0, file: mixdown.wav }
            """,
    ]

    /// What every session's folder holds: the players' files and a session that fails
    /// to load.
    static func prepare(_ folder: String) throws {
        for (name, frequency, seconds) in [("drums", 200, 8), ("bass", 55, 8)] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
            process.arguments = ["-n", "-r", "48000", "-c", "1", "-b", "32", "-e", "float", folder + "/\(name).wav",
                                 "synth", "\(seconds)", "sine", "\(frequency)", "vol", "0.3"]
            try process.run()
            process.waitUntilExit()
        }
        try """
            version: 1
            defaults: { sample-rate: 48000, block-size: 256 }
            nodes:
              tone1: { unit: tone, channels: 1 }
              out: { unit: output, channels: 1 }
              amp:
                unit: gian
            connections: [tone1 -> amp, amp -> out]
            """.write(toFile: folder + "/broken.yaml", atomically: true, encoding: .utf8)
    }
}

extension LiveControlTests {
    @Test("every transcript in docs/ runs against a live session and reads as printed")
    func documentedTranscripts() throws {
        var transcripts: [DocumentationExamples.Transcript] = []
        let docs = try FileManager.default.contentsOfDirectory(atPath: DocumentationExamples.root + "/docs").filter { $0.hasSuffix(".md") }.sorted()
        for name in ["README.md"] + docs.map({ "docs/" + $0 }) {
            let (found, unannotated) = try DocumentationExamples.transcripts(in: name)
            for line in unannotated { Issue.record("\(name):\(line): a transcript with no <!-- test --> comment before it") }
            transcripts += found
        }
        #expect(transcripts.count >= 15, "\(transcripts.count) transcripts found")
        for transcript in transcripts {
            guard let session = DocumentationExamples.sessions[transcript.session] else {
                Issue.record("\(transcript.file):\(transcript.line): no session named \(transcript.session)")
                continue
            }
            let rig = try LiveRig(session: session, homeInFolder: true, prepare: DocumentationExamples.prepare)
            defer { rig.stop() }
            let client = try rig.client()
            func here(_ text: String) -> String { text.replacingOccurrences(of: "/home/me", with: rig.folder) }
            for line in transcript.setup {
                let reply = try client.request(here(line))
                #expect(!reply.hasPrefix("error") && !reply.contains("\"ok\":false"), "\(transcript.file):\(transcript.line): setup \(line): \(reply)")
            }
            for (request, expected) in transcript.exchanges {
                try client.send(here(request))
                var queued: [String] = []
                // The next event the watch sent, but for xruns a busy machine causes where
                // the transcript shows none.
                func nextEvent(_ wanted: String) throws -> String? {
                    while true {
                        if queued.isEmpty { queued = client.takeEvents() }
                        guard let line = queued.isEmpty ? try client.readLine(timeout: 3) : queued.removeFirst() else { return nil }
                        let isXrun = line.hasPrefix("event xrun") || line.contains(#""event":"xrun""#)
                        if !isXrun || wanted.contains("xrun") { return line }
                    }
                }
                for (index, wanted) in expected.enumerated() {
                    let got = try index == 0 ? client.readReply(timeout: 60) : nextEvent(wanted)
                    let want = DocumentationExamples.normalized(here(wanted)), have = DocumentationExamples.normalized(got ?? "(nothing)")
                    #expect(have == want, "\(transcript.file):\(transcript.line): > \(request)\n  printed: \(wanted)\n  got:     \(got ?? "(nothing)")")
                }
            }
        }
    }
}
