/// How every path names a parameter (a session, `ctl`, OSC, MIDI learn, automation, the
/// Swift API), and what every control-side change is checked against.
extension AudioUnit {
    /// The index of the parameter `name` names: its identifier (an LV2 symbol) as
    /// written, then its identifier in any case, then its display name in any case.
    /// Thread: control.
    public func parameterIndex(named name: String) -> Int? {
        let parameters = self.parameters
        if let exact = parameters.firstIndex(where: { $0.identifier == name }) { return exact }
        let lowered = name.lowercased()
        return parameters.firstIndex { $0.identifier.lowercased() == lowered }
            ?? parameters.firstIndex { $0.name.lowercased() == lowered }
    }

    /// The parameter `name` names (`parameterIndex(named:)`); an error that suggests the
    /// nearest identifiers when none does. Thread: control.
    public func parameter(named name: String) throws(AudioUnitError) -> ParameterInfo {
        guard let index = parameterIndex(named: name) else {
            throw .unknownParameter(name, unit: self.name, suggestions: Suggestions.closest(to: name, among: parameters.map(\.identifier)))
        }
        return parameters[index]
    }
}

extension AudioUnit {
    /// A change now (see `setParameter(_:_:rampFrames:atSampleTime:)`). Thread: any.
    public func setParameter(_ address: ParameterAddress, _ value: Float, rampFrames: Int = 0) throws(AudioUnitError) {
        try setParameter(address, value, rampFrames: rampFrames, atSampleTime: nil)
    }
}

extension ParameterInfo {
    /// Refuses what no control may set: a read-only parameter, or a value that is not
    /// finite or lies outside the range. Thread: any.
    public func checkSettable(_ value: Float, unit: String) throws(AudioUnitError) {
        guard isWritable else { throw .readOnlyParameter(identifier, unit: unit) }
        guard value.isFinite, range.contains(value) else {
            throw .parameterValueOutOfRange(parameter: identifier, value: value, range: range, unit: unit)
        }
    }
}
