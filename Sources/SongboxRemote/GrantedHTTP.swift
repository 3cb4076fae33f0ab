import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import SongboxAudio
import SongboxFiles
import Synchronization

/// The hosts one plugin may reach: the config's `net.NAME = api.listenbrainz.org,
/// ws.audioscrobbler.com`. Each entry is a host, HTTPS on 443 unless it says otherwise:
/// `host:8443` (HTTPS on that port), `http://host:port` (plain HTTP, only when written so).
/// A request, and every redirect it follows, must go to a scheme, host and port the grant names.
/// A name that resolves to a loopback or link-local address is refused unless the grant names
/// that address itself (`127.0.0.1`, `[::1]`, `localhost`): a public name cannot be pointed at
/// this machine's own services.
public struct NetworkGrant: Sendable, Hashable, CustomStringConvertible {
    public struct Host: Sendable, Hashable, CustomStringConvertible {
        public var scheme: String
        /// Lowercased; an IPv6 address without its brackets.
        public var host: String
        public var port: Int

        /// One entry of a grant; nil (and the reason in `problem`) when it is not one.
        public init?(_ entry: String) {
            guard Self.problem(entry) == nil, let url = Self.url(entry), let host = url.host else { return nil }
            scheme = url.scheme!.lowercased()
            self.host = Self.bare(host)
            port = url.port ?? (scheme == "https" ? 443 : 80)
        }

        /// The scheme, host and port of `url`.
        public init?(url: URL) {
            guard let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), let host = url.host, !host.isEmpty else { return nil }
            self.scheme = scheme
            self.host = Self.bare(host)
            port = url.port ?? (scheme == "https" ? 443 : 80)
        }

        /// Why `entry` is not a grant's host, nil when it is.
        public static func problem(_ entry: String) -> String? {
            guard !entry.isEmpty, !entry.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7f }) else {
                return "a host is empty, or holds spaces or control characters"
            }
            guard let url = url(entry), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
                  let host = url.host, !host.isEmpty else {
                return "'\(entry)' is not a host (such as api.listenbrainz.org, host:8443 or http://127.0.0.1:8080)"
            }
            guard url.user == nil, url.password == nil, url.path.isEmpty || url.path == "/", url.query == nil, url.fragment == nil else {
                return "'\(entry)' is more than a host: a grant names hosts, without a path, a query or a password"
            }
            return nil
        }

        private static func url(_ entry: String) -> URL? {
            URL(string: entry.contains("://") ? entry : "https://" + entry)
        }

        private static func bare(_ host: String) -> String {
            let lower = host.lowercased()
            return lower.hasPrefix("[") && lower.hasSuffix("]") ? String(lower.dropFirst().dropLast()) : lower
        }

        /// `localhost` or a loopback or link-local address written as such.
        var namesLocalAddress: Bool {
            if host == "localhost" { return true }
            var v4 = in_addr(), v6 = in6_addr()
            if inet_pton(AF_INET, host, &v4) == 1 {
                return HostAddress(family: .v4, bytes: withUnsafeBytes(of: v4) { Array($0) }).isLocalOnly
            }
            if inet_pton(AF_INET6, host, &v6) == 1 {
                return HostAddress(family: .v6, bytes: withUnsafeBytes(of: v6) { Array($0) }).isLocalOnly
            }
            return false
        }

        public var description: String {
            let shownHost = host.contains(":") ? "[\(host)]" : host
            if scheme == "https" { return port == 443 ? shownHost : "\(shownHost):\(port)" }
            return "http://\(shownHost):\(port)"
        }
    }

    public var hosts: [Host]

    public init(hosts: [Host]) { self.hosts = hosts }

    /// The entry that allows `url`, nil when none does.
    func host(for url: URL) -> Host? {
        guard let wanted = Host(url: url) else { return nil }
        return hosts.first { $0 == wanted }
    }

    public var description: String { hosts.map(\.description).joined(separator: ", ") }
}

