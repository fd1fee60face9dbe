import Foundation
import Glibc
import Testing
@testable import TrellisSession

@Suite("Saves replace only the session file meant")
struct SafeSaveTests {
    /// A one-node session document.
    static var document: SessionDocument {
        var document = SessionDocument(file: "t")
        document.graph.nodes = [NodeSpec(name: "tone1", source: .unit("tone"), location: document.location)]
        return document
    }

    static func kind(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : 0
    }

    static func leftovers(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.contains(".tmp-") }
    }

    @Test("a FIFO, a directory and a device node are refused and left as they were")
    func specialFilesRefused() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(mkfifo(folder + "/fifo", 0o600) == 0)
        #expect(mkdir(folder + "/dir", 0o700) == 0)
        var targets = [("fifo", S_IFIFO, "a FIFO"), ("dir", S_IFDIR, "a directory")]
        if getuid() == 0 {
            // The null device's numbers (1, 3), made in the test's own folder.
            #expect(mknod(folder + "/null", S_IFCHR | 0o666, (1 << 8) | 3) == 0)
            targets.append(("null", S_IFCHR, "a device"))
        } else {
            print("SafeSaveTests: not root, so no device node is made; FIFO and directory only")
        }
        for (name, kind, said) in targets {
            #expect { try SessionWriter.save(Self.document, to: folder + "/" + name) } throws: { error in
                "\(error)".contains("it is \(said), not a regular file; refusing to write it")
            }
            #expect(Self.kind(folder + "/" + name) == kind, "\(name) is what it was")
        }
        #expect(try Self.leftovers(in: folder).isEmpty)
    }

    @Test("a session that is a symbolic link is saved in its target, and stays a link")
    func savedThroughLink() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/real", withIntermediateDirectories: true)
        try "version: 1\n".write(toFile: folder + "/real/mix.yaml", atomically: false, encoding: .utf8)
        #expect(symlink("real/mix.yaml", folder + "/mix.yaml") == 0)
        try SessionWriter.save(Self.document, to: folder + "/mix.yaml")
        #expect(Self.kind(folder + "/mix.yaml") == S_IFLNK)
        #expect(try String(contentsOfFile: folder + "/real/mix.yaml", encoding: .utf8) == SessionWriter.text(Self.document))
        #expect(try Self.leftovers(in: folder + "/real").isEmpty)
    }

    @Test("a link planted at the old temporary name is never followed")
    func plantedLinkIgnored() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let victim = folder + "/victim"
        try "keep me\n".write(toFile: victim, atomically: false, encoding: .utf8)
        #expect(symlink(victim, folder + "/mix.yaml.tmp-\(getpid())") == 0)
        try SessionWriter.save(Self.document, to: folder + "/mix.yaml")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep me\n")
        #expect(try String(contentsOfFile: folder + "/mix.yaml", encoding: .utf8) == SessionWriter.text(Self.document))
        #expect(try Self.leftovers(in: folder) == ["mix.yaml.tmp-\(getpid())"], "only the planted link")
    }

    @Test("the file keeps its mode")
    func modeKept() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/mix.yaml"
        try "version: 1\n".write(toFile: path, atomically: false, encoding: .utf8)
        #expect(chmod(path, 0o640) == 0)
        try SessionWriter.save(Self.document, to: path)
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_mode & 0o7777 == 0o640)
    }

    @Test("a saved session run by sh or bash stops at its first line: no command runs and no file is made", arguments: ["sh", "bash"])
    func savedSessionStopsAShell(shell: String) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let document = try SessionParser.parse("""
            version: 1
            nodes:
              tone1: { unit: tone }
              out: output
            connections:
              - tone1 -> out
            """, file: folder + "/mix.yaml")
        try SessionWriter.save(document, to: folder + "/mix.yaml")
        let run = Process()
        run.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        run.arguments = ["-k", "5", "30", "/bin/\(shell)", "mix.yaml"]
        run.currentDirectoryURL = URL(fileURLWithPath: folder)
        run.standardOutput = FileHandle.nullDevice
        run.standardError = FileHandle.nullDevice
        try run.run()
        run.waitUntilExit()
        #expect(run.terminationStatus == 2, "\(shell) exited with \(run.terminationStatus), not 2 (a syntax error)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["mix.yaml"], "the connection line ran as a redirect")
        #expect(try SessionParser.parse(String(contentsOfFile: folder + "/mix.yaml", encoding: .utf8), file: "mix.yaml").graph.nodes.count == 2)
    }
}
