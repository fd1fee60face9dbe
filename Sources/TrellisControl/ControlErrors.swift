import TrellisCore
import TrellisGraph

/// Codes for the errors of the layers below.
enum ControlErrors {
    static func map(_ error: GraphError) -> ControlError {
        switch error {
        case .unknownNode, .unknownNodeName: return ControlError(.unknownNode, error.description)
        case .duplicateNodeName: return ControlError(.duplicateNode, error.description)
        case .registry(let registry): return map(registry)
        case .unit(_, let unit):
            return ControlError(code(for: unit), error.description)
        default: return ControlError(.graph, error.description)
        }
    }

    static func map(_ error: RegistryError) -> ControlError {
        switch error {
        case .unknownName, .unknownDescription: return ControlError(.unknownUnit, error.description)
        default: return ControlError(.graph, error.description)
        }
    }

    static func map(_ error: AudioUnitError, node: String) -> ControlError {
        ControlError(code(for: error), "node \(node): \(error)")
    }

    static func code(for error: AudioUnitError) -> ControlError.Code {
        switch error {
        case .unknownParameter, .invalidParameter: .unknownParameter
        case .readOnlyParameter, .readOnlyProperty: .readOnly
        case .parameterValueOutOfRange: .outOfRange
        case .parameterQueueFull: .busy
        case .invalidPreset: .unknownPreset
        case .invalidProperty, .invalidScope: .unsupported
        default: .graph
        }
    }
}