/// One request a plugin makes (`songbox.http.request`), bounded: its time (`timeout`, the
/// whole request with its redirects) and the most bytes of the answer it takes (`maximumBody`).
public struct GrantedRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]?
    public var timeout: Double
    public var maximumBody: Int

    public init(method: String = "GET", url: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil,
                timeout: Double = 10, maximumBody: Int = 1 << 20) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.maximumBody = maximumBody
    }

    /// The methods a plugin may use.
    public static let methods: Set<String> = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"]
    /// Headers songbox writes itself (the framing of the request is not a plugin's to set).
    public static let reservedHeaders: Set<String> = ["host", "content-length", "transfer-encoding", "connection", "upgrade", "te", "trailer"]

    /// Why a header cannot be sent, nil when it can: a token for a name, no control character
    /// in a value (a line break would start a header of its own).
    public static func headerProblem(name: String, value: String) -> String? {
        let token = CharacterSet(charactersIn: "!#$%&'*+-.^_`|~").union(CharacterSet(charactersIn: "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"))
        guard !name.isEmpty, name.unicodeScalars.allSatisfy({ token.contains($0) }) else {
            return "a header name is letters, digits and !#$%&'*+-.^_`|~"
        }
        guard !reservedHeaders.contains(name.lowercased()) else { return "the header \(name) is songbox's to write" }
        guard !value.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7f }) else {
            return "the value of \(name) holds a control character"
        }
        return nil
    }
}

/// What the server answered: its status, its headers (names lowercased) and body, and the URL
/// that answered (after redirects).
public struct GrantedResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    public var url: String
}

