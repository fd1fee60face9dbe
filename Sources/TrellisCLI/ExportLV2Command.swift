import ArgumentParser
import Foundation
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
            let target = bundle + "/" + binary
            // A copy beside the old one, then a rename: a host that has the old one loaded keeps it.
            let temporary = target + ".new"
            try? files.removeItem(atPath: temporary)
            try files.copyItem(atPath: source, toPath: temporary)
            guard rename(temporary, target) == 0 else { throw CLIError("export-lv2: cannot replace \(target): \(String(cString: strerror(errno)))") }
            for file in turtle {
                try Data(file.text.utf8).write(to: URL(fileURLWithPath: bundle + "/" + file.name), options: .atomic)
            }
        } catch let error as CLIError { throw error } catch {
            throw CLIError("export-lv2: \(error.localizedDescription)")
        }
        print("\(bundle): \(ExportedPlugins.all.count) plugins")
    }
}
