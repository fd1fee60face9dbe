import CLilv
import TrellisCore

/// Makes LV2 plugins components of a `ComponentRegistry`, beside the built-ins.
/// Codes follow `LV2ComponentCodes`; short names are `lv2-<leaf>` (see there), with
/// `-2`, `-3`, ... appended when two plugins share a leaf.
public enum LV2Components {
    /// Registers every installed plugin, in sorted URI order (so codes are the same on
    /// every run). Plugins already registered are skipped. Returns how many were added.
    /// Thread: control.
    @discardableResult
    public static func register(into registry: ComponentRegistry, world: LV2World) -> Int {
        world.loadAll()
        var added = 0
        for uri in world.pluginURIs where registry.components.first(where: { $0.uri == uri }) == nil {
            if (try? register(uri: uri, into: registry, world: world)) != nil { added += 1 }
        }
        return added
    }

    /// Registers one plugin, loading only the bundles that mention it. Thread: control.
    @discardableResult
    public static func register(uri: String, into registry: ComponentRegistry, world: LV2World) throws(LV2Error) -> Component {
        if let existing = registry.components.first(where: { $0.uri == uri }) { return existing }
        let component = try makeComponent(uri: uri, registry: registry, world: world)
        do {
            try registry.register(component)
        } catch {
            if let existing = registry.components.first(where: { $0.uri == uri }) { return existing }
            throw .invalidBundle(component.displayName, reason: "\(error)")
        }
        return component
    }

    /// Lets `registry` find plugins it has not registered yet: a URI (or `lv2:URI`)
    /// loads only that plugin's bundles; a short name or a `type:subtype:manufacturer`
    /// text registers every plugin first. An unknown URI also registers every plugin,
    /// so the registry's error can suggest close matches. Thread: control.
    public static func addResolver(to registry: ComponentRegistry, world: LV2World) {
        registry.addResolver { [weak registry] key in
            guard let registry else { return nil }
            let uri = key.hasPrefix("lv2:") ? String(key.dropFirst(4)) : key
            if isURI(uri) {
                if let component = try? register(uri: uri, into: registry, world: world) { return component }
                register(into: registry, world: world)
                return nil
            }
            register(into: registry, world: world)
            let lowered = key.lowercased()
            if let found = registry.components.first(where: { $0.shortName.lowercased() == lowered }) { return found }
            if let description = try? ComponentDescription(key) {
                return registry.components.first { description.matches($0.description) }
            }
            return nil
        }
    }

    static func isURI(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex else { return false }
        let scheme = text[..<colon]
        return scheme.allSatisfy { $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }
            && (text.contains("/") || scheme == "urn")
    }

    private static func makeComponent(uri: String, registry: ComponentRegistry, world: LV2World) throws(LV2Error) -> Component {
        let info = try world.info(uri: uri)
        let classes = world.withLilv { world, state -> [String] in
            guard let plugin = LV2World.findPlugin(uri, world: world, state: &state) else { return [] }
            return LV2World.classURIs(plugin, world: world, state: &state)
        }
        let existing = registry.components
        let type = LV2ComponentCodes.type(classURIs: classes, ports: info.ports)
        let manufacturer = LV2ComponentCodes.manufacturer(uri: uri)
        var attempt = 0
        var description: ComponentDescription
        repeat {
            description = ComponentDescription(type: type, subtype: LV2ComponentCodes.subtype(uri: uri, attempt: attempt), manufacturer: manufacturer)
            attempt += 1
        } while existing.contains(where: { $0.description == description && $0.uri != uri })
        let base = LV2ComponentCodes.shortName(uri: uri)
        var shortName = base
        var suffix = 2
        while existing.contains(where: { $0.shortName.lowercased() == shortName.lowercased() && $0.uri != uri }) {
            shortName = "\(base)-\(suffix)"
            suffix += 1
        }
        let resolvedDescription = description, resolvedName = shortName
        return Component(
            description: description, shortName: shortName, displayName: info.name, origin: .lv2, uri: uri,
            factory: { () throws(AudioUnitError) -> any AudioUnit in
                do throws(LV2Error) {
                    return try LV2PluginUnit(world: world, uri: uri, description: resolvedDescription, shortName: resolvedName)
                } catch {
                    throw .failedToInitialize(error.description, unit: "\(resolvedName) <\(uri)>")
                }
            })
    }
}
