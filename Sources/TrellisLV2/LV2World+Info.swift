import CLilv

extension LV2World {
    /// Describes the plugin with `uri`, loading its bundles first if needed.
    /// Thread: control.
    public func info(uri: String) throws(LV2Error) -> LV2PluginInfo {
        try load(uri: uri)
        return try withLilv { (world, state) throws(LV2Error) -> LV2PluginInfo in
            guard let plugin = Self.findPlugin(uri, world: world, state: &state) else {
                throw .unknownPlugin(uri, suggestions: [])
            }
            return Self.describe(plugin, world: world, state: &state)
        }
    }

    /// The rdf:type URIs a plugin declares (its LV2 classes).
    static func classURIs(_ plugin: OpaquePointer, world: OpaquePointer, state: inout State) -> [String] {
        strings(lilv_plugin_get_value(plugin, node(LV2URI.rdfType, world: world, state: &state)), free: true)
    }

    static func describe(_ plugin: OpaquePointer, world: OpaquePointer, state: inout State) -> LV2PluginInfo {
        let uri = String(cString: lilv_node_as_uri(lilv_plugin_get_uri(plugin)))
        let classes = classURIs(plugin, world: world, state: &state)
        let classURI = classes.first { $0.hasPrefix(LV2URI.core) && $0 != LV2URI.core + "Plugin" }
            ?? classes.first { $0.hasPrefix(LV2URI.core) } ?? LV2URI.core + "Plugin"
        var className = String(classURI.split(separator: "#").last ?? "Plugin")
        if className.hasSuffix("Plugin"), className != "Plugin" { className.removeLast("Plugin".count) }

        var ports: [LV2PortInfo] = []
        let count = Int(lilv_plugin_get_num_ports(plugin))
        for index in 0..<count {
            guard let port = lilv_plugin_get_port_by_index(plugin, UInt32(index)) else { continue }
            ports.append(describePort(port, index: index, plugin: plugin, world: world, state: &state))
        }
        var presets: [LV2PresetInfo] = []
        let related = lilv_plugin_get_related(plugin, node(LV2URI.preset, world: world, state: &state))
        for presetNode in nodes(related) {
            lilv_world_load_resource(world, presetNode)
            let labels = lilv_world_find_nodes(world, presetNode, node(LV2URI.rdfsLabel, world: world, state: &state), nil)
            let presetURI = String(cString: lilv_node_as_string(presetNode))
            let label = strings(labels, free: true).first ?? presetURI
            presets.append(LV2PresetInfo(uri: presetURI, label: label))
        }
        lilv_nodes_free(related)
        presets.sort { $0.label < $1.label }

        let latencyIndex = lilv_plugin_has_latency(plugin) ? Int(lilv_plugin_get_latency_port_index(plugin)) : nil
        return LV2PluginInfo(
            uri: uri,
            name: takeString(lilv_plugin_get_name(plugin)) ?? uri,
            classURI: classURI,
            className: className,
            author: takeString(lilv_plugin_get_author_name(plugin)),
            authorEmail: takeString(lilv_plugin_get_author_email(plugin)),
            authorHomepage: takeString(lilv_plugin_get_author_homepage(plugin)),
            project: takeString(lilv_plugin_get_project(plugin)),
            bundle: String(cString: lilv_node_as_uri(lilv_plugin_get_bundle_uri(plugin))),
            library: lilv_plugin_get_library_uri(plugin).map { String(cString: lilv_node_as_uri($0)) },
            ports: ports,
            presets: presets,
            requiredFeatures: strings(lilv_plugin_get_required_features(plugin), free: true),
            optionalFeatures: strings(lilv_plugin_get_optional_features(plugin), free: true),
            extensionData: strings(lilv_plugin_get_extension_data(plugin), free: true),
            latencyPort: latencyIndex,
            properties: describeProperties(plugin, world: world, state: &state))
    }

