import TrellisCore

/// The bus and channel settings `add` takes as a session's node does: `inputs=`,
/// `outputs=`, `channels=`, `input-channels=`, `output-channels=`.
enum NodeShape {
    static let keys: Set<String> = ["inputs", "outputs", "channels", "input-channels", "output-channels"]

    static func apply(_ settings: [ParameterAssignment], to unit: any AudioUnit, node: String) throws(ControlError) {
        var values: [String: Int] = [:]
        for setting in settings {
            let key = setting.name.lowercased()
            let limit = key.hasSuffix("channels") ? 1...32 : 0...128
            guard let value = Int(setting.value), limit.contains(value) else {
                throw ControlError(.badValue, "add \(node): \(key)=\(setting.value) is not a whole number in \(limit.lowerBound)...\(limit.upperBound)")
            }
            values[key] = value
        }
        do {
            if let count = values["inputs"] { try unit.setProperty(.elementCount, .int(count), scope: .input, element: 0) }
            if let count = values["outputs"] { try unit.setProperty(.elementCount, .int(count), scope: .output, element: 0) }
            for (scope, key) in [(Scope.input, "input-channels"), (.output, "output-channels")] {
                guard let channels = values[key] ?? values["channels"] else { continue }
                for element in 0..<unit.elementCount(scope) {
                    var format = try unit.format(scope: scope, element: element)
                    format.channelCount = channels
                    try unit.setFormat(format, scope: scope, element: element)
                }
            }
        } catch {
            throw ControlErrors.map(error, node: node)
        }
    }
}
