import Foundation

/// A request in JSON mode: `{"id": ..., "command": "set amp gain -6"}`, or the words
/// given apart: `{"id": ..., "command": "set", "args": ["amp", "gain", -6]}`.
struct JSONRequest {
    struct Failure: Error {
        var id: ControlValue
        var error: ControlError
    }

    let id: ControlValue
    let words: [String]?
    let line: String?

    init(line text: String) throws(Failure) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]),
              let members = object as? [String: Any]
        else {
            throw Failure(id: .null, error: ControlError(.syntax, "in JSON mode each line is one JSON object with an id and a command"))
        }
        let id = members["id"].map(ControlValue.from(json:)) ?? .null
        guard members["id"] != nil, id != .null else {
            throw Failure(id: .null, error: ControlError(.syntax, "the request has no id; JSON requests carry one, and the reply echoes it"))
        }
        guard let command = members["command"] as? String else {
            throw Failure(id: id, error: ControlError(.syntax, "the request has no command (a string)"))
        }
        self.id = id
        if let arguments = members["args"] {
            guard let list = arguments as? [Any] else {
                throw Failure(id: id, error: ControlError(.syntax, "args must be an array of strings and numbers"))
            }
            var words = [command]
            for argument in list {
                guard let word = ControlValue.from(json: argument).word else {
                    throw Failure(id: id, error: ControlError(.syntax, "args must be an array of strings and numbers"))
                }
                words.append(word)
            }
            self.words = words
            line = nil
        } else {
            words = nil
            line = command
        }
    }

    func command() throws(ControlError) -> ControlCommand {
        if let words { return try CommandParser.parse(words: words) }
        return try CommandParser.parse(line: line ?? "")
    }
}
