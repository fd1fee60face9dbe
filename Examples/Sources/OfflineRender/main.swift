// Renders a file through an EQ and a reverb faster than real time, with the engine in
// offline manual rendering mode: Apple's "Performing Offline Audio Processing", on Linux.
//
//   offline-render INPUT OUTPUT
import Foundation
import TrellisAV

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write("usage: offline-render INPUT OUTPUT\n".data(using: .utf8)!)
    exit(2)
}

do {
    let source = try AVAudioFile(forReading: URL(fileURLWithPath: arguments[1]))
    let format = source.processingFormat

    let engine = AVAudioEngine()
    let player = AVAudioPlayerNode()
    let eq = AVAudioUnitEQ(numberOfBands: 2)
    let reverb = AVAudioUnitReverb()
    eq.bands[0].filterType = .lowShelf
    eq.bands[0].frequency = 200
    eq.bands[0].gain = 4
    eq.bands[1].filterType = .parametric
    eq.bands[1].frequency = 2_000
    eq.bands[1].bandwidth = 1
    eq.bands[1].gain = -3
    reverb.loadFactoryPreset(.mediumHall)
    reverb.wetDryMix = 40

    engine.attach(player)
    engine.attach(eq)
    engine.attach(reverb)
    engine.connect(player, to: eq, format: format)
    engine.connect(eq, to: reverb, format: format)
    engine.connect(reverb, to: engine.mainMixerNode, format: format)

    player.scheduleFile(source, at: nil)
    try engine.enableManualRenderingMode(.offline, format: format, maximumFrameCount: 4_096)
    try engine.start()
    player.play()

    let buffer = AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: engine.manualRenderingMaximumFrameCount)!
    let output = try AVAudioFile(forWriting: URL(fileURLWithPath: arguments[2]), settings: source.fileFormat.settings)
    while engine.manualRenderingSampleTime < source.length {
        let frames = min(AVAudioFrameCount(source.length - engine.manualRenderingSampleTime), buffer.frameCapacity)
        switch try engine.renderOffline(frames, to: buffer) {
        case .success:
            try output.write(from: buffer)
        case .insufficientDataFromInputNode, .cannotDoInCurrentContext, .error:
            fatalError("offline rendering stopped early")
        }
    }
    player.stop()
    engine.stop()
    print("rendered \(engine.manualRenderingSampleTime) frames to \(arguments[2])")
} catch {
    FileHandle.standardError.write("offline-render: \(error)\n".data(using: .utf8)!)
    exit(1)
}
