import TrellisCore
import TrellisUnits

/// Every unit the command line can name.
enum Units {
    static func registry() throws -> ComponentRegistry {
        let registry = ComponentRegistry()
        try BuiltInUnits.register(into: registry)
        return registry
    }
}
