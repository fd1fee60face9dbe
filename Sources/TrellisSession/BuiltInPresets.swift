import Glibc
import TrellisCore
import Yams

/// User presets of Trellis' own units: one small YAML file each, in
/// `$XDG_CONFIG_HOME/trellis/presets/TYPE-SUBTYPE-MANUFACTURER/` (`~/.config/...` when
/// the variable is not set), holding the preset's name and the unit's writable
/// parameters, written as a session writes them:
///
///     preset: Quiet
///     unit: aufx:gain:trls
///     parameters:
///       gain: -12
///
/// Plugins keep theirs where their format says (`UserPresetUnit`). A presets folder
/// another user owns or may write is neither read nor written. Thread: control.
public struct BuiltInPresets: Sendable {
    public let directory: String

    /// Files larger than this, or folders with more presets, are not read.
    static let fileLimit = 64 * 1024
    static let countLimit = 1000

    public init(directory: String = BuiltInPresets.defaultDirectory) {
        self.directory = directory
    }

    public static var defaultDirectory: String {
        if let config = getenv("XDG_CONFIG_HOME"), config.pointee != 0 { return String(cString: config) + "/trellis/presets" }
        return (getenv("HOME").map { String(cString: $0) } ?? "") + "/.config/trellis/presets"
    }

    func folder(for unit: any AudioUnit) -> String {
        directory + "/" + unit.componentDescription.description.replacingOccurrences(of: ":", with: "-").replacingOccurrences(of: " ", with: "_")
    }

    /// The names of the unit's saved presets, sorted.
    public func names(for unit: any AudioUnit) -> [String] {
        presets(for: unit).map(\.name).sorted()
    }

    /// Writes the unit's writable parameters as preset `label`, replacing one of that
    /// name; returns the file. Thread: control.
    @discardableResult
    public func save(_ unit: any AudioUnit, label: String) throws(SessionWriteError) -> String {
        let folder = folder(for: unit)
        if let problem = folderProblem(folder) { throw SessionWriteError(path: folder, reason: "not a folder for presets: \(problem)") }
        let path = presets(for: unit).first { $0.name == label }?.path ?? folder + "/" + Self.fileName(label, in: folder)
        guard Files.makeDirectories(folder, mode: 0o700) else {
            throw SessionWriteError(path: folder, reason: "cannot create the folder: \(String(cString: strerror(errno)))")
        }
        var lines = ["preset: \(YAMLText.scalar(label))", "unit: \(unit.componentDescription.description)", "parameters:"]
        var any = false
        for info in unit.parameters where info.isWritable {
            guard let value = try? unit.parameterValue(info.address) else { continue }
            lines.append("  \(YAMLText.scalar(info.identifier)): \(YAMLText.scalar(ParameterText.encode(value, for: info)))")
            any = true
        }
        if !any { lines[lines.count - 1] = "parameters: {}" }
        try AtomicFile.write(Array((lines.joined(separator: "\n") + "\n").utf8), to: path)
        return path
    }

    /// Applies preset `label` to the unit, through its parameters (so a running unit
    /// changes the way `set` changes it); false when it has no such preset.
    public func apply(_ label: String, to unit: any AudioUnit) throws(UnitFactoryError) -> Bool {
        let (presets, unreadable) = scan(for: unit)
        guard let preset = presets.first(where: { $0.name.lowercased() == label.lowercased() }) else {
            if let broken = unreadable.first { throw .unreadablePreset(label, file: broken.description) }
            return false
        }
        let factory = UnitFactory(registry: ComponentRegistry())
        var values: [(ParameterInfo, Float)] = []
        // Every value is checked before any changes, so a bad file changes nothing.
        for (name, text) in preset.parameters {
            let info = try factory.parameter(name, of: unit)
            guard info.isWritable else { throw .readOnlyParameter(name) }
            values.append((info, try ParameterText.value(text, for: info, named: name)))
        }
        for (info, value) in values {
            do { try unit.setParameter(info.address, value, rampFrames: 0) } catch { throw .refused(key: "parameters", error) }
        }
        return true
    }

    // MARK: - Files

    struct Preset {
        var name: String
        var path: String
        var parameters: [(String, String)]
    }

    func presets(for unit: any AudioUnit) -> [Preset] { scan(for: unit).presets }

    /// The presets in the unit's folder that read as presets of this unit, and the errors
    /// of the files that could not be read as YAML (each with its line and column).
    /// Presets of other units are skipped; a file is never half-applied.
    func scan(for unit: any AudioUnit) -> (presets: [Preset], unreadable: [SessionError]) {
        let folder = folder(for: unit)
        guard folderProblem(folder) == nil else { return ([], []) }
        var found: [Preset] = [], unreadable: [SessionError] = []
        for entry in Files.entries(of: folder).sorted().prefix(Self.countLimit) where entry.hasSuffix(".yaml") {
            let path = folder + "/" + entry
            guard let text = Self.read(path) else { continue }
            do {
                if let preset = try Self.preset(text, path: path, unit: unit.componentDescription.description) { found.append(preset) }
            } catch {
                unreadable.append(error)
            }
        }
        return (found, unreadable)
    }

    /// A preset file's text read through the same bounded reader as sessions (a preset
    /// is three levels deep; the limit is a session's); nil when it is not a preset of `unit`.
    static func preset(_ text: String, path: String, unit: String) throws(SessionError) -> Preset? {
        try NestingCheck.check(text, file: path, limit: 16, of: "a preset")
        let root = try SessionParser.compose(text, YAMLReader(file: path))
        guard let fields = root.mapping, let name = fields["preset"]?.scalar?.string, !name.isEmpty,
              fields["unit"]?.scalar?.string == unit else { return nil }
        var parameters: [(String, String)] = []
        for (key, value) in fields["parameters"]?.mapping ?? [:] {
            guard let key = key.scalar?.string, let value = value.scalar?.string else { return nil }
            parameters.append((key, value))
        }
        return Preset(name: name, path: path, parameters: parameters.sorted { $0.0 < $1.0 })
    }

    /// Presets are read from, and saved in, only folders of this user's that no one else
    /// may write (`Files.privateFolderProblem`), the presets folder and the unit's.
    private func folderProblem(_ folder: String) -> String? {
        Files.privateFolderProblem(directory).map { "\(directory): \($0)" } ?? Files.privateFolderProblem(folder).map { "\(folder): \($0)" }
    }

    private static func read(_ path: String) -> String? {
        (try? Files.readRegular(path, limit: fileLimit)).flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// A file name for `label` not yet taken in `folder`.
    static func fileName(_ label: String, in folder: String) -> String {
        let base = String(label.unicodeScalars.prefix(64).map { scalar in
            scalar.isASCII && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "-")
                ? Character(scalar) : "_"
        })
        var name = base + ".yaml", number = 2
        while access(folder + "/" + name, F_OK) == 0 {
            name = base + "-\(number).yaml"
            number += 1
        }
        return name
    }
}
