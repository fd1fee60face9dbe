import TrellisCore
import TrellisLV2
import TrellisMedia
import TrellisUnits

/// Every unit the command line can name.
enum Units {
    /// Built-in units always; LV2 plugins either all at once (for listings) or on
    /// demand by URI, so that naming one plugin loads one bundle, not every plugin.
    static func registry(scanningLV2 scan: Bool = false) throws -> ComponentRegistry {
        let registry = ComponentRegistry()
        try BuiltInUnits.register(into: registry)
        try MediaUnits.register(into: registry)
        let world = LV2World()
        world.setLogHandler { message in
            Log.logger.log(level: message.level == .error ? .error : (message.level == .warning ? .warning : .debug),
                           "\(message.plugin): \(message.text)")
        }
        if scan { LV2Components.register(into: registry, world: world) }
        LV2Components.addResolver(to: registry, world: world)
        return registry
    }
}
