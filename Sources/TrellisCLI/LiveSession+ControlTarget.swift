import TrellisControl
import TrellisCore
import TrellisLive
import TrellisSession

extension LiveSession: ControlTarget {
    public var registry: ComponentRegistry { session.graph.registry }

    public var liveBackend: (any LiveBackend)? { head }

    public func withGraphLocked(_ body: () -> Void) {
        withGraph { _ in body() }
    }

    public func replaceSession(with session: LoadedSession) throws(ControlError) {
        do { try replace(with: session) } catch { throw ControlError(.session, error.description) }
    }
}
