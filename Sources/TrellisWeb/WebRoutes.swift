import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TrellisControl

/// A request's context: the peer's address, for slowing down token guessers.
struct DeskRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let peerAddress: String

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peerAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }
}

/// What the desk serves over HTTP: the page and its assets, the recorders' takes (with
/// range requests), and the answers to everyone without the cookie. Every response
/// carries a Content-Security-Policy that allows nothing from elsewhere.
///
/// Thread: SwiftNIO's event loops.
struct WebRoutes: Sendable {
    let desk: WebDesk
    let access: WebAccess
    let throttle = LoginThrottle()

    func router() -> Router<DeskRequestContext> {
        let router = Router(context: DeskRequestContext.self)
        router.middlewares.add(SecurityHeaders())
        router.get("/") { request, context in try await index(request, context) }
        router.get("/assets/:name") { request, context in try asset(request, context) }
        router.get("/takes/:name") { request, context in try await take(request, context) }
        router.get("/ws") { request, _ -> Response in
            // The upgrade was refused: say why, and change nothing.
            if let refusal = WebAccess.originRefusal(request.headers, authority: request.head.authority) {
                return Self.page(.forbidden, "Refused", refusal)
            }
            guard access.hasCookie(request.headers) else { return Self.unauthorized }
            return Self.page(.badRequest, "Not a WebSocket", "/ws takes a WebSocket upgrade only")
        }
        return router
    }

    private func index(_ request: Request, _ context: DeskRequestContext) async throws -> Response {
        if let token = request.uri.queryParameters.get("token") {
            guard access.tokenMatches(token) else {
                try? await Task.sleep(for: throttle.failed(context.peerAddress))
                return Self.page(.unauthorized, "Wrong token", "This token does not open this session's desk. Open the URL trellis run printed, or ask trellis ctl NAME web for it.")
            }
            throttle.succeeded(context.peerAddress)
            // The cookie replaces the token, and the token leaves the address bar.
            return Response(status: .seeOther, headers: [.location: "/", .setCookie: access.setCookie])
        }
        guard access.hasCookie(request.headers) else { return Self.unauthorized }
        return try asset(named: "index.html")
    }

    private func asset(_ request: Request, _ context: DeskRequestContext) throws -> Response {
        guard access.hasCookie(request.headers) else { return Self.unauthorized }
        return try asset(named: context.parameters.get("name") ?? "")
    }

    private func asset(named name: String) throws -> Response {
        guard let asset = WebAssets.named(name) else { throw HTTPError(.notFound) }
        return Response(status: .ok, headers: [.contentType: asset.contentType, .cacheControl: "no-cache"],
                        body: .init(byteBuffer: ByteBuffer(bytes: asset.bytes)))
    }

    /// A take, by its file name, when it is one of the recorders' takes `takes` lists:
    /// no other file can be read this way. Range requests (RFC 9110) are answered 206.
    private func take(_ request: Request, _ context: DeskRequestContext) async throws -> Response {
        guard access.hasCookie(request.headers) else { return Self.unauthorized }
        let name = context.parameters.get("name") ?? ""
        let dispatcher = desk.dispatcher
        let reply = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: dispatcher.perform(.takes)) }
        }
        guard case .ok(_, .array(let takes)) = reply,
              case .string(let path)? = takes.first(where: { $0["name"] == .string(name) })?["file"]
        else { throw HTTPError(.notFound, message: "no take named \(name)") }
        var info = stat()
        guard stat(path, &info) == 0 else { throw HTTPError(.notFound, message: "the take \(name) is gone") }
        let size = Int(info.st_size)
        let type = WebAssets.audioType(of: name)
        let disposition = "attachment; filename=\"\(name.replacingOccurrences(of: "\"", with: ""))\""
        guard let header = request.headers[.range] else {
            // A take being recorded grows: serve the bytes the length promised.
            let body = size == 0 ? ResponseBody() : try await FileIO().loadFile(path: path, range: 0...(size - 1), context: context)
            return Response(status: .ok, headers: [.contentType: type, .contentLength: "\(size)", .acceptRanges: "bytes", .contentDisposition: disposition], body: body)
        }
        guard let range = Self.byteRange(header, size: size) else {
            return Response(status: .rangeNotSatisfiable, headers: [.contentRange: "bytes */\(size)"])
        }
        let body = try await FileIO().loadFile(path: path, range: range, context: context)
        return Response(status: .partialContent, headers: [
            .contentType: type, .contentLength: "\(range.count)", .acceptRanges: "bytes",
            .contentRange: "bytes \(range.lowerBound)-\(range.upperBound)/\(size)", .contentDisposition: disposition,
        ], body: body)
    }

    /// One range of `bytes=FIRST-LAST`, `bytes=FIRST-` or `bytes=-SUFFIX`; nil when it is
    /// malformed, asks for several ranges, or lies outside the file.
    static func byteRange(_ header: String, size: Int) -> ClosedRange<Int>? {
        guard header.hasPrefix("bytes="), size > 0 else { return nil }
        let spec = header.dropFirst(6).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return nil }
        let first = spec[..<dash], last = spec[spec.index(after: dash)...]
        if first.isEmpty {
            guard let suffix = Int(last), suffix > 0 else { return nil }
            return max(0, size - suffix)...(size - 1)
        }
        guard let start = Int(first), start >= 0, start < size else { return nil }
        if last.isEmpty { return start...(size - 1) }
        guard let end = Int(last), end >= start else { return nil }
        return start...min(end, size - 1)
    }

    static var unauthorized: Response {
        page(.unauthorized, "Sign in with the session's URL", "Open the URL trellis run printed (it ends in ?token=...), or ask trellis ctl NAME web for it.")
    }

    static func page(_ status: HTTPResponse.Status, _ title: String, _ text: String) -> Response {
        func escape(_ text: String) -> String {
            text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        }
        let html = "<!doctype html><meta charset=utf-8><title>\(escape(title))</title><h1>\(escape(title))</h1><p>\(escape(text))</p>\n"
        return Response(status: status, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}

/// Headers on every answer: nothing from elsewhere may load, no page may frame the desk,
/// and no browser may guess types or cache what the session says.
struct SecurityHeaders: RouterMiddleware {
    typealias Context = DeskRequestContext

    static let policy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; media-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do { response = try await next(request, context) } catch let error as HTTPError {
            response = WebRoutes.page(error.status, "\(error.status.code) \(error.status.reasonPhrase)", error.body ?? "")
        }
        response.headers[.contentSecurityPolicy] = Self.policy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        if response.headers[.cacheControl] == nil { response.headers[.cacheControl] = "no-store" }
        return response
    }
}
