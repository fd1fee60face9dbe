// Records the input for a while with AVAudioRecorder, printing its meters ten times a
// second, and waits for the delegate to say the recording is done. Runs as a client of
// the JACK server JACK_DEFAULT_SERVER names: connect something to its input ports.
//
//   metered-recorder OUTPUT SECONDS
import Foundation
import TrellisAV

final class Done: NSObject, AVAudioRecorderDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var result: Bool?
    func audioRecorderDidFinishRecording(_ recorder: AVAudioRecorder, successfully flag: Bool) { lock.withLock { result = flag } }
    var finished: Bool? { lock.withLock { result } }
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let seconds = Double(arguments[2]) else {
    FileHandle.standardError.write("usage: metered-recorder OUTPUT SECONDS\n".data(using: .utf8)!)
    exit(2)
}

do {
    let settings: [String: Any] = [
        AVFormatIDKey: kAudioFormatLinearPCM,
        AVSampleRateKey: 48_000,
        AVNumberOfChannelsKey: 2,
        AVLinearPCMBitDepthKey: 32,
        AVLinearPCMIsFloatKey: true,
    ]
    let recorder = try AVAudioRecorder(url: URL(fileURLWithPath: arguments[1]), settings: settings)
    let done = Done()
    recorder.delegate = done
    recorder.isMeteringEnabled = true
    guard recorder.prepareToRecord(), recorder.record(forDuration: seconds) else {
        FileHandle.standardError.write("metered-recorder: could not start recording\n".data(using: .utf8)!)
        exit(1)
    }
    print("recording \(seconds) s to \(arguments[1])")
    let deadline = Date().addingTimeInterval(seconds + 10)
    while done.finished == nil, Date() < deadline {
        Thread.sleep(forTimeInterval: 0.1)
        recorder.updateMeters()
        print(String(format: "%6.2f s  peak %7.2f dB  average %7.2f dB", recorder.currentTime,
                     recorder.peakPower(forChannel: 0), recorder.averagePower(forChannel: 0)))
    }
    guard done.finished == true else {
        FileHandle.standardError.write("metered-recorder: the recording did not finish\n".data(using: .utf8)!)
        exit(1)
    }
    print("recorded \(arguments[1])")
} catch {
    FileHandle.standardError.write("metered-recorder: \(error)\n".data(using: .utf8)!)
    exit(1)
}
