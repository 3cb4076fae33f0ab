import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Synchronization

/// What every request passes before it reaches a page or the API: the `Host` it names (DNS
/// rebinding), the `Origin` of a call that changes something (CSRF), the login when there is a
/// password; and the headers every answer carries (a Content-Security-Policy with no inline
/// script, no framing, no sniffing).
struct WebGuard<Context: RequestContext>: RouterMiddleware {
    let configuration: WebConfiguration
    let sessions: Sessions

    /// Scripts, styles and connections from the box itself only; no inline script or style, no
    /// plugins, no framing by another page.
    static var securityHeaders: HTTPFields {
        [
            .contentSecurityPolicy: "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                + "connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
            .xContentTypeOptions: "nosniff",
            HTTPField.Name("Referrer-Policy")!: "no-referrer",
            HTTPField.Name("X-Frame-Options")!: "DENY",
        ]
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await check(request, context: context, next: next)
        response.headers.append(contentsOf: Self.securityHeaders)
        return response
    }

    private func check(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let host = request.head.authority, allows(host: host) else {
            return WebAnswer.error(.misdirectedRequest, code: "host", "this server does not answer to that host name",
                                   hint: "open it by its address, or name the host with http_host in the config")
        }
        if !Self.isSafe(request.method) {
            // A browser names the page a call comes from; one from another site is refused.
            if let origin = request.headers[.origin], origin != "http://" + host {
                return WebAnswer.error(.forbidden, code: "origin", "a call from another site (\(origin)) is refused")
            }
            // A form of another site cannot send JSON without the browser asking first. A call
            // with no body (`next`) needs no type.
            let type = request.headers[.contentType]
            let hasBody = type != nil || request.headers[.transferEncoding] != nil || (request.headers[.contentLength] ?? "0") != "0"
            if request.uri.path.hasPrefix("/api/"), hasBody, !(type ?? "").hasPrefix("application/json") {
                return WebAnswer.error(.unsupportedMediaType, code: "content-type", "the API takes JSON (Content-Type: application/json)")
            }
        }
        guard let password = configuration.password, !password.isEmpty, !Self.open(request.uri.path) else {
            return try await next(request, context)
        }
        if sessions.valid(Sessions.cookie(in: request.headers[.cookie])) || bearerMatches(request, password) {
            return try await next(request, context)
        }
        if request.uri.path.hasPrefix("/api/") {
            return WebAnswer.error(.unauthorized, code: "login", "log in first", hint: "POST /api/login with the password")
        }
        return Response(status: .seeOther, headers: [.location: "/login"])
    }

    /// `Authorization: Bearer PASSWORD` (Home Assistant's REST calls), checked as the login is:
    /// rate-limited, compared in constant time.
    private func bearerMatches(_ request: Request, _ password: String) -> Bool {
        guard let value = request.headers[.authorization], value.hasPrefix("Bearer ") else { return false }
        return sessions.attempt(String(value.dropFirst(7)), against: password) == .accepted
    }

    /// What may be seen without logging in: the login page and what it needs.
    static func open(_ path: String) -> Bool {
        ["/login", "/login.html", "/login.js", "/i18n.js", "/style.css", "/icon.svg", "/api/login", "/api/messages"].contains(path)
    }

    static func isSafe(_ method: HTTPRequest.Method) -> Bool { method == .get || method == .head }

    /// The loopback names, IP addresses (a rebinding needs a name), the bound host and the
    /// configured names, each with the port or without.
    func allows(host authority: String) -> Bool {
        var name = authority.lowercased()
        if name.hasPrefix("["), let end = name.firstIndex(of: "]") {
            name = String(name[name.index(after: name.startIndex)..<end])
            return name.contains(":")
        }
        if let colon = name.lastIndex(of: ":") { name = String(name[..<colon]) }
        if name == "localhost" || name == configuration.host.lowercased() { return true }
        if configuration.hostNames.contains(where: { $0.lowercased() == name }) { return true }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { UInt8($0) != nil }
    }
}

/// The logged-in browsers: a random token each, in an `HttpOnly; SameSite=Strict` cookie; kept
/// in memory (a restart logs everyone out), the newest `most` only. Login attempts are
/// rate-limited: a burst of `burst`, then one each `interval` seconds, for all clients together.
final class Sessions: Sendable {
    static let cookieName = "songbox_session"
    static let most = 64, burst = 5.0, interval = 10.0

    private struct State {
        var tokens: [String] = []
        var allowance = Sessions.burst
        var last: Double
    }
    private let state: Mutex<State>
    private let now: @Sendable () -> Double

    init(now: @escaping @Sendable () -> Double) {
        self.now = now
        state = Mutex(State(last: now()))
    }

    enum Attempt: Equatable { case accepted, refused, tooMany }

    /// Compares `given` with `password` in constant time, after the rate limit.
    func attempt(_ given: String, against password: String) -> Attempt {
        let allowed = state.withLock { state in
            let time = now()
            state.allowance = min(Self.burst, state.allowance + (time - state.last) / Self.interval)
            state.last = time
            guard state.allowance >= 1 else { return false }
            state.allowance -= 1
            return true
        }
        guard allowed else { return .tooMany }
        // Equal-length digests, every byte compared.
        let a = Array(SHA256.hash(data: Data(given.utf8))), b = Array(SHA256.hash(data: Data(password.utf8)))
        let difference = zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) }
        guard difference == 0 else { return .refused }
        // A good password gives its attempt back.
        state.withLock { $0.allowance = min(Self.burst, $0.allowance + 1) }
        return .accepted
    }

    /// A new session's token.
    func open() -> String {
        var generator = SystemRandomNumberGenerator()
        let token = (0..<4).map { _ in String(format: "%016llx", generator.next() as UInt64) }.joined()
        state.withLock { $0.tokens = Array(($0.tokens + [token]).suffix(Self.most)) }
        return token
    }

    func close(_ token: String?) {
        guard let token else { return }
        state.withLock { $0.tokens.removeAll { $0 == token } }
    }

    func valid(_ token: String?) -> Bool {
        guard let token, token.count == 64 else { return false }
        return state.withLock { $0.tokens.contains(token) }
    }

    /// The session token of a `Cookie` header.
    static func cookie(in header: String?) -> String? {
        guard let header else { return nil }
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == cookieName { return String(parts[1]) }
        }
        return nil
    }

    static func setCookie(_ token: String, maxAge: Int = 30 * 86_400) -> String {
        "\(cookieName)=\(token); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Strict"
    }
}
