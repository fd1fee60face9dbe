/// The requests waiting for the dispatcher, one queue per peer, taken in turns: each
/// peer in order gets one request run, then goes to the back. A client that pipelines
/// many costly commands delays another client's request by at most one of them.
/// Thread: any, under the dispatcher's lock.
struct PeerTurns: ~Copyable {
    private var waiting: [ObjectIdentifier: [@Sendable () -> Void]] = [:]
    /// Peers with requests waiting, in turn order; taken from `head` on.
    private var ring: [ObjectIdentifier] = []
    private var head = 0

    mutating func append(_ request: @escaping @Sendable () -> Void, for peer: ObjectIdentifier) {
        if waiting[peer, default: []].isEmpty { ring.append(peer) }
        waiting[peer, default: []].append(request)
    }

    /// The next peer's oldest request, or nil when none waits.
    mutating func next() -> (@Sendable () -> Void)? {
        guard head < ring.count else { return nil }
        let peer = ring[head]
        head += 1
        var requests = waiting.removeValue(forKey: peer) ?? []
        let request = requests.isEmpty ? nil : requests.removeFirst()
        if !requests.isEmpty {
            waiting[peer] = requests
            ring.append(peer)
        }
        if head > 64 && head * 2 > ring.count {
            ring.removeFirst(head)
            head = 0
        }
        return request
    }
}
