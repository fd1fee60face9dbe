import ArgumentParser
import Foundation
import TrellisChain
import TrellisCore

struct UnitsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "units", abstract: "List every unit: its type:subtype:manufacturer triple, short name and kind.",
        discussion: """
            LV2 plugins that cannot load (a library that does not open, a feature Trellis does not \
            provide) are listed with `[cannot load: why]`. What discovery learns is kept in \
            $XDG_CACHE_HOME/trellis and read again until a bundle changes; short names, once \
            given, are kept in $XDG_STATE_HOME/trellis/lv2-names. A plugin whose instantiation \
            crashed or hung twice in a probe child is marked with what happened and when. \
            Listing does not wait for those probes: a plugin is probed the first time it is used, \
            or every one now with `--check`; `--recheck` forgets the marks (of the plugins named, \
            or all) and probes again.
            """)

    @Flag(help: "Write JSON instead of a table.")
    var json = false

    @Option(help: "Only units of this origin: built-in or lv2.")
    var origin: String?

    @Flag(help: "First probe every plugin not probed yet (each is instantiated in a child process; about 15 s for 600 plugins).")
    var check = false

    @Flag(help: "Probe plugins again: the ones named, or every one.")
    var recheck = false

    @Argument(help: "With --recheck: the plugins (URIs) to probe again.")
    var plugins: [String] = []

    func validate() throws {
        guard recheck || plugins.isEmpty else { throw ValidationError("name plugins only with --recheck") }
    }

    func run() throws {
        let forgetting: [String]?? = recheck ? .some(plugins.isEmpty ? nil : plugins.map { $0.hasPrefix("lv2:") ? String($0.dropFirst(4)) : $0 }) : .none
        let (registry, unchecked) = try Units.listing(
            scanningLV2: check || recheck || origin == nil || origin?.lowercased() == "lv2", recheck: forgetting, checkingAll: check || recheck)
        defer { noteUnchecked(registry, unchecked) }
        var components = registry.components
        if let origin {
            components = components.filter { $0.origin.rawValue == origin.lowercased() }
        }
        if json {
            print(try JSONText.encode(components.map(UnitEntry.init)))
            return
        }
        let width = max(10, components.map(\.shortName.count).max() ?? 0)
        for component in components {
            let name = component.shortName.padding(toLength: width, withPad: " ", startingAt: 0)
            let kind = component.kind.padding(toLength: 16, withPad: " ", startingAt: 0)
            let uri = component.uri.map { "  <\($0)>" } ?? ""
            let problem = component.problem.map { "  [cannot load: \($0)]" } ?? ""
            print("\(component.componentDescription)  \(name)  \(kind)  \(component.displayName)\(uri)\(problem)")
        }
    }
}

extension UnitsCommand {
    /// Says on stderr how many listed plugins were never probed, and how to probe them.
    private func noteUnchecked(_ registry: ComponentRegistry, _ unchecked: ([String]) -> Int) {
        let uris = registry.components.compactMap { $0.origin == .lv2 && $0.problem == nil ? $0.uri : nil }
        let count = unchecked(uris)
        guard count > 0 else { return }
        FileHandle.standardError.write(Data((
            "\(count) of these plugins are not probed yet: each is instantiated in a child process the first time it is used; "
            + "`trellis units --check` probes them all now\n").utf8))
    }
}
