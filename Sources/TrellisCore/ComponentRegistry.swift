import Synchronization

/// A kind of unit that can be instantiated: Core Audio's `AudioComponent`.
public struct Component: Sendable {
    public enum Origin: String, Sendable {
        case builtIn = "built-in"
        case lv2
        case subgraph
    }

    public var componentDescription: ComponentDescription
    /// The name sessions and the command line use, e.g. `eq`.
    public var shortName: String
    /// A readable name, e.g. "N-Band EQ".
    public var displayName: String
    public var origin: Origin
    /// The plugin URI of an LV2 component.
    public var uri: String?
    /// Why discovery found the component cannot be made (a plugin's library does not
    /// load, it needs a feature the host lacks); nil when nothing is known against it.
    public var problem: String?
    public let factory: @Sendable () throws(AudioUnitError) -> any AudioUnit

    public init(
        description: ComponentDescription,
        shortName: String,
        displayName: String,
        origin: Origin = .builtIn,
        uri: String? = nil,
        problem: String? = nil,
        factory: @escaping @Sendable () throws(AudioUnitError) -> any AudioUnit
    ) {
        self.componentDescription = description
        self.shortName = shortName
        self.displayName = displayName
        self.origin = origin
        self.uri = uri
        self.problem = problem
        self.factory = factory
    }

    /// A readable kind, from the type code: "effect", "mixer", ...
    public var kind: String { ComponentType.name(of: componentDescription.type) }
}

/// Where every unit kind is found: by exact description, by a description with
/// wildcards (as `AudioComponentFindNext`), by short name, or by URI.
///
/// Thread: any; lookups and registration are serialized by a lock, never on the audio thread.
public final class ComponentRegistry: Sendable {
    /// Looks up components that are not registered yet, such as LV2 plugins loaded on
    /// demand; returns nil when it knows nothing of the key.
    public typealias Resolver = @Sendable (String) -> Component?

    private struct State {
        var components: [Component] = []
        var resolvers: [Resolver] = []
        var descriptions: [ComponentDescription: String] = [:]
        var lowercasedNames: Set<String> = []
        var uris: Set<String> = []
    }

    private let state = Mutex(State())

    public init() {}

    /// Adds a component; a second with the same description, short name or URI is refused.
    public func register(_ component: Component) throws(RegistryError) {
        let name = component.shortName.lowercased()
        let conflict: RegistryError? = state.withLock { state in
            if let existing = state.descriptions[component.componentDescription] {
                return .duplicateDescription(component.componentDescription, existing: existing)
            }
            if state.lowercasedNames.contains(name) { return .duplicateName(component.shortName) }
            if let uri = component.uri, state.uris.contains(uri) { return .duplicateName(uri) }
            state.components.append(component)
            state.descriptions[component.componentDescription] = component.shortName
            state.lowercasedNames.insert(name)
            if let uri = component.uri { state.uris.insert(uri) }
            return nil
        }
        if let conflict { throw conflict }
    }

    /// Adds a resolver consulted when a name, description or URI is not registered.
    public func addResolver(_ resolver: @escaping Resolver) {
        state.withLock { $0.resolvers.append(resolver) }
    }

    /// The registered component with this plugin URI, without asking resolvers.
    public func registered(uri: String) -> Component? {
        state.withLock { state in state.uris.contains(uri) ? state.components.first { $0.uri == uri } : nil }
    }

    /// Whether a registered component has this short name, compared without case.
    public func hasName(_ name: String) -> Bool {
        state.withLock { $0.lowercasedNames.contains(name.lowercased()) }
    }

    /// The short name of the registered component with exactly this description.
    public func registeredName(of description: ComponentDescription) -> String? {
        state.withLock { $0.descriptions[description] }
    }

    /// Every registered component, sorted by type, then subtype, then manufacturer.
    public var components: [Component] {
        state.withLock { $0.components }.sorted {
            ($0.componentDescription.type, $0.componentDescription.subtype, $0.componentDescription.manufacturer)
                < ($1.componentDescription.type, $1.componentDescription.subtype, $1.componentDescription.manufacturer)
        }
    }

