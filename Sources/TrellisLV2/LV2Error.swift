import TrellisCore

/// What can go wrong finding, loading or driving an LV2 plugin. Each case names the
/// plugin (by URI) and the thing at fault.
public enum LV2Error: Error, Equatable, CustomStringConvertible {
    /// No installed plugin has this URI; `suggestions` are the closest URIs known.
    case unknownPlugin(String, suggestions: [String])
    /// The plugin requires host features Trellis does not provide.
    case missingFeatures([String], plugin: String)
    /// The plugin's shared library could not be opened.
    case libraryFailedToLoad(library: String, reason: String, plugin: String)
    /// The library loaded but the plugin's `instantiate` returned nothing.
    case instantiationFailed(plugin: String, sampleRate: Double)
    /// A port whose type Trellis cannot connect.
    case unsupportedPort(symbol: String, types: [String], plugin: String)
    /// The plugin's data is not usable (e.g. a bad bundle path).
    case invalidBundle(String, reason: String)
    case stateFailed(String, plugin: String)
    case unknownPreset(String, available: [String], plugin: String)
    case notInstantiated(plugin: String, operation: String)
    /// The plugin's bridge process (an isolated plugin) could not start or answer.
    case bridgeFailed(String, plugin: String)
    /// Discovery found the plugin crashes or hangs when instantiated (in a child), so it
    /// is not loaded into this process.
    case knownToFail(String, plugin: String)

    public var description: String {
        switch self {
        case .unknownPlugin(let uri, let suggestions):
            return "no LV2 plugin with URI <\(uri)>\(Suggestions.didYouMean(suggestions))"
        case .missingFeatures(let features, let plugin):
            let list = features.map { "<\($0)>" }.joined(separator: ", ")
            return "LV2 plugin <\(plugin)> requires feature\(features.count == 1 ? "" : "s") Trellis does not provide: \(list)"
        case .libraryFailedToLoad(let library, let reason, let plugin):
            return "LV2 plugin <\(plugin)>: library \(library) failed to load: \(reason)"
        case .instantiationFailed(let plugin, let rate):
            return "LV2 plugin <\(plugin)> refused to instantiate at \(rate) Hz"
        case .unsupportedPort(let symbol, let types, let plugin):
            return "LV2 plugin <\(plugin)>: port \"\(symbol)\" has a type Trellis cannot connect (\(types.joined(separator: ", ")))"
        case .invalidBundle(let path, let reason):
            return "LV2 bundle \(path): \(reason)"
        case .stateFailed(let reason, let plugin):
            return "LV2 plugin <\(plugin)>: state: \(reason)"
        case .unknownPreset(let name, let available, let plugin):
            let list = available.isEmpty ? "it has none" : "it has " + available.joined(separator: ", ")
            return "LV2 plugin <\(plugin)>: no preset \"\(name)\" (\(list))"
        case .notInstantiated(let plugin, let operation):
            return "LV2 plugin <\(plugin)>: \(operation) needs an initialized unit"
        case .knownToFail(let problem, let plugin):
            return "LV2 plugin <\(plugin)> was not loaded: discovery found it \(problem); isolate: true runs it in a process of its own"
        case .bridgeFailed(let reason, let plugin):
            return "LV2 plugin <\(plugin)> in its own process: \(reason)"
        }
    }
}
