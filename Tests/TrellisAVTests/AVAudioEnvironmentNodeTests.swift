import Foundation
import Testing
@testable import TrellisAV

/// An offline engine playing a constant 1.0 from a mono player through an environment node.
private final class Scene {
    let engine = AVAudioEngine()
    let environment = AVAudioEnvironmentNode()
    let player = AVAudioPlayerNode()

    init(sourceChannels: AVAudioChannelCount = 1, outputChannels: AVAudioChannelCount = 2) throws {
        let output = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: outputChannels)!
        try engine.enableManualRenderingMode(.offline, format: output, maximumFrameCount: 512)
        engine.attach(environment)
        engine.attach(player)
        let source = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: sourceChannels)!
        engine.connect(player, to: environment, format: source)
        engine.connect(environment, to: outputChannels == 2 ? engine.mainMixerNode : engine.outputNode, format: output)
        let buffer = AVAudioPCMBuffer(pcmFormat: source, frameCapacity: 512)!
        buffer.frameLength = 512
        for channel in 0..<Int(sourceChannels) {
            for frame in 0..<512 { buffer.floatChannelData![channel][frame] = channel == 0 ? 1 : 0.25 }
        }
        player.scheduleBuffer(buffer, at: nil, options: .loops)
    }

    /// Each output channel's level once every glide has landed.
    func levels() throws -> [Float] {
        if !engine.isRunning {
            try engine.start()
            player.play()
        }
        let output = AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: 512)!
        for _ in 0..<8 { _ = try engine.renderOffline(512, to: output) }
        return (0..<Int(output.format.channelCount)).map { output.floatChannelData![$0][511] }
    }
}

private func close(_ a: [Float], _ b: [Float], within tolerance: Float = 1e-4) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) <= tolerance }
}

private let half = Float(0.5).squareRoot()

@Suite("AVAudioEnvironmentNode")
struct AVAudioEnvironmentNodeTests {
    @Test("a source to the listener's right plays from the right, to the left from the left, ahead from both equally")
    func direction() throws {
        let scene = try Scene()
        scene.player.position = AVAudio3DPoint(x: 1, y: 0, z: 0)
        #expect(close(try scene.levels(), [0, 1]))
        scene.player.position = AVAudio3DPoint(x: -1, y: 0, z: 0)
        #expect(close(try scene.levels(), [1, 0]))
        scene.player.position = AVAudio3DPoint(x: 0, y: 0, z: -1)
        #expect(close(try scene.levels(), [half, half]))
    }

    @Test("each distance model fades a source as its formula says, clamped between the reference and maximum distance",
          arguments: [AVAudioEnvironmentDistanceAttenuationModel.inverse, .linear, .exponential])
    func distanceModels(model: AVAudioEnvironmentDistanceAttenuationModel) throws {
        let scene = try Scene()
        let parameters = scene.environment.distanceAttenuationParameters
        parameters.distanceAttenuationModel = model
        parameters.referenceDistance = 2
        parameters.maximumDistance = 20
        parameters.rolloffFactor = 0.75
        for distance: Float in [1, 2, 5, 12, 20, 40] {
            scene.player.position = AVAudio3DPoint(x: 0, y: 0, z: -distance)
            let d = min(max(distance, 2), 20)
            let gain: Float = switch model {
            case .inverse: 2 / (2 + 0.75 * (d - 2))
            case .linear: 1 - 0.75 * (d - 2) / 18
            case .exponential: pow(d / 2, -0.75)
            }
            #expect(close(try scene.levels(), [half * gain, half * gain]), "\(model) at \(distance) m")
        }
    }

    @Test("with the default inverse model a source twice as far is half as loud")
    func inverseDefault() throws {
        let scene = try Scene()
        scene.player.position = AVAudio3DPoint(x: 0, y: 0, z: -4)
        let far = try scene.levels()[0]
        scene.player.position = AVAudio3DPoint(x: 0, y: 0, z: -2)
        #expect(abs(try scene.levels()[0] / far - 2) < 1e-3)
    }

