/// A point in the environment node's space, in meters, as AVFAudio's: right-handed,
/// +x to the listener's right, +y up, −z ahead (for the default listener).
public struct AVAudio3DPoint: Equatable, Sendable {
    public var x: Float
    public var y: Float
    public var z: Float

    public init() { self.init(x: 0, y: 0, z: 0) }
    public init(x: Float, y: Float, z: Float) {
        self.x = x
        self.y = y
        self.z = z
    }
}

public typealias AVAudio3DVector = AVAudio3DPoint

public func AVAudioMake3DPoint(_ x: Float, _ y: Float, _ z: Float) -> AVAudio3DPoint { AVAudio3DPoint(x: x, y: y, z: z) }
public func AVAudioMake3DVector(_ x: Float, _ y: Float, _ z: Float) -> AVAudio3DVector { AVAudio3DPoint(x: x, y: y, z: z) }

/// Where the listener looks and which way is up.
public struct AVAudio3DVectorOrientation: Equatable, Sendable {
    public var forward: AVAudio3DVector
    public var up: AVAudio3DVector

    public init() { self.init(forward: AVAudio3DVector(x: 0, y: 0, z: -1), up: AVAudio3DVector(x: 0, y: 1, z: 0)) }
    public init(forward: AVAudio3DVector, up: AVAudio3DVector) {
        self.forward = forward
        self.up = up
    }
}

public func AVAudioMake3DVectorOrientation(_ forward: AVAudio3DVector, _ up: AVAudio3DVector) -> AVAudio3DVectorOrientation {
    AVAudio3DVectorOrientation(forward: forward, up: up)
}

/// The listener's head as three angles in degrees: a positive yaw turns it right, a
/// positive pitch raises it, a positive roll tilts it to the right.
public struct AVAudio3DAngularOrientation: Equatable, Sendable {
    public var yaw: Float
    public var pitch: Float
    public var roll: Float

    public init() { self.init(yaw: 0, pitch: 0, roll: 0) }
    public init(yaw: Float, pitch: Float, roll: Float) {
        self.yaw = yaw
        self.pitch = pitch
        self.roll = roll
    }
}

public func AVAudioMake3DAngularOrientation(_ yaw: Float, _ pitch: Float, _ roll: Float) -> AVAudio3DAngularOrientation {
    AVAudio3DAngularOrientation(yaw: yaw, pitch: pitch, roll: roll)
}

/// How a source is rendered. Here every algorithm but `stereoPassThrough` is the 3D
/// mixer's equal-power panning over the output's speakers; there is no HRTF.
public enum AVAudio3DMixingRenderingAlgorithm: Int, Sendable {
    case equalPowerPanning = 0
    case sphericalHead = 1
    case HRTF = 2
    case soundField = 3
    case stereoPassThrough = 5
    case HRTFHQ = 6
    case auto = 7
}

/// Kept for code that sets it; it shapes only Apple's head-tracked rendering.
public enum AVAudio3DMixingSourceMode: Int, Sendable {
    case spatializeIfMono = 0
    case bypass = 1
    case pointSource = 2
    case ambienceBed = 3
}

/// Kept for code that sets it; it shapes only Apple's head-tracked rendering.
public enum AVAudio3DMixingPointSourceInHeadMode: Int, Sendable {
    case mono = 0
    case bypass = 1
}

/// How a source fades with distance, clamped between the reference and maximum distance.
public enum AVAudioEnvironmentDistanceAttenuationModel: Int, Sendable {
    case exponential = 1
    case inverse = 2
    case linear = 3
}

/// Kept for code that sets it: the output is the speakers of the node's output format.
public enum AVAudioEnvironmentOutputType: Int, Sendable {
    case auto = 0
    case headphones = 1
    case builtInSpeakers = 2
    case externalSpeakers = 3
}
