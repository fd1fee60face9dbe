import TrellisCore

/// Why a node description could not become a configured unit. The description is the
/// whole message; a session puts its file:line:column and node in front, `ctl add` and
/// `trellis chain` their node or stage, and nothing else is added or matched.
///
/// Thread: any (a plain value).
public enum UnitFactoryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No unit has this short name, triple or URI.
    case unknownUnit(String, suggestions: [String])
    /// The unit is known but could not be made (a plugin that needs a missing feature).
    case unitNotCreated(String, reason: AudioUnitError)
    /// A setting names no parameter of the unit (`name` as written).
    case unknownParameter(String, unit: String, suggestions: [String])
    /// The parameter is written by the unit (a meter or a plugin's control output).
    case readOnlyParameter(String)
    /// A value that is not of the parameter's kind. `expected` says what is.
    case invalidValue(parameter: String, text: String, expected: String, problem: ValueProblem)
    /// A number outside the parameter's range; `range` as printed, with its unit.
    case outOfRange(parameter: String, text: String, range: String)
    /// A node key (`channels`, `bypass`, ...) whose value is not of its kind.
    case invalidSetting(key: String, text: String, expected: String, reason: String?)
    /// The same name set twice in one description.
    case repeatedSetting(String)
    /// `state` on a unit that keeps none.
    case noState(unit: String)
    /// The unit refused the saved state.
    case invalidState(AudioUnitError)
    /// The unit has no preset of this name or number.
    case unknownPreset(String, available: [String], unit: String)
    /// No readable preset has the name, and a preset file could not be read.
    case unreadablePreset(String, file: String)
    /// The unit refused a node key's value (a bus count, a width, bypass): `key` names it.
    case refused(key: String, AudioUnitError)
    /// A file for the unit (`files:`) that is missing, unreadable or refused.
    case file(name: String, path: String, problem: String)

    /// Why a parameter value is not of the parameter's kind.
    public enum ValueProblem: Sendable, Equatable {
        case notANumber
        /// `on`/`off`/`yes`/`no`/`true`/`false` for a parameter that is not an on/off one.
        case onOffWord
        /// A word that names none of an enumeration's values.
        case notAValueName(suggestions: [String])
        /// Text a YAML 1.1 reader takes for something else (octal, base 60...).
        case ambiguous(reason: String)
        /// A fraction for a whole-number parameter.
        case notWhole
    }

    public var description: String {
        switch self {
        case .unknownUnit(let key, let suggestions):
            return "no unit named \(quoted(key))\(Suggestions.didYouMean(suggestions))"
        case .unitNotCreated(let key, let reason):
            return "could not create \(key): \(reason)"
        case .unknownParameter(let name, let unit, let suggestions):
            return "\(unit) has no parameter named \(quoted(name))\(Suggestions.didYouMean(suggestions))"
        case .readOnlyParameter(let name):
            return "parameter \(name) is read-only (the unit writes it)"
        case .invalidValue(_, let text, let expected, let problem):
            let found: String
            switch problem {
            case .notANumber: found = "found \(quoted(text))"
            case .onOffWord: found = "found \(quoted(text)): on/off words are accepted only for on/off parameters"
            case .notAValueName(let suggestions): found = "found \(quoted(text))\(Suggestions.didYouMean(suggestions))"
            case .ambiguous(let reason): found = "found \(quoted(text)): \(reason)"
            case .notWhole: found = "found \(text), which is not a whole number"
            }
            return "expected \(expected), \(found)"
        case .outOfRange(let parameter, let text, let range):
            return "\(text) is outside the range of \(parameter), \(range)"
        case .invalidSetting(let key, let text, let expected, let reason):
            return "\(key) takes \(expected), not \(quoted(text))" + (reason.map { ": \($0)" } ?? "")
        case .repeatedSetting(let name):
            return "\(quoted(name)) is set twice"
        case .noState(let unit):
            return "\(unit) keeps no saved state"
        case .invalidState(let error):
            return "\(error)"
        case .unknownPreset(let name, let available, let unit):
            let list = available.isEmpty ? "it has none" : "it has " + available.joined(separator: ", ")
            return "\(unit): no preset \(quoted(name)) (\(list))"
        case .refused(let key, let error):
            return "\(key): \(error)"
        case .unreadablePreset(let name, let file):
            return "no preset \(quoted(name)) could be read; a preset file is broken: \(file)"
        case .file(let name, let path, let problem):
            return "file \(path) for \(quoted(name)): \(problem)"
        }
    }

    /// The part of the description the error is about, so a session can point at it.
    public var field: NodeDescription.Field {
        switch self {
        case .unknownUnit, .unitNotCreated: .unit
        case .unknownParameter(let name, _, _): .parameterName(name)
        case .repeatedSetting(let name): NodeDescription.Key(rawValue: name).map { .key($0) } ?? .parameterName(name)
        case .readOnlyParameter(let name), .invalidValue(let name, _, _, _), .outOfRange(let name, _, _): .parameterValue(name)
        case .invalidSetting(let key, _, _, _), .refused(let key, _): NodeDescription.Key(rawValue: key).map { .key($0) } ?? .parameterValue(key)
        case .noState, .invalidState: .key(.state)
        case .unknownPreset, .unreadablePreset: .key(.preset)
        case .file(let name, _, _): .file(name)
        }
    }
}
