import CLilv
import Glibc
import TrellisCore

/// User presets, written the way jalv and Carla write them: a bundle
/// `PLUGIN_LABEL.preset.lv2` in `~/.lv2` holding a manifest and the state, which
/// lists it as a `pset:Preset` that `lv2:appliesTo` the plugin. Every LV2 host finds it
/// there, and Trellis finds it again on its next start.
extension LV2PluginUnit {
    /// The user's preset folder: `~/.lv2`, the first directory of lilv's default path.
    public static var userPresetDirectory: String {
        (getenv("HOME").map { String(cString: $0) } ?? "") + "/.lv2"
    }

    /// Saves the running plugin's state (control values and its own state) as a preset
    /// named `label` in `directory`, replacing a user preset of that label, and lists it
    /// with the plugin's presets at once. Thread: control.
    @discardableResult
    public func savePreset(label: String, directory: String = userPresetDirectory) throws(LV2Error) -> (preset: LV2PresetInfo, file: String) {
        let file = Self.symbol(label)
        guard let instance, let renderer else { throw .notInstantiated(plugin: uri, operation: "saving a preset") }
        let bundle = directory + "/" + Self.symbol(info.name) + "_" + file + ".preset.lv2/"
        guard renderer.acquireForControl() else {
            throw .stateFailed("the audio thread did not release the plugin within 2 s", plugin: uri)
        }
        let table = PortValueTable(unit: self)
        let context = Unmanaged.passUnretained(table).toOpaque()
        let features = self.features?.state
        let urids = world.urids
        let plugin = self.plugin
        let saved: (status: Int32, uri: String?) = world.withLilv { world, _ in
            guard let state = lilv_state_new_from_instance(
                plugin, instance, urids.mapFeature, nil, nil, nil, bundle,
                { symbol, context, size, type in
                    guard let symbol, let context else { return nil }
                    return Unmanaged<PortValueTable>.fromOpaque(context).takeUnretainedValue()
                        .value(symbol: String(cString: symbol), size: size, type: type)
                },
                context, UInt32(LV2_STATE_IS_POD.rawValue | LV2_STATE_IS_PORTABLE.rawValue), features)
            else { return (-1, nil) }
            defer { lilv_state_free(state) }
            lilv_state_set_label(state, label)
            let status = lilv_state_save(world, urids.mapFeature, urids.unmapFeature, state, nil, bundle, file + ".ttl")
            guard status == 0, let node = lilv_new_file_uri(world, nil, bundle + file + ".ttl") else { return (status, nil) }
            defer { lilv_node_free(node) }
            let uri = String(cString: lilv_node_as_uri(node))
            // The world reads the bundle again, so the preset applies like any other.
            if let bundleNode = lilv_new_file_uri(world, nil, bundle) {
                lilv_world_unload_bundle(world, bundleNode)
                lilv_world_load_bundle(world, bundleNode)
                lilv_node_free(bundleNode)
            }
            return (0, uri)
        }
        renderer.releaseControl()
        guard saved.status == 0, let presetURI = saved.uri else {
            throw .stateFailed("lilv could not write the preset to \(bundle) (status \(saved.status))", plugin: uri)
        }
        let preset = LV2PresetInfo(uri: presetURI, label: label)
        info.presets.removeAll { $0.uri == presetURI || $0.label == label }
        info.presets.append(preset)
        info.presets.sort { $0.label < $1.label }
        return (preset, bundle + file + ".ttl")
    }

    /// A label as a file name: letters and digits kept, anything else `_`.
    static func symbol(_ text: String) -> String {
        String(text.unicodeScalars.map { scalar in
            scalar.isASCII && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)) ? Character(scalar) : "_"
        })
    }
}

extension LV2PluginUnit: UserPresetUnit {
    public func saveUserPreset(label: String) throws(AudioUnitError) -> String {
        let directory = Self.userPresetDirectory
        // A preset the plugin's own bundles ship keeps its name.
        let userURI = "file://" + directory + "/"
        if let shipped = info.presets.first(where: { $0.label == label && !$0.uri.hasPrefix(userURI) }) {
            throw .invalidState("cannot save preset \"\(label)\": the plugin ships a preset of that name (<\(shipped.uri)>); choose another", unit: name)
        }
        do {
            return try savePreset(label: label, directory: directory).file
        } catch {
            throw .invalidState("cannot save preset \"\(label)\": \(error)", unit: name)
        }
    }
}
