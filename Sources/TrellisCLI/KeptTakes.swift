import Foundation
import TrellisAudioFile
import TrellisSession

/// `run --keep-takes`, what a service runs with: a take already at a recorder's path is
/// never written over. A WAV or CAF take that a crash cut short is first repaired as
/// `trellis recover` repairs it; then the take moves to the first free `NAME-N.EXT`
/// beside it, and the new run records into the recorder's own path.
enum KeptTakes {
    struct Kept {
        var from: String
        var to: String
        /// The frames the header gained, when the take was repaired.
        var recoveredFrames: Int?
    }

    /// Thread: control, before the recorders start.
    static func moveAside(_ targets: [RecorderTarget]) throws(CLIError) -> [Kept] {
        var kept: [Kept] = []
        for target in targets where FileManager.default.fileExists(atPath: target.path) {
            var recovered: Int?
            if ["wav", "caf"].contains(target.format), let report = try? AudioFileRecovery.recover(target.path), report.repaired {
                recovered = report.framesAfter - report.framesBefore
            }
            let destination = freeName(beside: target.path)
            guard rename(target.path, destination) == 0 else {
                throw CLIError("recorder \(target.name): could not keep the take at \(target.path) as \(destination): \(String(cString: strerror(errno)))")
            }
            kept.append(Kept(from: target.path, to: destination, recoveredFrames: recovered))
        }
        return kept
    }

    /// `take.wav` → `take-1.wav`, or the first number not taken.
    static func freeName(beside path: String) -> String {
        let url = URL(fileURLWithPath: path)
        let ext = url.pathExtension, stem = url.deletingPathExtension().path
        var number = 1
        while true {
            let candidate = stem + "-\(number)" + (ext.isEmpty ? "" : "." + ext)
            if !FileManager.default.fileExists(atPath: candidate) { return candidate }
            number += 1
        }
    }
}