    /// The plugin's `patch:writable` and `patch:readable` properties, writable first,
    /// each in URI order. Defaults are the properties' `lv2:default`: the values of the
    /// plugin's default `state:state` are typed (xsd:float, xsd:long) in ways lilv's node
    /// reader complains about, and the running plugin reports them anyway.
    private static func describeProperties(_ plugin: OpaquePointer, world: OpaquePointer, state: inout State) -> [LV2PropertyInfo] {
        let writable = strings(lilv_plugin_get_value(plugin, node(LV2URI.patchWritable, world: world, state: &state)), free: true)
        let readable = strings(lilv_plugin_get_value(plugin, node(LV2URI.patchReadable, world: world, state: &state)), free: true)
        func get(_ subject: OpaquePointer?, _ predicate: String, state: inout State) -> OpaquePointer? {
            guard let subject else { return nil }
            return lilv_world_get(world, subject, node(predicate, world: world, state: &state), nil)
        }
        func number(_ found: OpaquePointer?) -> Float? {
            guard let found else { return nil }
            defer { lilv_node_free(found) }
            if lilv_node_is_bool(found) { return lilv_node_as_bool(found) ? 1 : 0 }
            if lilv_node_is_float(found) || lilv_node_is_int(found) { return lilv_node_as_float(found) }
            return Float(String(cString: lilv_node_as_string(found)))
        }
        let types: [String: LV2PropertyInfo.ValueType] = [
            LV2URI.atomInt: .int, LV2URI.atomLong: .long, LV2URI.atomFloat: .float, LV2URI.atomDouble: .double,
            LV2URI.atomBool: .bool, LV2URI.atomString: .string, LV2URI.atomPath: .path, LV2URI.atomURI: .uri,
            LV2URI.atomURID: .uri,
        ]
        var result: [LV2PropertyInfo] = []
        for uri in writable.sorted() + readable.filter({ !writable.contains($0) }).sorted() {
            let property = node(uri, world: world, state: &state)
            let range = takeString(get(property, LV2URI.rdfsRange, state: &state))
            let label = takeString(get(property, LV2URI.rdfsLabel, state: &state))
                ?? String(uri.split(whereSeparator: { $0 == "#" || $0 == "/" }).last ?? Substring(uri))
            // Properties of the parameters vocabulary (param:gain) are floats; their
            // ranges sit in a specification bundle that may not be loaded.
            let type = range.flatMap { types[$0] } ?? (uri.hasPrefix(LV2URI.parametersNS) ? .float : .other)
            result.append(LV2PropertyInfo(
                uri: uri, label: label, type: type, isWritable: writable.contains(uri),
                minimum: number(get(property, LV2URI.minimum, state: &state)),
                maximum: number(get(property, LV2URI.maximum, state: &state)),
                defaultValue: number(get(property, LV2URI.defaultValue, state: &state)),
                unit: takeString(get(property, LV2URI.unit, state: &state))))
        }
        return result
    }

