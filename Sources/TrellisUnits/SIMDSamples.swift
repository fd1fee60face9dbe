/// Four consecutive samples as one vector, at any alignment: what the vectorized kernels
/// (reverb, dynamics) read and write with. Thread: any.
enum SIMDSamples {
    @inline(__always)
    static func load(_ samples: UnsafeMutablePointer<Float>) -> SIMD4<Float> {
        UnsafeRawPointer(samples).loadUnaligned(as: SIMD4<Float>.self)
    }

    @inline(__always)
    static func store(_ samples: SIMD4<Float>, to target: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(target).storeBytes(of: samples, as: SIMD4<Float>.self)
    }
}
