import Glibc
import TrellisCore

/// How many frames a render writes: `--duration`, else as long as the session's players
/// play, but no longer than `inputBound` (a 40-byte MIDI file can name a song of 186
/// hours, a file header any length): longer takes need `--duration`.
public struct RenderLength {
    /// The longest render a session's own length starts, in seconds.
    public static let inputBound = 3600.0
    /// The longest `--duration`, in seconds (115 days).
    public static let durationLimit = 1e7

    public let frames: Int
    /// For the summary, when the session's length was cut to the bound.
    public let note: String?

    public init(duration: Double?, played: Int?, sampleRate: Double, session: String, playsFiles: Bool) throws(CommandError) {
        if let duration {
            guard duration.isFinite, duration > 0, duration <= Self.durationLimit else {
                throw CommandError("--duration \(duration): give seconds above 0 and at most \(Int(Self.durationLimit))", kind: .argument)
            }
            frames = Int((duration * sampleRate).rounded())
            note = nil
        } else if let played {
            let bound = Int(Self.inputBound * sampleRate)
            frames = min(played, bound)
            note = played > bound
                ? "length: the session plays for \(Self.clock(Double(played) / sampleRate)); this render stopped at \(Self.clock(Self.inputBound)), "
                    + "the bound on a length taken from the inputs (give --duration for more)"
                : nil
        } else {
            throw CommandError("render: \(session) \(playsFiles ? "loops a file forever" : "plays no files"), so give --duration SECONDS")
        }
    }

    /// `186:24:05`.
    public static func clock(_ seconds: Double) -> String {
        let whole = Int(min(seconds, 1e12).rounded(.down))
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(whole / 3600):\(two(whole / 60 % 60)):\(two(whole % 60))"
    }
}

/// The space a render's output needs, checked before the first frame is written.
public enum OutputSpace {
    /// Refuses a render whose uncompressed output (`frames` of `channels` at `bits`) would
    /// not fit in the free space of its folder; `copies` counts a temporary file kept
    /// beside it (`--normalize`). Compressed containers (FLAC, Ogg) are not estimated.
    public static func check(output: String, frames: Int, channels: Int, bits: Int, copies: Int = 1) throws(CommandError) {
        let lowered = output.lowercased()
        guard !["flac", "ogg", "oga", "opus"].contains(where: { lowered.hasSuffix("." + $0) }) else { return }
        let slash = output.lastIndex(of: "/")
        let folder = slash.map { $0 == output.startIndex ? "/" : String(output[..<$0]) } ?? "."
        var info = statvfs()
        guard statvfs(folder, &info) == 0 else { return }
        let free = Double(info.f_bavail) * Double(info.f_frsize)
        let needed = Double(frames) * Double(max(1, channels)) * Double(bits / 8) * Double(copies) + 65_536
        guard needed <= free else {
            throw CommandError("render: \(output) would take about \(Self.size(needed)) and its folder has \(Self.size(free)) free; "
                + "give a shorter --duration or another folder")
        }
    }

    public static func size(_ bytes: Double) -> String {
        bytes >= 1e9 ? "\(Double(Int(bytes / 1e8)) / 10) GB" : bytes >= 1e6 ? "\(Int(bytes / 1e6)) MB" : "\(Int(bytes / 1e3)) KB"
    }
}
