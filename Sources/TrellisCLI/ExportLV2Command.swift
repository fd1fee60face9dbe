import ArgumentParser
import Foundation
import Glibc
import TrellisAudioFile
import TrellisPlugins

struct ExportLV2Command: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export-lv2",
        abstract: "Write Trellis' units as an LV2 bundle any LV2 host can load.",
        discussion: """
            Writes BUNDLE (a folder, e.g. ~/.lv2/trellis.lv2): the plugin library, built beside \
            trellis as libTrellisLV2Plugins.so, and its Turtle, written from the units' own \
            parameters. scripts/install-plugins builds and runs this.
            """)

    @Argument(help: "The bundle folder to write (made if missing; its files are replaced).")
    var bundle: String

    @Option(help: "The plugin library (default: libTrellisLV2Plugins.so beside this program).")
    var library: String?

    func run() throws {
        let source = library ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("libTrellisLV2Plugins.so").path
        let files = FileManager.default
        guard files.isReadableFile(atPath: source) else {
            throw CLIError("export-lv2: no plugin library at \(source); build it with 'swift build -c release --product TrellisLV2Plugins' or name it with --library")
        }
        var isFolder: ObjCBool = false
        if files.fileExists(atPath: bundle, isDirectory: &isFolder), !isFolder.boolValue {
            throw CLIError("export-lv2: \(bundle) is a file, not a bundle folder")
        }
        let binary = "trellis.so"
        let turtle: [(name: String, text: String)]
        do { turtle = try PluginTurtle.files(binary: binary) } catch { throw CLIError("export-lv2: \(error)") }
        do {
            try files.createDirectory(atPath: bundle, withIntermediateDirectories: true)
            // Each file replaced only as `WriteTarget` allows (a plain file of this user's, or none).
            for name in [binary] + turtle.map(\.name) {
                do { _ = try WriteTarget(bundle + "/" + name, followingLinks: false) } catch { throw CLIError("export-lv2: \(error)") }
            }
            let target = bundle + "/" + binary
            // A copy beside the old one, then a rename: a host that has the old one loaded keeps it.
            let library = try Data(contentsOf: URL(fileURLWithPath: source))
            let (fd, temporary): (Int32, String)
            switch TemporaryFile.create(beside: target) {
            case .success(let created): (fd, temporary) = created
            case .failure(let error): throw CLIError("export-lv2: \(error)")
            }
            let written = library.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            let finished = written == library.count && fchmod(fd, 0o755) == 0 && fsync(fd) == 0
            close(fd)
            guard finished, rename(temporary, target) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(temporary)
                throw CLIError("export-lv2: cannot replace \(target): \(reason)")
            }
            for file in turtle {
                try Data(file.text.utf8).write(to: URL(fileURLWithPath: bundle + "/" + file.name), options: .atomic)
            }
        } catch let error as CLIError { throw error } catch {
            throw CLIError("export-lv2: \(error.localizedDescription)")
        }
        print("\(bundle): \(ExportedPlugins.all.count) plugins")
    }
}
