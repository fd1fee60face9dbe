// Records the input through a mixer into a CAF file with a tap, as Apple's "recording
// with AVAudioEngine" code does, and pauses on an interruption (the JACK server going
// away) to resume when it ends. Runs as a client of the JACK server JACK_DEFAULT_SERVER
// names: connect something to its input ports.
//
//   tap-to-file OUTPUT.caf SECONDS [--pause-at S --resume-at S]
import Foundation
import TrellisAV

/// Takes `--name VALUE` out of `arguments`, returning VALUE.
func option(_ name: String, from arguments: inout [String]) -> Double? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    defer { arguments.removeSubrange(index...index + 1) }
    return Double(arguments[index + 1])
}
var arguments = Array(CommandLine.arguments.dropFirst())
let pauseAt = option("--pause-at", from: &arguments), resumeAt = option("--resume-at", from: &arguments)
guard arguments.count == 2, let seconds = Double(arguments[1]) else {
    FileHandle.standardError.write("usage: tap-to-file OUTPUT.caf SECONDS [--pause-at S --resume-at S]\n".data(using: .utf8)!)
    exit(2)
}

do {
    let engine = AVAudioEngine()
    let input = engine.inputNode
    let format = input.outputFormat(forBus: 0)
    let mixer = AVAudioMixerNode()
    engine.attach(mixer)
    engine.connect(input, to: mixer, format: format)
    // The mixer goes to the main mixer, muted: what is recorded is not also played.
    engine.connect(mixer, to: engine.mainMixerNode, format: format)
    engine.mainMixerNode.outputVolume = 0

    let file = try AVAudioFile(forWriting: URL(fileURLWithPath: arguments[0]), settings: format.settings)
    mixer.installTap(onBus: 0, bufferSize: 4_096, format: format) { buffer, _ in
        do { try file.write(from: buffer) } catch { FileHandle.standardError.write("tap-to-file: \(error)\n".data(using: .utf8)!) }
    }

    let interruptions = NotificationCenter.default.addObserver(forName: AVAudioSession.interruptionNotification, object: nil, queue: nil) { note in
        guard let raw = note.userInfo?[AVAudioSessionInterruptionTypeKey] as? UInt,
              let type = AVAudioSession.InterruptionType(rawValue: raw) else { return }
        switch type {
        case .began:
            print("interrupted: pausing")
            engine.pause()
        case .ended:
            let options = (note.userInfo?[AVAudioSessionInterruptionOptionKey] as? UInt).map(AVAudioSession.InterruptionOptions.init) ?? []
            if options.contains(.shouldResume) {
                print("interruption ended: resuming")
                try? engine.start()
            }
        @unknown default:
            break
        }
    }
    defer { NotificationCenter.default.removeObserver(interruptions) }

    try AVAudioSession.sharedInstance().setCategory(.record)
    try engine.start()
    print("recording \(seconds) s to \(arguments[0])")
    let started = Date()
    var paused = false
    while Date().timeIntervalSince(started) < seconds {
        Thread.sleep(forTimeInterval: 0.01)
        let elapsed = Date().timeIntervalSince(started)
        if let pauseAt, !paused, elapsed >= pauseAt, elapsed < resumeAt ?? .infinity {
            engine.pause()
            paused = true
            print("paused at \(String(format: "%.2f", elapsed)) s")
        }
        if paused, let resumeAt, elapsed >= resumeAt {
            try engine.start()
            paused = false
            print("resumed at \(String(format: "%.2f", elapsed)) s")
        }
    }
    mixer.removeTap(onBus: 0)
    engine.stop()
    file.close()
    print("recorded \(file.length) frames")
} catch {
    FileHandle.standardError.write("tap-to-file: \(error)\n".data(using: .utf8)!)
    exit(1)
}
