import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization
import TrellisControl

/// The web desk: HTTP and a WebSocket served by the session itself. The page (compiled
/// in, `Assets/`) speaks the control protocol's JSON lines over the WebSocket, through
/// the session's one dispatcher, so nothing it does is a second implementation.
///
/// Only the session's user gets in (`WebAccess`): the URL `trellis run` prints carries a
/// login token, exchanged once for a cookie that every later request shows.
///
/// Thread: control for `start` and `stop`; the server runs on SwiftNIO's event loops and
/// the dispatcher's queue, never on the audio thread.
public final class WebDesk: @unchecked Sendable {
    public struct Configuration: Sendable {
        /// Where to listen: 127.0.0.1 unless told otherwise.
        public var host: String
        /// 0 lets the system choose (read `port` after `start`).
        public var port: Int
        /// Largest WebSocket message a page may send; a bigger one closes the page.
        public var maximumMessageBytes = 64 * 1024
        /// Connections served at once; more wait to be accepted.
        public var maximumConnections = 256
        /// Connections open at once from one address of another machine; more are
        /// closed as they come (`PeerConnectionLimit`).
        public var maximumConnectionsPerAddress = 32
        /// An HTTP connection that sends nothing for this long, or takes longer to send a
        /// request's head, is closed.
        public var idleSeconds: Int64 = 10
        /// A page whose socket takes nothing for this long is closed.
        public var stalledSeconds: Double = 10

        public init(host: String = "127.0.0.1", port: Int) {
            self.host = host
            self.port = port
        }

        /// `[ADDR:]PORT`, as `--web` takes it.
        public init(parsing text: String) throws(WebDeskError) {
            let host: String, portText: Substring
            if let colon = text.lastIndex(of: ":") {
                host = String(text[..<colon])
                portText = text[text.index(after: colon)...]
            } else {
                host = "127.0.0.1"
                portText = Substring(text)
            }
            guard let port = Int(portText), (0...65535).contains(port) else {
                throw WebDeskError("--web takes [ADDRESS:]PORT (8080, 127.0.0.1:8080, 0.0.0.0:8080), not \"\(text)\"")
            }
            guard !host.isEmpty, host.utf8.count < 256 else { throw WebDeskError("--web: the address in \"\(text)\" is empty or too long") }
            self.init(host: host, port: port)
        }

        /// True when the desk is served beyond this machine.
        public var servesNetwork: Bool { !(host == "127.0.0.1" || host == "localhost" || host == "::1") }
    }

    public let configuration: Configuration
    let dispatcher: ControlDispatcher
    let secret: ControlSecret
    private let running = Mutex<(task: Task<Void, Never>, group: ServiceGroup)?>(nil)
    private let boundPort = Mutex<Int?>(nil)
    /// The listening socket, closed first when the desk stops.
    private let listener = Mutex<(any Channel)?>(nil)
    private let clientCount = Atomic<Int>(0)
    /// The pages' connections, closed first when the desk stops.
    private let pages = Mutex<[Int: any Channel]>([:])
    private let nextClient = Atomic<Int>(1)

    /// The meters every page shows, read once for all of them.
    private let meters: MeterFeed

    public init(configuration: Configuration, dispatcher: ControlDispatcher, secret: ControlSecret) {
        self.configuration = configuration
        self.dispatcher = dispatcher
        self.secret = secret
        meters = MeterFeed(dispatcher: dispatcher)
    }

    /// The port listened on, once `start` returned.
    public var port: Int { boundPort.withLock { $0 } ?? configuration.port }

    /// Where the page is, without the token.
    public var address: String {
        let host = configuration.host == "0.0.0.0" ? "127.0.0.1" : configuration.host
        return "http://\(host.contains(":") ? "[\(host)]" : host):\(port)/"
    }

    /// The URL to open: the address with the login token.
    public var loginURL: String { address + "?token=" + secret.webToken }

    /// Pages connected now.
    public var pageCount: Int { clientCount.load(ordering: .relaxed) }

