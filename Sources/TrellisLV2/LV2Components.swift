import CLilv
import TrellisCore

/// Makes LV2 plugins components of a `ComponentRegistry`, beside the built-ins.
/// Codes follow `LV2ComponentCodes`; short names come from `LV2ShortNames`, so a name
/// once given stays with its plugin.
public enum LV2Components {
    /// Registers every plugin `catalog` lists, in sorted URI order (so codes are the
    /// same on every run), without reading any plugin's data. Plugins already
    /// registered are skipped. Returns how many were added. Thread: control.
    @discardableResult
    public static func register(
        into registry: ComponentRegistry, world: LV2World, catalog: LV2Catalog, names: LV2ShortNames,
        checks: LV2InstantiationChecks? = nil, checkingAll: Bool = false
    ) -> Int {
        world.use(catalog)
        let checks = checks ?? world.instantiationChecks(store: nil)
        if checkingAll { checks.check(catalog.entries.filter { $0.problem == nil }.map(\.uri)) }
        var added = 0
        for entry in catalog.entries where registry.registered(uri: entry.uri) == nil {
            if (try? registry.register(component(entry, registry: registry, world: world, names: names, checks: checks))) != nil { added += 1 }
        }
        return added
    }

    /// Scans every installed plugin and registers it, keeping nothing on disk (names
    /// are given afresh, in sorted URI order). Thread: control.
    @discardableResult
    public static func register(into registry: ComponentRegistry, world: LV2World) -> Int {
        let catalog = LV2Catalog.scan(world: world)
        var names = LV2ShortNames()
        names.assign(catalog.entries.map(\.uri))
        return register(into: registry, world: world, catalog: catalog, names: names)
    }

    /// Registers one plugin, loading only the bundles that mention it. Thread: control.
    @discardableResult
    public static func register(
        uri: String, into registry: ComponentRegistry, world: LV2World, names: LV2ShortNames = LV2ShortNames()
    ) throws(LV2Error) -> Component {
        if let existing = registry.registered(uri: uri) { return existing }
        let info = try world.info(uri: uri)
        let classes = world.withLilv { world, state -> [String] in
            guard let plugin = LV2World.findPlugin(uri, world: world, state: &state) else { return [] }
            return LV2World.classURIs(plugin, world: world, state: &state)
        }
        let entry = LV2Catalog.Entry(
            uri: uri, name: info.name, type: LV2ComponentCodes.type(classURIs: classes, ports: info.ports), bundles: [], problem: nil)
        let component = component(entry, registry: registry, world: world, names: names, checks: world.instantiationChecks(store: nil))
        do {
            try registry.register(component)
        } catch {
            if let existing = registry.registered(uri: uri) { return existing }
            throw .invalidBundle(component.displayName, reason: "\(error)")
        }
        return component
    }

    /// Lets `registry` find plugins it has not registered yet.
    ///
    /// - A URI (or `lv2:URI`) registers that plugin alone: from `store`'s catalog when it
    ///   is current, else by loading the bundles that mention it. An unknown URI
    ///   registers every plugin, so the registry's error can suggest close matches.
    /// - A short name is looked up in `store`'s name table and registers that plugin
    ///   alone; a `type:subtype:manufacturer` text registers every plugin. Both use the
    ///   store's catalog, made again first when a bundle changed.
    ///
    /// Without a store, the first lookup that is not a URI scans every plugin, once for
    /// the world's life (`LV2World.scannedCatalog`). Thread: control.
    public static func addResolver(to registry: ComponentRegistry, world: LV2World, store: LV2CatalogStore? = nil) {
        addResolver(to: registry, world: { world }, store: store)
    }

