import Foundation

/// The listener's position and axes, and where a point lies as the 3D mixer's azimuth,
/// elevation and distance. Thread: control.
struct ListenerFrame {
    var position = AVAudio3DPoint()
    private(set) var forward = Vector(0, 0, -1)
    private(set) var up = Vector(0, 1, 0)
    private(set) var right = Vector(1, 0, 0)

    /// Takes `orientation`'s axes, made orthonormal; a zero or parallel pair keeps the old axes.
    mutating func orient(_ orientation: AVAudio3DVectorOrientation) {
        let forward = Vector(orientation.forward).normalized, upward = Vector(orientation.up)
        let right = forward.cross(upward).normalized
        guard forward.length > 0, right.length > 0 else { return }
        self.forward = forward
        self.right = right
        up = right.cross(forward)
    }

    var vectorOrientation: AVAudio3DVectorOrientation {
        AVAudio3DVectorOrientation(forward: forward.point, up: up.point)
    }

    /// Yaw turns about the up axis (positive to the right), pitch about the right axis
    /// (positive up), roll about the forward axis (positive to the right), in that order.
    mutating func orient(_ angles: AVAudio3DAngularOrientation) {
        let yaw = Double(angles.yaw) * .pi / 180, pitch = Double(angles.pitch) * .pi / 180, roll = Double(angles.roll) * .pi / 180
        forward = Vector(cos(pitch) * sin(yaw), sin(pitch), -cos(pitch) * cos(yaw))
        up = Vector(sin(roll) * cos(yaw) - cos(roll) * sin(pitch) * sin(yaw),
                    cos(roll) * cos(pitch),
                    sin(roll) * sin(yaw) + cos(roll) * sin(pitch) * cos(yaw))
        right = forward.cross(up)
    }

    var angularOrientation: AVAudio3DAngularOrientation {
        let pitch = asin(max(-1, min(1, forward.y)))
        let yaw = atan2(forward.x, -forward.z)
        let level = Vector(-sin(pitch) * sin(yaw), cos(pitch), sin(pitch) * cos(yaw))
        let roll = atan2(up.dot(forward.cross(level)), up.dot(level))
        return AVAudio3DAngularOrientation(yaw: Float(yaw * 180 / .pi), pitch: Float(pitch * 180 / .pi), roll: Float(roll * 180 / .pi))
    }

    /// `point` seen from the listener: degrees to the right, degrees up, meters away.
    func place(_ point: AVAudio3DPoint) -> (azimuth: Float, elevation: Float, distance: Float) {
        let offset = Vector(point) - Vector(position)
        let x = offset.dot(right), y = offset.dot(up), ahead = offset.dot(forward)
        let distance = offset.length
        guard distance > 0 else { return (0, 0, 0) }
        let azimuth = atan2(x, ahead) * 180 / .pi
        let elevation = atan2(y, (x * x + ahead * ahead).squareRoot()) * 180 / .pi
        return (Float(azimuth), Float(elevation), Float(distance))
    }

    struct Vector {
        var x, y, z: Double

        init(_ x: Double, _ y: Double, _ z: Double) {
            self.x = x
            self.y = y
            self.z = z
        }

        init(_ point: AVAudio3DPoint) { self.init(Double(point.x), Double(point.y), Double(point.z)) }

        var point: AVAudio3DPoint { AVAudio3DPoint(x: Float(x), y: Float(y), z: Float(z)) }
        var length: Double { dot(self).squareRoot() }
        var normalized: Vector { length > 0 ? Vector(x / length, y / length, z / length) : self }

        func dot(_ other: Vector) -> Double { x * other.x + y * other.y + z * other.z }
        func cross(_ other: Vector) -> Vector {
            Vector(y * other.z - z * other.y, z * other.x - x * other.z, x * other.y - y * other.x)
        }
        static func - (a: Vector, b: Vector) -> Vector { Vector(a.x - b.x, a.y - b.y, a.z - b.z) }
    }
}
