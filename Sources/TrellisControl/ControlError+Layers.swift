import TrellisCore
import TrellisGraph
import TrellisSession

/// The errors of the layers below as a command's error, with the code that fits.
extension ControlError {
    init(_ error: GraphError) {
        switch error {
        case .unknownNode, .unknownNodeName, .notASubgraph: self.init(.unknownNode, error.description)
        case .duplicateNodeName: self.init(.duplicateNode, error.description)
        case .registry(let registry): self.init(registry)
        case .unit(_, let unit): self.init(Self.code(for: unit), error.description)
        default: self.init(.graph, error.description)
        }
    }

    init(_ error: RegistryError) {
        switch error {
        case .unknownName, .unknownDescription: self.init(.unknownUnit, error.description)
        default: self.init(.graph, error.description)
        }
    }

    init(_ error: AudioUnitError, node: String) {
        self.init(Self.code(for: error), "node \(node): \(error)")
    }

    /// A node description that could not become a unit (`add`), or a value `set` refused.
    init(_ error: UnitFactoryError, node: String) {
        let code: ControlError.Code
        switch error {
        case .unknownUnit: code = .unknownUnit
        case .unitNotCreated: code = .graph
        case .unknownParameter: code = .unknownParameter
        case .readOnlyParameter: code = .readOnly
        case .invalidValue, .invalidSetting, .repeatedSetting, .noState, .invalidState, .file: code = .badValue
        case .outOfRange: code = .outOfRange
        case .unknownPreset, .unreadablePreset: code = .unknownPreset
        case .refused(_, let refusal): code = Self.code(for: refusal)
        }
        self.init(code, "node \(node): \(error)")
    }

    static func code(for error: AudioUnitError) -> ControlError.Code {
        switch error {
        case .unknownParameter, .invalidParameter: .unknownParameter
        case .readOnlyParameter, .readOnlyProperty: .readOnly
        case .parameterValueOutOfRange: .outOfRange
        case .parameterQueueFull: .busy
        case .invalidPreset: .unknownPreset
        case .unknownFileSlot: .badValue
        case .invalidProperty: .unknownProperty
        case .invalidScope: .unsupported
        default: .graph
        }
    }
}
