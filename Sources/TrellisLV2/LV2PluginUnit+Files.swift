import TrellisCore

/// A file given to a plugin: the state keys it goes under and the Turtle that restores
/// it (`<key> "path"^^atom:Path`).
struct GivenFile {
    var name: String
    var keys: [String]
    var path: String

    var stateText: String {
        let value = TurtleText.quoted(path)
        return keys.map { "<\($0)> \(value)^^<\(LV2URI.atomPath)>" }.joined(separator: " ;\n") + " ."
    }
}

/// Files for a plugin (samples, SoundFonts, impulse responses), given as its state:
/// plugins read a `patch:Parameter` path in `restore` under the parameter's URI, as
/// they read what their own `save` wrote, so one path serves both kinds of name.
extension LV2PluginUnit: FileTakingUnit {
    /// The plugin's writable properties whose range is `atom:Path`, named by the last
    /// segment of their URI.
    public var fileSlots: [FileSlot] {
        info.properties.filter { $0.type == .path && $0.isWritable }.map { property in
            FileSlot(name: Self.tail(property.uri), uri: property.uri, label: property.label)
        }
    }

    public var files: [NamedFile] { givenFiles.map { NamedFile(name: $0.name, path: $0.path) } }

    /// Thread: control.
    public func setFile(_ path: String, for name: String) throws(AudioUnitError) {
        let slots = fileSlots
        let lowered = name.lowercased()
        let key: String
        if let slot = slots.first(where: { $0.uri == name || $0.name == name })
            ?? slots.first(where: { $0.name.lowercased() == lowered || $0.label.lowercased() == lowered }) {
            key = slot.uri
        } else if name.contains(":"), !name.contains(where: { $0 == "<" || $0 == ">" || $0 == "\"" || $0 == " " || $0 == "\\" }) {
            key = name
        } else {
            throw .unknownFileSlot(name, unit: self.name, slots: slots.map(\.name))
        }
        let file = GivenFile(name: name, keys: Self.keys(key, plugin: uri), path: path)
        do throws(LV2Error) {
            if let bridge, bridge.isRunning {
                _ = try bridge.restore(file.stateText, preset: false)
            } else if instance != nil, let renderer {
                guard renderer.acquireForControl() else {
                    throw .stateFailed("the audio thread did not release the plugin within 2 s", plugin: uri)
                }
                defer { renderer.releaseControl() }
                try restoreInstance(from: .text(file.stateText))
                renderer.askForPropertyValues()
            }
        } catch {
            throw .invalidState("file \(path) for \(name): \(error)", unit: self.name)
        }
        givenFiles.removeAll { $0.keys.first == key }
        givenFiles.append(file)
    }

    /// The keys a file named `key` goes under. LSP 1.2's data names its file parameters
    /// `http://lsp-plug.in//ports#NAME`, an empty part where the plugin's URI belongs,
    /// and the plugin reads `PLUGIN/ports#NAME`: such a file goes under both.
    static func keys(_ key: String, plugin: String) -> [String] {
        guard let scheme = key.firstRange(of: "://"), let empty = key[scheme.upperBound...].firstRange(of: "//ports#") else { return [key] }
        return [key, plugin + "/ports#" + key[empty.upperBound...]]
    }

    private static func tail(_ uri: String) -> String {
        String(uri.split(whereSeparator: { $0 == "#" || $0 == "/" }).last ?? Substring(uri))
    }
}
