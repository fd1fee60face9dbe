import TrellisChain
import TrellisCore

/// A chain handle is its processor, retained for the caller until `trellis_chain_close`.
private func processor(_ chain: OpaquePointer?) throws(CommandError) -> ChainProcessor {
    Unmanaged<ChainProcessor>.fromOpaque(UnsafeRawPointer(try required(chain, "chain"))).takeUnretainedValue()
}

@_cdecl("trellis_chain_open")
public func trellis_chain_open(_ units: UnsafePointer<CChar>?, _ sampleRate: Double, _ channels: Int32, _ blockFrames: Int32) -> OpaquePointer? {
    calling(failing: { _ in nil }) { () throws(CommandError) in
        let text = String(cString: try required(units, "units"))
        let made = try ChainProcessor(text: text, sampleRate: sampleRate, channels: Int(channels),
                                      blockFrames: blockFrames == 0 ? 4096 : Int(blockFrames), registry: try Library.registry())
        return OpaquePointer(Unmanaged.passRetained(made).toOpaque())
    }
}

@_cdecl("trellis_chain_close")
public func trellis_chain_close(_ chain: OpaquePointer?) {
    guard let chain else { return }
    Unmanaged<ChainProcessor>.fromOpaque(UnsafeRawPointer(chain)).release()
}

@_cdecl("trellis_chain_input_channels")
public func trellis_chain_input_channels(_ chain: OpaquePointer?) -> Int32 {
    calling(failing: { $0 }) { () throws(CommandError) in Int32(try processor(chain).inputChannels) }
}

@_cdecl("trellis_chain_output_channels")
public func trellis_chain_output_channels(_ chain: OpaquePointer?) -> Int32 {
    calling(failing: { $0 }) { () throws(CommandError) in Int32(try processor(chain).outputChannels) }
}

@_cdecl("trellis_chain_sample_rate")
public func trellis_chain_sample_rate(_ chain: OpaquePointer?) -> Double {
    calling(failing: { Double($0) }) { () throws(CommandError) in try processor(chain).sampleRate }
}

@_cdecl("trellis_chain_unit_count")
public func trellis_chain_unit_count(_ chain: OpaquePointer?) -> Int32 {
    calling(failing: { $0 }) { () throws(CommandError) in Int32(try processor(chain).stages.count) }
}

@_cdecl("trellis_chain_parameters_json")
public func trellis_chain_parameters_json(_ chain: OpaquePointer?, _ unit: Int32) -> UnsafeMutablePointer<CChar>? {
    calling(failing: { _ in nil }) { () throws(CommandError) in
        let found = try processor(chain).unit(Int(unit))
        let parameters = found.parameters.map { UnitInfo.Parameter($0, value: try? found.parameterValue($0.address)) }
        return Library.owned(try encoded(parameters))
    }
}

@_cdecl("trellis_chain_get_parameter")
public func trellis_chain_get_parameter(
    _ chain: OpaquePointer?, _ unit: Int32, _ name: UnsafePointer<CChar>?, _ value: UnsafeMutablePointer<Double>?
) -> Int32 {
    calling(failing: { $0 }) { () throws(CommandError) in
        let target = try required(value, "value")
        target.pointee = Double(try processor(chain).value(Int(unit), String(cString: try required(name, "name"))))
        return Status.ok.rawValue
    }
}

@_cdecl("trellis_chain_set_parameter")
public func trellis_chain_set_parameter(_ chain: OpaquePointer?, _ unit: Int32, _ name: UnsafePointer<CChar>?, _ value: Double) -> Int32 {
    calling(failing: { $0 }) { () throws(CommandError) in
        try processor(chain).set(Int(unit), String(cString: try required(name, "name")), value)
        return Status.ok.rawValue
    }
}

@_cdecl("trellis_chain_process")
public func trellis_chain_process(
    _ chain: OpaquePointer?, _ input: UnsafePointer<UnsafePointer<Float>?>?, _ output: UnsafePointer<UnsafeMutablePointer<Float>?>?,
    _ frames: Int64
) -> Int32 {
    calling(failing: { $0 }) { () throws(CommandError) in
        let processor = try processor(chain)
        guard frames >= 0 else { throw CommandError("frames \(frames): give 0 or more", kind: .argument) }
        guard frames > 0 else { return Status.ok.rawValue }
        let table = try required(input, "input"), outputs = try required(output, "output")
        var sources: [UnsafePointer<Float>] = []
        for channel in 0..<processor.inputChannels { sources.append(try required(table[channel], "input[\(channel)]")) }
        var destinations: [UnsafeMutablePointer<Float>] = []
        for channel in 0..<processor.outputChannels { destinations.append(try required(outputs[channel], "output[\(channel)]")) }
        try processor.process(input: sources, output: destinations, frameCount: Int(frames))
        return Status.ok.rawValue
    }
}

@_cdecl("trellis_chain_reset")
public func trellis_chain_reset(_ chain: OpaquePointer?) -> Int32 {
    calling(failing: { $0 }) { () throws(CommandError) in
        try processor(chain).reset()
        return Status.ok.rawValue
    }
}

@_cdecl("trellis_chain_latency")
public func trellis_chain_latency(_ chain: OpaquePointer?) -> Int64 {
    calling(failing: { Int64($0) }) { () throws(CommandError) in Int64(try processor(chain).latency) }
}

@_cdecl("trellis_chain_tail")
public func trellis_chain_tail(_ chain: OpaquePointer?) -> Double {
    calling(failing: { Double($0) }) { () throws(CommandError) in try processor(chain).tail }
}
