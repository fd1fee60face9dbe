/// What can go wrong when a unit is configured. Each case carries what a person needs
/// to find the mistake.
public enum AudioUnitError: Error, Equatable, CustomStringConvertible {
    case invalidProperty(PropertyID, unit: String)
    case invalidScope(Scope, property: PropertyID, unit: String)
    case invalidElement(Int, scope: Scope, elementCount: Int, unit: String)
    case invalidPropertyValue(PropertyID, expected: String, got: String, unit: String)
    case readOnlyProperty(PropertyID, unit: String)
    case invalidParameter(ParameterAddress, unit: String)
    case unknownParameter(String, unit: String, suggestions: [String])
    case readOnlyParameter(String, unit: String)
    case parameterValueOutOfRange(parameter: String, value: Float, range: ClosedRange<Float>, unit: String)
    case formatNotSupported(StreamFormat, reason: String, unit: String)
    case invalidFormat(StreamFormatError, unit: String)
    case cannotChangeWhileInitialized(PropertyID, unit: String)
    case notInitialized(unit: String)
    case tooManyFrames(requested: Int, maximum: Int, unit: String)
    case invalidPreset(String, available: [String], unit: String)
    case elementCountNotChangeable(Scope, unit: String)
    case failedToInitialize(String, unit: String)
    case parameterQueueFull(String, unit: String)
    case invalidState(String, unit: String)
    /// A file named by a name the unit takes no file under.
    case unknownFileSlot(String, unit: String, slots: [String])

    public var description: String {
        switch self {
        case .invalidProperty(let id, let unit):
            return "\(unit): property \(id) is not supported"
        case .invalidScope(let scope, let id, let unit):
            return "\(unit): property \(id) does not exist in \(scope) scope"
        case .invalidElement(let element, let scope, let count, let unit):
            return "\(unit): \(scope) element \(element) does not exist (the unit has \(count) \(scope) element\(count == 1 ? "" : "s"))"
        case .invalidPropertyValue(let id, let expected, let got, let unit):
            return "\(unit): property \(id) takes a \(expected), not \(got)"
        case .readOnlyProperty(let id, let unit):
            return "\(unit): property \(id) is read-only"
        case .invalidParameter(let address, let unit):
            return "\(unit): no parameter \(address)"
        case .unknownParameter(let name, let unit, let suggestions):
            return "\(unit): no parameter named \"\(name)\"\(Suggestions.didYouMean(suggestions))"
        case .readOnlyParameter(let name, let unit):
            return "\(unit): parameter \(name) is read-only"
        case .parameterValueOutOfRange(let name, let value, let range, let unit):
            return "\(unit): \(value) is outside the range of \(name), \(range.lowerBound)...\(range.upperBound)"
        case .formatNotSupported(let format, let reason, let unit):
            return "\(unit): format \(format) is not supported: \(reason)"
        case .invalidFormat(let error, let unit):
            return "\(unit): \(error)"
        case .cannotChangeWhileInitialized(let id, let unit):
            return "\(unit): property \(id) cannot change while the unit is initialized"
        case .notInitialized(let unit):
            return "\(unit): not initialized"
        case .tooManyFrames(let requested, let maximum, let unit):
            return "\(unit): asked for \(requested) frames, more than the maximum of \(maximum) per slice"
        case .invalidPreset(let name, let available, let unit):
            let list = available.isEmpty ? "it has none" : "it has " + available.joined(separator: ", ")
            return "\(unit): no preset \"\(name)\" (\(list))"
        case .elementCountNotChangeable(let scope, let unit):
            return "\(unit): the number of \(scope) elements is fixed"
        case .failedToInitialize(let reason, let unit):
            return "\(unit): could not initialize: \(reason)"
        case .invalidState(let reason, let unit):
            return "\(unit): state: \(reason)"
        case .parameterQueueFull(let parameter, let unit):
            return "\(unit): parameter \(parameter) not changed: the audio thread is not keeping up with changes"
        case .unknownFileSlot(let name, let unit, let slots):
            let list = slots.isEmpty
                ? "it declares no file parameter; a key of its state is written as a URI"
                : "it takes " + slots.joined(separator: ", ") + ", or a key of its state written as a URI"
            return "\(unit): no file named \"\(name)\" (\(list))"
        }
    }
}

/// The outcome of a render call. The audio thread returns codes, never throws.
public enum RenderStatus: UInt8, Sendable, BitwiseCopyable {
    case ok
    /// The unit produced nothing usable; the caller outputs silence.
    case failed
    /// Asked for more frames than the unit was initialized for.
    case tooManyFrames
    case notInitialized
}
