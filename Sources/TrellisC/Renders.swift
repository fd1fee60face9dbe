import TrellisChain

@_cdecl("trellis_render_session")
public func trellis_render_session(
    _ session: UnsafePointer<CChar>?, _ inputs: UnsafePointer<UnsafePointer<CChar>?>?, _ inputCount: Int32, _ duration: Double,
    _ output: UnsafePointer<CChar>?
) -> Int64 {
    calling(failing: { Int64($0) }) { () throws(CommandError) in
        guard inputCount >= 0 else { throw CommandError("input_count \(inputCount): give 0 or more", kind: .argument) }
        var assignments: [String] = []
        if inputCount > 0 {
            let table = try required(inputs, "inputs")
            for index in 0..<Int(inputCount) { assignments.append(String(cString: try required(table[index], "inputs[\(index)]"))) }
        }
        return Int64(try OfflineRenders.session(
            path: String(cString: try required(session, "session")), inputs: assignments, duration: duration > 0 ? duration : nil,
            output: String(cString: try required(output, "output")), registry: try Library.registry()))
    }
}

@_cdecl("trellis_render_chain")
public func trellis_render_chain(
    _ source: UnsafePointer<CChar>?, _ units: UnsafePointer<CChar>?, _ sampleRate: Double, _ duration: Double, _ output: UnsafePointer<CChar>?
) -> Int64 {
    calling(failing: { Int64($0) }) { () throws(CommandError) in
        Int64(try OfflineRenders.chain(
            source: String(cString: try required(source, "source")), units: units.map { String(cString: $0) } ?? "",
            sampleRate: sampleRate > 0 ? sampleRate : nil, duration: duration > 0 ? duration : nil,
            output: String(cString: try required(output, "output")), registry: try Library.registry()))
    }
}
