/// A listener or observer registered with a player or recorder, returned so it can be
/// removed. A value; any thread.
public struct MediaListenerToken: Hashable, Sendable {
    let rawValue: Int
}
