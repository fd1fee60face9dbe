extension NodeSpec {
    /// A session node written from a description, as `trellis chain --save` writes a
    /// stage. `lv2:URI` becomes an `lv2:` node.
    public init(name: String, describing description: NodeDescription, location: SourceLocation) {
        let source: NodeSource = description.unit.hasPrefix("lv2:") ? .lv2(String(description.unit.dropFirst(4))) : .unit(description.unit)
        self.init(name: name, source: source, location: location)
        parameters = description.parameters.map { ParameterSetting(name: $0.name, value: $0.value, location: location) }
        inputs = description.inputs
        outputs = description.outputs
        channels = description.channels
        inputChannels = description.inputChannels
        outputChannels = description.outputChannels
        state = description.state
        files = description.files.map { ParameterSetting(name: $0.name, value: $0.value, location: location) }
        preset = description.preset
        bypass = description.bypass
        channelMap = description.channelMap
        isolate = description.isolate
        deadline = description.deadline
        onFault = description.onFault
        restart = description.restart
    }

    /// What the factory makes this node's unit from; nil for a subgraph node.
    public var unitDescription: NodeDescription? {
        switch source {
        case .unit(let name): description(unit: name)
        case .lv2(let uri): description(unit: "lv2:" + uri)
        case .subgraph: nil
        }
    }

    /// The node's settings as a description of `key`.
    func description(unit key: String) -> NodeDescription {
        var description = NodeDescription(unit: key, parameters: parameters.map { NodeDescription.Setting(name: $0.name, value: $0.value) })
        description.inputs = inputs
        description.outputs = outputs
        description.channels = channels
        description.inputChannels = inputChannels
        description.outputChannels = outputChannels
        description.state = state
        description.files = files.map { NodeDescription.Setting(name: $0.name, value: $0.value) }
        description.preset = preset
        description.bypass = bypass
        description.channelMap = channelMap
        description.isolate = isolate
        description.deadline = deadline
        description.onFault = onFault
        description.restart = restart
        return description
    }

    /// Where the part of the node an error is about was written.
    func location(of field: NodeDescription.Field) -> SourceLocation {
        switch field {
        case .unit: positions["unit"] ?? positions["lv2"] ?? location
        case .key(let key): positions[key.rawValue] ?? location
        case .parameterName(let name): parameters.first { $0.name == name }?.location ?? positions["parameters"] ?? location
        case .parameterValue(let name): parameters.first { $0.name == name }?.valueLocation ?? positions["parameters"] ?? location
        case .file(let name): files.first { $0.name == name }?.valueLocation ?? positions["files"] ?? location
        }
    }
}
