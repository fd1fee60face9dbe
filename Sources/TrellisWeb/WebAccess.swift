import Foundation
import HTTPTypes
import Synchronization
import TrellisControl

/// Who may use the desk: whoever shows the session's login token once (in the URL
/// `trellis run` prints) gets a cookie, and every request after that shows the cookie.
/// A WebSocket upgrade must also come from the desk's own page (Origin matches Host),
/// so another site open in the same browser cannot drive the session.
///
/// Thread: any.
struct WebAccess: Sendable {
    let token: String
    let cookieValue: String
    /// Per session (cookies are per host, not per port), so two desks on one machine
    /// keep theirs apart.
    let cookieName: String

    init(secret: ControlSecret) {
        token = secret.webToken
        cookieValue = secret.webCookie
        cookieName = "trellis_" + secret.webCookie.prefix(8)
    }

    /// The `Set-Cookie` value given for a good token: not readable by scripts, sent only
    /// with the desk's own requests, for the session's life.
    var setCookie: String { "\(cookieName)=\(cookieValue); Path=/; HttpOnly; SameSite=Strict" }

    func tokenMatches(_ offered: String) -> Bool { ControlSecret(text: token).matches(offered) }

    /// True when the request's cookies hold the desk's.
    func hasCookie(_ fields: HTTPFields) -> Bool {
        for header in fields[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == cookieName else { continue }
                if ControlSecret(text: cookieValue).matches(parts[1].trimmingCharacters(in: .whitespaces)) { return true }
            }
        }
        return false
    }

    /// Why a WebSocket upgrade may not come from this request's page, or nil: a browser
    /// always sends Origin, and it must name the host the page was served from. A client
    /// that is not a browser (no Origin) shows the cookie or the token like any other.
    static func originRefusal(_ fields: HTTPFields, authority: String?) -> String? {
        guard let origin = fields[.origin] else { return nil }
        guard let authority, origin == "http://\(authority)" else {
            return "the request comes from the page of \(origin), not from this desk (\(authority ?? "no Host"))"
        }
        return nil
    }
}

/// Slows down whoever guesses tokens: after each wrong token from an address, its next
/// answer waits longer (100 ms doubling up to 5 s), so 64 hexadecimal digits stay
/// unguessable and a guesser cannot keep the desk busy. Thread: any.
final class LoginThrottle: Sendable {
    private let failures = Mutex<[String: (count: Int, last: ContinuousClock.Instant)]>([:])

    /// How long to wait before answering a wrong token from `address`.
    func failed(_ address: String) -> Duration {
        failures.withLock { table in
            let now = ContinuousClock.now
            // Forget addresses quiet for a minute, so the table stays small.
            if table.count > 1024 { table = table.filter { now - $0.value.last < .seconds(60) } }
            let count = (table[address]?.count ?? 0) + 1
            table[address] = (count, now)
            return .milliseconds(min(5_000, 100 << min(count - 1, 6)))
        }
    }

    func succeeded(_ address: String) {
        _ = failures.withLock { $0.removeValue(forKey: address) }
    }
}
