import ArgumentParser
import Foundation
import TrellisAudioFile

struct RecoverCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recover",
        abstract: "Repair a WAV or CAF recording whose header was never finished.",
        discussion: """
            A recording cut short by a crash, kill -9 or power loss may have a header that says \
            fewer frames than the file holds (often none). Trellis' recorders update the header \
            every second, so a recent one reads up to its last second anyway; this repairs any \
            WAV or CAF file, Trellis' or another program's: the sizes are rewritten to cover every \
            whole frame on disk, in a copy renamed over the file, which never gets shorter. A file \
            whose header is right is left as it is; one whose frame size is not what its channels \
            and sample size make is not trusted, and is left as it is.
            """)

    @Argument(help: "The files to repair.")
    var files: [String]

    func run() throws {
        var failed = false
        for file in files {
            do {
                let report = try AudioFileRecovery.recover(file)
                if report.repaired, report.framesAfter == report.framesBefore {
                    print("\(file): repaired the sizes in its header, which covers its \(report.framesAfter) frames")
                } else if report.repaired {
                    print("\(file): recovered \(report.framesAfter) frames (the header said \(report.framesBefore))")
                } else {
                    print("\(file): ok, the header already covers its \(report.framesAfter) frames")
                }
            } catch {
                FileHandle.standardError.write(Data("\(error)\n".utf8))
                failed = true
            }
        }
        if failed { throw ExitCode.failure }
    }
}