    private static func describePort(
        _ port: OpaquePointer, index: Int, plugin: OpaquePointer, world: OpaquePointer, state: inout State
    ) -> LV2PortInfo {
        func isA(_ uri: String) -> Bool { lilv_port_is_a(plugin, port, node(uri, world: world, state: &state)) }
        func has(_ uri: String) -> Bool { lilv_port_has_property(plugin, port, node(uri, world: world, state: &state)) }
        func value(_ uri: String) -> String? {
            let found = lilv_port_get(plugin, port, node(uri, world: world, state: &state))
            defer { lilv_node_free(found) }
            return found.map { String(cString: lilv_node_as_string($0)) }
        }

        let kind: LV2PortInfo.Kind =
            isA(LV2URI.audioPort) ? .audio : isA(LV2URI.controlPort) ? .control : isA(LV2URI.cvPort) ? .cv
            : isA(LV2URI.atomPort) ? .atom : isA(LV2URI.eventPort) ? .event : .unknown
        var minimum: OpaquePointer?, maximum: OpaquePointer?, defaultValue: OpaquePointer?
        lilv_port_get_range(plugin, port, &defaultValue, &minimum, &maximum)
        defer { lilv_node_free(minimum); lilv_node_free(maximum); lilv_node_free(defaultValue) }
        func number(_ node: OpaquePointer?) -> Float? {
            guard let node, lilv_node_is_float(node) || lilv_node_is_int(node) || lilv_node_is_bool(node) else { return nil }
            return lilv_node_is_bool(node) ? (lilv_node_as_bool(node) ? 1 : 0) : lilv_node_as_float(node)
        }

        var hints: [LV2PortHint] = []
        let hintURIs: [(LV2PortHint, String)] = [
            (.toggled, LV2URI.toggled), (.integer, LV2URI.integer), (.enumeration, LV2URI.enumeration),
            (.logarithmic, LV2URI.logarithmic), (.sampleRate, LV2URI.sampleRate),
            (.reportsLatency, LV2URI.reportsLatency), (.connectionOptional, LV2URI.connectionOptional),
            (.sideChain, LV2URI.isSideChain), (.notOnGUI, LV2URI.notOnGUI),
        ]
        for (hint, uri) in hintURIs where has(uri) { hints.append(hint) }
        let designation = value(LV2URI.designation)
        if designation == LV2URI.reportsLatency, !hints.contains(.reportsLatency) { hints.append(.reportsLatency) }
        if designation == LV2URI.freeWheeling { hints.append(.freeWheeling) }
        if designation == LV2URI.enabled { hints.append(.enabled) }

        var scalePoints: [LV2ScalePoint] = []
        if let points = lilv_port_get_scale_points(plugin, port) {
            var iterator = lilv_scale_points_begin(points)
            while !lilv_scale_points_is_end(points, iterator) {
                if let point = lilv_scale_points_get(points, iterator),
                   let value = number(lilv_scale_point_get_value(point)) {
                    let label = lilv_scale_point_get_label(point).map { String(cString: lilv_node_as_string($0)) } ?? "\(value)"
                    scalePoints.append(LV2ScalePoint(value: value, label: label))
                }
                iterator = lilv_scale_points_next(points, iterator)
            }
            lilv_scale_points_free(points)
        }
        scalePoints.sort { $0.value < $1.value }

        let types = strings(lilv_port_get_classes(plugin, port), free: false)
        let supports = strings(lilv_port_get_value(plugin, port, node(LV2URI.supports, world: world, state: &state)), free: true)
        let minimumSize = value(LV2URI.minimumSize).flatMap { Int($0) }
        return LV2PortInfo(
            index: index,
            symbol: String(cString: lilv_node_as_string(lilv_port_get_symbol(plugin, port))),
            name: takeString(lilv_port_get_name(plugin, port)) ?? "",
            direction: isA(LV2URI.outputPort) ? .output : .input,
            kind: kind,
            minimum: number(minimum),
            maximum: number(maximum),
            defaultValue: number(defaultValue),
            unit: value(LV2URI.unit),
            hints: hints,
            scalePoints: scalePoints,
            group: value(LV2URI.group),
            designation: designation,
            supportsMIDI: supports.contains(LV2URI.midiEvent),
            minimumBufferSize: minimumSize,
            types: types,
            supportsPatch: supports.contains(LV2URI.patchMessage),
            supportsTimePosition: supports.contains(LV2URI.timePosition))
    }

    // MARK: - Node helpers

    /// A string from a node the caller owns, freeing it.
    static func takeString(_ node: OpaquePointer?) -> String? {
        guard let node else { return nil }
        defer { lilv_node_free(node) }
        return String(cString: lilv_node_as_string(node))
    }

    /// The nodes of a collection, borrowed from it.
    static func nodes(_ collection: UnsafeRawPointer?) -> [OpaquePointer] {
        guard let collection else { return [] }
        var result: [OpaquePointer] = []
        var iterator = lilv_nodes_begin(collection)
        while !lilv_nodes_is_end(collection, iterator) {
            if let node = lilv_nodes_get(collection, iterator) { result.append(node) }
            iterator = lilv_nodes_next(collection, iterator)
        }
        return result
    }

    /// The strings of a node collection; frees the collection when `free` is set.
    static func strings(_ collection: UnsafeRawPointer?, free: Bool) -> [String] {
        let result = nodes(collection).map { String(cString: lilv_node_as_string($0)) }
        if free, let collection { lilv_nodes_free(UnsafeMutableRawPointer(mutating: collection)) }
        return result
    }
}
