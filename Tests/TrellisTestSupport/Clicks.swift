import Foundation

/// Where a metronome's clicks start in a signal: a click is a sound after at least
/// `quiet` frames of exact silence (or at the very start). eg-metro's click is a sine
/// from phase zero, so its first frame is 0 and the first sound is one frame later:
/// the onset is that frame less one.
public func clickOnsets(_ samples: [Float], quiet: Int = 1000) -> [Int] {
    soundOnsets(samples, quiet: quiet).map { max(0, $0 - 1) }
}

/// Channel 0 of an audio file, as sox decodes it.
public func firstChannel(ofFile path: String) throws -> [Float] {
    let sox = Process()
    sox.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
    sox.arguments = [path, "-t", "f32", "-", "remix", "1"]
    let pipe = Pipe()
    sox.standardOutput = pipe
    try sox.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    sox.waitUntilExit()
    return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
}
