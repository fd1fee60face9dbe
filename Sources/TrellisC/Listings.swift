import TrellisChain
import TrellisCore

@_cdecl("trellis_units_json")
public func trellis_units_json() -> UnsafeMutablePointer<CChar>? {
    calling(failing: { _ in nil }) { () throws(CommandError) in
        let registry: ComponentRegistry
        do { registry = try Units.registry(scanningLV2: true) } catch { throw CommandError("the units could not be listed: \(error)", kind: .unit) }
        return Library.owned(try encoded(registry.components.map(UnitEntry.init)))
    }
}

@_cdecl("trellis_unit_info_json")
public func trellis_unit_info_json(_ name: UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>? {
    calling(failing: { _ in nil }) { () throws(CommandError) in
        let name = String(cString: try required(name, "name"))
        let info = try UnitInfo(named: name, registry: try Library.registry(), sampleRate: 48_000)
        return Library.owned(try encoded(info))
    }
}

func encoded<T: Encodable>(_ value: T) throws(CommandError) -> String {
    do { return try JSONText.encode(value) } catch { throw CommandError("JSON: \(error)") }
}
