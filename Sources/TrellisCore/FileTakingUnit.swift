/// A unit that takes files by name: an LV2 plugin's sample, SoundFont or impulse
/// response, named by one of its `patch:Parameter`s whose range is `atom:Path`, or by a
/// key of its state that holds a path.
public protocol FileTakingUnit: AudioUnit {
    /// The names the unit declares it takes files under. Thread: any.
    var fileSlots: [FileSlot] { get }
    /// Gives the unit the file at `path` (absolute) under `name`: a slot's name, label
    /// or URI, or a state key written as a URI. Applies at once when the unit runs,
    /// else when it is initialized; a later file under the same name replaces it.
    /// Thread: control.
    func setFile(_ path: String, for name: String) throws(AudioUnitError)
    /// The files given, by the name they were given under, in the order given.
    /// Thread: control.
    var files: [NamedFile] { get }
}

/// A name a unit takes a file under.
public struct FileSlot: Sendable, Equatable, Codable {
    /// What a session writes (`files: { NAME: path }`).
    public var name: String
    public var uri: String
    public var label: String

    public init(name: String, uri: String, label: String) {
        self.name = name
        self.uri = uri
        self.label = label
    }
}

/// A file given to a unit, and the name it was given under.
public struct NamedFile: Sendable, Equatable {
    public var name: String
    public var path: String

    public init(name: String, path: String) {
        self.name = name
        self.path = path
    }
}