    /// Listens and serves until `stop`; returns once listening, or throws why it cannot.
    /// Thread: control.
    public func start() throws(WebDeskError) {
        let ready = DispatchSemaphore(value: 0)
        let failure = Mutex<String?>(nil)
        let application = makeApplication { [self] channel in
            boundPort.withLock { $0 = channel.localAddress?.port }
            listener.withLock { $0 = channel }
            ready.signal()
        }
        // The session's own signals end the session; the desk stops when it is told to.
        let group = ServiceGroup(configuration: .init(services: [application], gracefulShutdownSignals: [], logger: application.logger))
        let task = Task {
            do { try await group.run() } catch { failure.withLock { $0 = "\(error)" } }
            ready.signal()
        }
        running.withLock { $0 = (task, group) }
        ready.wait()
        if let reason = failure.withLock({ $0 }) ?? (boundPort.withLock { $0 } == nil ? "the server stopped before it listened" : nil) {
            task.cancel()
            throw WebDeskError("cannot serve the web desk on \(configuration.host):\(configuration.port): \(reason)")
        }
    }

    /// Stops listening, closes every page, and stops, within 5 s. Thread: control.
    public func stop() {
        guard let (task, group) = running.withLock({ running in defer { running = nil }; return running }) else { return }
        // The port is free when this returns, so a desk started next may take it at once
        // (the graceful shutdown below closes the listener in its own time).
        if let channel = listener.withLock({ channel in defer { channel = nil }; return channel }) {
            _ = try? channel.close().wait()
        }
        for channel in pages.withLock({ Array($0.values) }) { channel.close(promise: nil) }
        let done = DispatchSemaphore(value: 0)
        Task {
            await group.triggerGracefulShutdown()
            _ = await task.value
            done.signal()
        }
        if done.wait(timeout: .now() + 5) == .timedOut { task.cancel() }
    }

    private func makeApplication(onRunning: @escaping @Sendable (any Channel) -> Void) -> some ApplicationProtocol {
        let access = WebAccess(secret: secret)
        let router = WebRoutes(desk: self, access: access).router()
        var logger = Logger(label: "trellis.web")
        logger.logLevel = .warning
        let http1 = HTTP1Channel.Configuration(idleTimeout: .seconds(configuration.idleSeconds))
        let ws = WebSocketServerConfiguration(maxFrameSize: configuration.maximumMessageBytes, autoPing: .enabled(timePeriod: .seconds(15)),
                                              closeTimeout: .seconds(5), validateUTF8: true)
        let headSeconds = configuration.idleSeconds
        let peers = PeerConnectionLimit(limit: configuration.maximumConnectionsPerAddress)
        let server = HTTPServerBuilder { [self] responder in
            DeskChildChannel(
                inner: HTTP1WebSocketUpgradeChannel(responder: responder, configuration: .init(http1: http1, ws: ws)) { request, channel, _ in
                    self.upgrade(request, channel: channel, access: access)
                },
                headSeconds: headSeconds, peers: peers)
        }
        return Application(
            router: router,
            server: server,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "trellis",
                                 availableConnectionsDelegate: MaximumAvailableConnections(configuration.maximumConnections)),
            onServerRunning: { channel in onRunning(channel) },
            logger: logger)
    }

    /// Upgrades `/ws` for a page that shows the cookie (or the token) and comes from this
    /// desk's own page; anything else goes on to the router, which answers 401 or 403.
    private func upgrade(_ request: HTTPRequest, channel: any Channel, access: WebAccess)
        -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>>
    {
        guard let path = request.path, path == "/ws" || path.hasPrefix("/ws?") else { return .dontUpgrade }
        let token = URLComponents(string: path)?.queryItems?.first { $0.name == "token" }?.value
        guard access.hasCookie(request.headerFields) || token.map(access.tokenMatches) == true,
              WebAccess.originRefusal(request.headerFields, authority: request.authority) == nil
        else { return .dontUpgrade }
        let number = nextClient.add(1, ordering: .relaxed).oldValue
        let name = "web \(number)"
        let stalled = configuration.stalledSeconds, messageBytes = configuration.maximumMessageBytes
        return .upgrade([:]) { [self] inbound, outbound, _ in
            clientCount.add(1, ordering: .relaxed)
            pages.withLock { $0[number] = channel }
            let client = WebClient(name: name, socket: channel)
            meters.add(client, number: number)
            defer {
                meters.remove(number: number)
                pages.withLock { _ = $0.removeValue(forKey: number) }
                clientCount.subtract(1, ordering: .relaxed)
            }
            await WebSession(client: client, dispatcher: dispatcher, channel: channel, stalledSeconds: stalled,
                             maximumMessageBytes: messageBytes)
                .run(inbound: inbound, outbound: outbound)
        }
    }
}

/// Why the desk cannot be served. Thread: any.
public struct WebDeskError: Error, Sendable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