/// HTTP for plugins with a network grant: songbox's one fetch path (the `FetchPolicy`: never
/// songbox's own ports), with the grant checked before every request and every redirect,
/// redirects followed here (at most `Fetch.redirectLimit`), the answer's body bounded, and the
/// whole request bounded in time. `perform` waits on the calling thread (a plugin's own), never
/// on the audio thread, and ends early when `cancelled` says so.
public final class GrantedHTTP: Sendable {
    let client: HTTPClient

    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
        init(_ message: String) { self.message = message }
    }

    /// `trusting`: a PEM file of more certificates to trust (`tls_certificates`).
    public init(trusting certificates: String? = nil) {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let certificates { tls.additionalTrustRoots = [.file(certificates)] }
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls, redirectConfiguration: .disallow,
                                                     timeout: .init(connect: .seconds(10), read: .seconds(30)))
        configuration.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    deinit { try? client.syncShutdown() }

    private static let made = Mutex<[String: GrantedHTTP]>([:])

    /// The one for `certificates`, made on first use and kept for the process.
    public static func shared(trusting certificates: String?) -> GrantedHTTP {
        made.withLock { made in
            if let known = made[certificates ?? ""] { return known }
            let http = GrantedHTTP(trusting: certificates)
            made[certificates ?? ""] = http
            return http
        }
    }

    /// Makes `request` within `grant`, waiting on this thread; polls `cancelled` while it waits.
    public func perform(_ request: GrantedRequest, grant: NetworkGrant,
                        cancelled: @escaping @Sendable () -> Bool = { false }) -> Result<GrantedResponse, Failure> {
        let outcome = Mutex<Result<GrantedResponse, Failure>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let task = Task {
            let result: Result<GrantedResponse, Failure>
            do { result = .success(try await run(request, grant: grant)) } catch let failure as Failure {
                result = .failure(failure)
            } catch {
                result = .failure(Failure(Self.words(for: error)))
            }
            outcome.withLock { $0 = result }
            done.signal()
        }
        // The client's deadline ends the request; this is the backstop should it not.
        let giveUp = MonotonicClock.seconds + request.timeout + 2
        while done.wait(timeout: .now() + .milliseconds(50)) == .timedOut {
            if cancelled() {
                task.cancel()
                return .failure(Failure("not finished: the plugin is stopping"))
            }
            if MonotonicClock.seconds > giveUp {
                task.cancel()
                return .failure(Failure("no answer within \(String(format: "%g", request.timeout)) s"))
            }
        }
        return outcome.withLock { $0 } ?? .failure(Failure("no answer"))
    }

    private func run(_ request: GrantedRequest, grant: NetworkGrant) async throws -> GrantedResponse {
        let deadline = NIODeadline.now() + .milliseconds(Int64(request.timeout * 1000))
        var current = try Self.parse(request.url)
        let first = current
        var method = request.method, body = request.body
        var seen: Set<String> = [current.absoluteString]
        var redirects = 0
        while true {
            try Self.check(current, grant: grant)
            var outgoing = HTTPClientRequest(url: current.absoluteString)
            outgoing.method = HTTPMethod(rawValue: method)
            outgoing.headers.add(name: "User-Agent", value: "songbox")
            let sameServer = current.host?.lowercased() == first.host?.lowercased() && current.port == first.port && current.scheme == first.scheme
            for (name, value) in request.headers {
                // Credentials go to the server they were written for, not to where it redirects.
                if !sameServer, ["authorization", "cookie"].contains(name.lowercased()) { continue }
                outgoing.headers.add(name: name, value: value)
            }
            if let body {
                outgoing.body = .bytes(ByteBuffer(bytes: body))
                outgoing.headers.replaceOrAdd(name: "Content-Length", value: String(body.count))
            }
            let response: HTTPClientResponse
            do { response = try await client.execute(outgoing, deadline: deadline) } catch {
                throw Failure("\(TrackLocation.shown(current.absoluteString)): \(Self.words(for: error))")
            }
            let code = Int(response.status.code)
            guard [301, 302, 303, 307, 308].contains(code) else {
                let bytes: ByteBuffer
                do {
                    bytes = method == "HEAD" ? ByteBuffer() : try await response.body.collect(upTo: request.maximumBody)
                } catch is NIOTooManyBytesError {
                    throw Failure("\(TrackLocation.shown(current.absoluteString)): the answer is longer than \(request.maximumBody) bytes (max_body)")
                } catch {
                    throw Failure("\(TrackLocation.shown(current.absoluteString)): \(Self.words(for: error))")
                }
                return GrantedResponse(status: code, headers: response.headers.map { ($0.name.lowercased(), $0.value) },
                                       body: Array(bytes.readableBytesView), url: current.absoluteString)
            }
            let next: URL
            do { next = try await Fetch.redirect(response, from: current, seen: &seen, redirects: &redirects) } catch {
                throw Failure("\(TrackLocation.shown(current.absoluteString)): \(error.reason)")
            }
            // 303, and 301/302 after a POST (as browsers do): the next request is a GET.
            if code == 303 || ((code == 301 || code == 302) && method == "POST") {
                method = method == "HEAD" ? "HEAD" : "GET"
                body = nil
            }
            current = try Self.parse(next.absoluteString)
        }
    }

    /// `url` as songbox asks for it: http(s), a host, no spaces or control characters.
    static func parse(_ url: String) throws(Failure) -> URL {
        do { return try NetworkTracks.parse(url) } catch {
            throw Failure("\(TrackLocation.shown(url)): not an http:// or https:// URL songbox can ask for")
        }
    }

    /// Refuses `url` unless the grant names its scheme, host and port, and it leads neither to
    /// songbox's own ports nor, for a name, to a local address the grant does not name.
    static func check(_ url: URL, grant: NetworkGrant) throws(Failure) {
        let shown = TrackLocation.shown(url.absoluteString)
        guard let entry = grant.host(for: url) else {
            let asked = NetworkGrant.Host(url: url).map(\.description) ?? shown
            throw Failure("\(shown): \(asked) is not granted to this plugin (its grant: \(grant))")
        }
        do { try FetchPolicy(allowLocalFromElsewhere: true).check(url, origin: nil) } catch {
            throw Failure("\(shown): \(error.reason)")
        }
        if !entry.namesLocalAddress, let local = HostAddress.resolve(entry.host).first(where: \.isLocalOnly) {
            throw Failure("\(shown): \(entry.host) resolves to a local address (\(local.text)); grant that address itself to reach it")
        }
    }

    static func words(for error: any Error) -> String {
        if let client = error as? HTTPClientError {
            switch client {
            case .deadlineExceeded, .readTimeout, .connectTimeout: return "no answer in time"
            case .remoteConnectionClosed: return "the server closed the connection"
            case .cancelled: return "cancelled"
            default: break
            }
        }
        if error is CancellationError { return "cancelled" }
        return String(describing: error)
    }
}

extension HTTPAudioSource.Stop {
    /// What a stop says, for a plugin's message.
    var reason: String {
        switch self {
        case .failed(let reason), .dropped(let reason): reason
        case .playlist, .hls: "the answer was a playlist"
        }
    }
}
