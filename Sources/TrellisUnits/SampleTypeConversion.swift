import TrellisCore

/// Converts between float samples and the packed little-endian sample types of files and
/// devices. Integers map to [-1, 1) by dividing by 2^(bits-1), so an integer → float →
/// integer round trip is exact for 16- and 24-bit samples. Reducing to integers rounds
/// to nearest and clips, optionally adding TPDF dither first. Thread: any; no allocation.
public enum SampleTypeConversion {
    /// Reads `count` samples of `type` from `source` into floats.
    public static func toFloat(_ source: UnsafeRawPointer, type: SampleType, count: Int, into destination: UnsafeMutablePointer<Float>) {
        switch type {
        case .float32:
            for index in 0..<count { destination[index] = source.loadUnaligned(fromByteOffset: index * 4, as: Float.self) }
        case .int16:
            for index in 0..<count {
                destination[index] = Float(Int16(littleEndian: source.loadUnaligned(fromByteOffset: index * 2, as: Int16.self))) * 0x1p-15
            }
        case .int24:
            let bytes = source.assumingMemoryBound(to: UInt8.self)
            for index in 0..<count {
                let packed = Int32(bytes[3 * index]) << 8 | Int32(bytes[3 * index + 1]) << 16 | Int32(bytes[3 * index + 2]) << 24
                destination[index] = Float(packed >> 8) * 0x1p-23
            }
        case .int32:
            for index in 0..<count {
                destination[index] = Float(Double(Int32(littleEndian: source.loadUnaligned(fromByteOffset: index * 4, as: Int32.self))) * 0x1p-31)
            }
        }
    }

    /// Writes `count` floats from `source` as `type` into `destination`. With `dither`,
    /// integer types get TPDF dither of ±1 LSB before rounding.
    public static func fromFloat(_ source: UnsafePointer<Float>, count: Int, to type: SampleType, into destination: UnsafeMutableRawPointer, dither: inout TPDFDither?) {
        switch type {
        case .float32:
            for index in 0..<count { destination.storeBytes(of: source[index], toByteOffset: index * 4, as: Float.self) }
        case .int16:
            for index in 0..<count {
                let value = Int16(quantize(source[index], scale: 0x1p15, bits: 16, dither: &dither))
                destination.storeBytes(of: value.littleEndian, toByteOffset: index * 2, as: Int16.self)
            }
        case .int24:
            let bytes = destination.assumingMemoryBound(to: UInt8.self)
            for index in 0..<count {
                let value = quantize(source[index], scale: 0x1p23, bits: 24, dither: &dither)
                bytes[3 * index] = UInt8(truncatingIfNeeded: value)
                bytes[3 * index + 1] = UInt8(truncatingIfNeeded: value >> 8)
                bytes[3 * index + 2] = UInt8(truncatingIfNeeded: value >> 16)
            }
        case .int32:
            for index in 0..<count {
                let value = Int32(quantize(source[index], scale: 0x1p31, bits: 32, dither: &dither))
                destination.storeBytes(of: value.littleEndian, toByteOffset: index * 4, as: Int32.self)
            }
        }
    }

    @inline(__always)
    private static func quantize(_ sample: Float, scale: Double, bits: Int, dither: inout TPDFDither?) -> Int64 {
        var scaled = Double(sample) * scale
        if dither != nil { scaled += dither!.next() }
        let largest = Double((Int64(1) << (bits - 1)) - 1), smallest = -Double(Int64(1) << (bits - 1))
        return Int64(min(largest, max(smallest, scaled.rounded(.toNearestOrEven))))
    }
}