    /// The same, with the world made by `world` when a name is first looked up (so a
    /// registry that only ever names built-in units never scans the LV2 folders).
    public static func addResolver(to registry: ComponentRegistry, world made: @escaping @Sendable () -> LV2World, store: LV2CatalogStore? = nil) {
        registry.addResolver { [weak registry] key in
            guard let registry else { return nil }
            let world = made()
            let uri = key.hasPrefix("lv2:") ? String(key.dropFirst(4)) : key
            // The world's checks are kept in this store's cache, whichever path asks first.
            _ = world.instantiationChecks(store: store)
            if isURI(uri) {
                let names = store?.storedNames() ?? LV2ShortNames()
                if let catalog = store?.cached(index: world.index), let entry = catalog.entry(uri: uri) {
                    world.use(catalog)
                    return component(entry, registry: registry, world: world, names: names, checks: world.instantiationChecks(store: store))
                }
                if let component = try? register(uri: uri, into: registry, world: world, names: names) { return component }
                registerAll(into: registry, world: world, store: store)
                return nil
            }
            let (catalog, names) = catalogAndNames(world: world, store: store)
            world.use(catalog)
            let checks = world.instantiationChecks(store: store)
            if let uri = names.uri(name: key), let entry = catalog.entry(uri: uri) {
                return registry.registered(uri: uri) ?? component(entry, registry: registry, world: world, names: names, checks: checks)
            }
            register(into: registry, world: world, catalog: catalog, names: names, checks: checks)
            if let description = try? ComponentDescription(key) {
                return registry.components.first { description.matches($0.componentDescription) }
            }
            return nil
        }
    }

    /// Registers every installed plugin through `store` (its catalog, made again when
    /// stale, and its name table), or by a scan without one. `checkingInstantiation`
    /// first instantiates, in children, every plugin not checked yet (a listing's
    /// "cannot load"); otherwise each is checked on its first use. Thread: control.
    @discardableResult
    public static func registerAll(into registry: ComponentRegistry, world: LV2World, store: LV2CatalogStore?, checkingInstantiation: Bool = false) -> Int {
        let (catalog, names) = catalogAndNames(world: world, store: store)
        return register(
            into: registry, world: world, catalog: catalog, names: names,
            checks: world.instantiationChecks(store: store), checkingAll: checkingInstantiation)
    }

    private static func catalogAndNames(world: LV2World, store: LV2CatalogStore?) -> (LV2Catalog, LV2ShortNames) {
        guard let store else {
            let catalog = world.scannedCatalog()
            var names = LV2ShortNames()
            names.assign(catalog.entries.map(\.uri))
            return (catalog, names)
        }
        let catalog = store.catalog(world: world)
        return (catalog, store.names(for: catalog))
    }

    static func isURI(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex else { return false }
        let scheme = text[..<colon]
        return scheme.allSatisfy { $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }
            && (text.contains("/") || scheme == "urn")
    }

    /// The component for a catalog entry: its triple (probing past a subtype another
    /// plugin holds), its name from `names` (else the URI's, made unique), its problem.
    /// Its problem is discovery's, or what instantiating it in a child found; a plugin
    /// never checked is checked when the component first makes a unit.
    private static func component(
        _ entry: LV2Catalog.Entry, registry: ComponentRegistry, world: LV2World, names: LV2ShortNames, checks: LV2InstantiationChecks
    ) -> Component {
        let uri = entry.uri
        let manufacturer = LV2ComponentCodes.manufacturer(uri: uri)
        var attempt = 0
        var description: ComponentDescription
        repeat {
            description = ComponentDescription(type: entry.type, subtype: LV2ComponentCodes.subtype(uri: uri, attempt: attempt), manufacturer: manufacturer)
            attempt += 1
        } while registry.registeredName(of: description) != nil
        var shortName = names.name(uri: uri) ?? LV2ComponentCodes.shortName(uri: uri)
        if names.name(uri: uri) == nil {
            let base = shortName
            var suffix = 2
            while registry.hasName(shortName) || names.uri(name: shortName) != nil {
                shortName = "\(base)-\(suffix)"
                suffix += 1
            }
        }
        let resolvedDescription = description, resolvedName = shortName
        return Component(
            description: description, shortName: shortName, displayName: entry.name, origin: .lv2, uri: uri,
            problem: entry.problem ?? checks.recordedProblem(of: uri),
            factory: { () throws(AudioUnitError) -> any AudioUnit in
                do throws(LV2Error) {
                    let problem = entry.problem ?? checks.problem(of: uri)
                    return try LV2PluginUnit(world: world, uri: uri, description: resolvedDescription, shortName: resolvedName, knownProblem: problem)
                } catch {
                    throw .failedToInitialize(error.description, unit: "\(resolvedName) <\(uri)>")
                }
            })
    }
}
