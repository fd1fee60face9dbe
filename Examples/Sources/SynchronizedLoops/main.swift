// Plays several loops in sync, each with its own pan and volume, all at one rate, with
// AVAudioPlayer: every player is started with play(atTime:) at one device time, so they
// start on the same frame. Runs as a client of the JACK server JACK_DEFAULT_SERVER names.
//
//   synchronized-loops [--rate R] [--loops N] [--seconds S] [--lead S] FILE[:PAN[:VOLUME]] ...
//
// --lead is how far ahead of now the common start is (0.5 s by default).
// --loops -1 (the default) loops until --seconds have passed; with 0 each file plays
// once and the program ends when the last one does.
import Foundation
import TrellisAV

final class Finished: NSObject, AVAudioPlayerDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func audioPlayerDidFinishPlaying(_ player: AVAudioPlayer, successfully flag: Bool) { lock.withLock { count += 1 } }
    var finished: Int { lock.withLock { count } }
}

var rate: Float = 1, loops = -1, seconds = 5.0, lead = 0.5
var tracks: [(url: URL, pan: Float, volume: Float)] = []
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--rate": rate = Float(arguments.popFirst() ?? "") ?? 1
    case "--loops": loops = Int(arguments.popFirst() ?? "") ?? -1
    case "--seconds": seconds = Double(arguments.popFirst() ?? "") ?? 5
    case "--lead": lead = Double(arguments.popFirst() ?? "") ?? 0.5
    default:
        let parts = argument.split(separator: ":").map(String.init)
        tracks.append((URL(fileURLWithPath: parts[0]), parts.count > 1 ? Float(parts[1]) ?? 0 : 0, parts.count > 2 ? Float(parts[2]) ?? 1 : 1))
    }
}
guard !tracks.isEmpty else {
    FileHandle.standardError.write("usage: synchronized-loops [--rate R] [--loops N] [--seconds S] [--lead S] FILE[:PAN[:VOLUME]] ...\n".data(using: .utf8)!)
    exit(2)
}

do {
    let finished = Finished()
    let players = try tracks.map { track in
        let player = try AVAudioPlayer(contentsOf: track.url)
        player.enableRate = true
        player.rate = rate
        player.pan = track.pan
        player.volume = track.volume
        player.numberOfLoops = loops
        player.delegate = finished
        player.prepareToPlay()
        return player
    }
    // One start time for all of them, a little ahead so every call lands before it.
    let start = players[0].deviceCurrentTime + lead
    for player in players { player.play(atTime: start) }
    print("playing \(players.count) players from device time \(start) at rate \(rate)")
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline, loops < 0 || finished.finished < players.count {
        Thread.sleep(forTimeInterval: 0.01)
    }
    for player in players { player.stop() }
    print("finished: \(finished.finished) of \(players.count)")
} catch {
    FileHandle.standardError.write("synchronized-loops: \(error)\n".data(using: .utf8)!)
    exit(1)
}
