/// Why the session manager cannot be reached or understood, with the address or
/// message at fault.
public struct NSMError: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// The error codes of NSM API 1.1.2 ("Error Code Definitions"), sent in
/// `/error PATH i:code s:message`.
public enum NSMErrorCode: Int32, Sendable {
    case general = -1
    case incompatibleAPI = -2
    case blacklisted = -3
    case launchFailed = -4
    case noSuchFile = -5
    case noSessionOpen = -6
    case unsavedChanges = -7
    case notNow = -8
    case badProject = -9
    case createFailed = -10
}