    @Test("turning the listener moves the sources the other way; moving the listener changes their distance")
    func listener() throws {
        let scene = try Scene()
        scene.player.position = AVAudio3DPoint(x: 0, y: 0, z: -1)
        scene.environment.listenerAngularOrientation = AVAudio3DAngularOrientation(yaw: 90, pitch: 0, roll: 0)
        #expect(close(try scene.levels(), [1, 0]))
        scene.environment.listenerVectorOrientation = AVAudio3DVectorOrientation(
            forward: AVAudio3DVector(x: -1, y: 0, z: 0), up: AVAudio3DVector(x: 0, y: 1, z: 0))
        #expect(close(try scene.levels(), [0, 1]))
        scene.environment.listenerVectorOrientation = AVAudio3DVectorOrientation()
        scene.environment.listenerPosition = AVAudio3DPoint(x: 0, y: 0, z: 3)
        #expect(close(try scene.levels(), [half / 4, half / 4]))
    }

    @Test("the angular and vector orientations are one orientation: setting either changes the other")
    func orientations() throws {
        let environment = AVAudioEnvironmentNode()
        environment.listenerAngularOrientation = AVAudio3DAngularOrientation(yaw: 30, pitch: 20, roll: -10)
        let vectors = environment.listenerVectorOrientation
        let radians = Float.pi / 180
        #expect(abs(vectors.forward.x - cos(20 * radians) * sin(30 * radians)) < 1e-5)
        #expect(abs(vectors.forward.y - sin(20 * radians)) < 1e-5)
        #expect(abs(vectors.forward.z + cos(20 * radians) * cos(30 * radians)) < 1e-5)
        environment.listenerVectorOrientation = AVAudio3DVectorOrientation()
        #expect(environment.listenerAngularOrientation == AVAudio3DAngularOrientation())
        environment.listenerVectorOrientation = vectors
        let angles = environment.listenerAngularOrientation
        #expect(abs(angles.yaw - 30) < 1e-3 && abs(angles.pitch - 20) < 1e-3 && abs(angles.roll + 10) < 1e-3)
    }

    @Test("volume, outputVolume, obstruction and occlusion scale a source; stereo pass-through ignores its position")
    func gains() throws {
        let scene = try Scene()
        scene.player.position = AVAudio3DPoint(x: 0, y: 0, z: -8)
        scene.player.volume = 0.5
        scene.environment.outputVolume = 0.5
        scene.player.obstruction = -6
        scene.player.occlusion = -6
        let gain = 0.25 * pow(10, -12 / Float(20)) / 8
        #expect(close(try scene.levels(), [half * gain, half * gain], within: 1e-5))
        scene.player.renderingAlgorithm = .stereoPassThrough
        #expect(close(try scene.levels(), [half * gain * 8, half * gain * 8], within: 1e-5))
        scene.player.volume = 0
        #expect(try scene.levels() == [0, 0])
    }

    @Test("a stereo source passes through unplaced, at its volume")
    func stereoSource() throws {
        let scene = try Scene(sourceChannels: 2)
        scene.player.position = AVAudio3DPoint(x: 5, y: 0, z: 0)
        scene.player.volume = 0.5
        #expect(close(try scene.levels(), [0.5, 0.125]))
    }

    @Test("on a 5.1 output a source straight ahead plays from the centre speaker alone")
    func surround() throws {
        let scene = try Scene(outputChannels: 6)
        scene.player.position = AVAudio3DPoint(x: 0, y: 0, z: -1)
        #expect(close(try scene.levels(), [0, 0, 1, 0, 0, 0]))
    }

    @Test("the environment node fills its inputs in order and grows when all are fed")
    func inputs() throws {
        let engine = AVAudioEngine()
        let environment = AVAudioEnvironmentNode()
        engine.attach(environment)
        let mono = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1)!
        for expected in 0..<10 {
            #expect(environment.nextAvailableInputBus == expected)
            let player = AVAudioPlayerNode()
            engine.attach(player)
            engine.connect(player, to: environment, format: mono)
            #expect(player.destination(forMixer: environment, bus: expected) != nil)
        }
        #expect(environment.numberOfInputs == 16)
    }
}
