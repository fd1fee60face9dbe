import TrellisCore
import TrellisGraph
import TrellisSession

/// Codes for the errors of the layers below.
enum ControlErrors {
    static func map(_ error: GraphError) -> ControlError {
        switch error {
        case .unknownNode, .unknownNodeName, .notASubgraph: return ControlError(.unknownNode, error.description)
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

    /// A node description that could not become a unit (`add`), or a value `set` refused.
    static func map(_ error: UnitFactoryError, node: String) -> ControlError {
        let code: ControlError.Code
        switch error {
        case .unknownUnit: code = .unknownUnit
        case .unitNotCreated: code = .graph
        case .unknownParameter: code = .unknownParameter
        case .readOnlyParameter: code = .readOnly
        case .invalidValue, .invalidSetting, .repeatedSetting, .noState, .invalidState: code = .badValue
        case .outOfRange: code = .outOfRange
        case .unknownPreset, .unreadablePreset: code = .unknownPreset
        case .refused(_, let refusal): code = Self.code(for: refusal)
        }
        return ControlError(code, "node \(node): \(error)")
    }

    static func code(for error: AudioUnitError) -> ControlError.Code {
        switch error {
        case .unknownParameter, .invalidParameter: .unknownParameter
        case .readOnlyParameter, .readOnlyProperty: .readOnly
        case .parameterValueOutOfRange: .outOfRange
        case .parameterQueueFull: .busy
        case .invalidPreset: .unknownPreset
        case .invalidProperty: .unknownProperty
        case .invalidScope: .unsupported
        default: .graph
        }
    }
}
