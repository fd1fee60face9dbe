import TrellisCore

/// A unit as `trellis units --json` lists it.
public struct UnitEntry: Codable {
    public var triple: String
    public var name: String
    public var displayName: String
    public var kind: String
    public var origin: String
    public var uri: String?
    /// Why the unit cannot be loaded, when discovery found it cannot.
    public var problem: String?

    public init(_ component: Component) {
        triple = component.componentDescription.description
        name = component.shortName
        displayName = component.displayName
        kind = component.kind
        origin = component.origin.rawValue
        uri = component.uri
        problem = component.problem
    }
}