    /// Every component a description matches, zero fields being wildcards, in order.
    public func components(matching query: ComponentDescription) -> [Component] {
        components.filter { query.matches($0.componentDescription) }
    }

    /// The component with exactly this description (or the first match of a wildcard query).
    public func component(matching query: ComponentDescription) throws(RegistryError) -> Component {
        if let found = components(matching: query).first { return found }
        if let resolved = resolve(query.description) { return resolved }
        throw .unknownDescription(query, suggestions: Suggestions.closest(
            to: query.description, among: components.map(\.componentDescription.description)))
    }

    /// Finds a component by short name (case-insensitive), by `type:subtype:manufacturer`
    /// text, by LV2 URI, or by `lv2:URI`.
    public func component(named key: String) throws(RegistryError) -> Component {
        // Before any lookup or suggestion, whose cost grows with the name.
        guard key.utf8.count <= Self.nameLimit else { throw .nameTooLong(String(key.unicodeScalars.prefix(48)), bytes: key.utf8.count) }
        let all = components
        let lowered = key.lowercased()
        if let found = all.first(where: { $0.shortName.lowercased() == lowered }) { return found }
        let uri = key.hasPrefix("lv2:") ? String(key.dropFirst(4)) : key
        if let found = all.first(where: { $0.uri == uri }) { return found }
        if key.split(separator: ":").count == 3, !key.contains("/"), let description = try? ComponentDescription(key) {
            return try component(matching: description)
        }
        if let resolved = resolve(uri) { return resolved }
        // A resolver may have registered more components while looking; suggest from all.
        let known = components
        let names = known.map(\.shortName) + known.compactMap(\.uri)
        throw .unknownName(key, suggestions: Suggestions.closest(to: uri, among: names))
    }

    /// The longest unit name, triple or plugin URI looked up, in bytes: far past any real
    /// one, short enough that a name's lookup and suggestions stay quick.
    public static let nameLimit = 4096

    /// Makes a new unit of a component.
    public func instantiate(_ component: Component) throws(AudioUnitError) -> any AudioUnit {
        try component.factory()
    }

    /// Makes a new unit of the component named `key` (see `component(named:)`).
    public func instantiate(named key: String) throws(RegistryError) -> any AudioUnit {
        let found = try component(named: key)
        do { return try found.factory() } catch { throw .instantiationFailed(key, error) }
    }

    private func resolve(_ key: String) -> Component? {
        let resolvers = state.withLock { $0.resolvers }
        for resolver in resolvers {
            guard let component = resolver(key) else { continue }
            // Another thread may have resolved it first; either copy is the same component.
            try? register(component)
            return component
        }
        return nil
    }
}

public enum RegistryError: Error, CustomStringConvertible {
    case duplicateDescription(ComponentDescription, existing: String)
    case duplicateName(String)
    case unknownName(String, suggestions: [String])
    case unknownDescription(ComponentDescription, suggestions: [String])
    case instantiationFailed(String, AudioUnitError)
    /// A name past `ComponentRegistry.nameLimit`: its start, and its length.
    case nameTooLong(String, bytes: Int)

    public var description: String {
        switch self {
        case .duplicateDescription(let description, let existing):
            return "component \(description) is already registered as \(existing)"
        case .duplicateName(let name):
            return "a component named \(name) is already registered"
        case .unknownName(let name, let suggestions):
            return "no unit named \"\(name)\"\(Suggestions.didYouMean(suggestions))"
        case .unknownDescription(let description, let suggestions):
            return "no unit matches \(description)\(Suggestions.didYouMean(suggestions))"
        case .instantiationFailed(let name, let error):
            return "could not create \(name): \(error)"
        case .nameTooLong(let start, let bytes):
            return "\"\(start)…\" is \(bytes) bytes long; a unit name or plugin URI is at most \(ComponentRegistry.nameLimit)"
        }
    }
}
