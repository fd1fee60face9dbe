/// Where a property or parameter lives, as in Core Audio: the unit as a whole, one of
/// its input elements (buses), or one of its output elements.
public enum Scope: String, Sendable, CaseIterable, CustomStringConvertible, BitwiseCopyable {
    case global
    case input
    case output

    public var description: String { rawValue }
}
