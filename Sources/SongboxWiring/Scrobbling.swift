import Foundation
import SongboxLibrary
import SongboxMessages
import SongboxRemote

/// What `songbox scrobble` reads and writes of the bundled `plugins/scrobble.lua`: its options
/// (`plugin.scrobble.*`), its queue in `songbox.state` (`plugin:scrobble:listen:N`, one a listen;
/// `sent:SERVICE`, the last a service took) and the Last.fm session it signs with.
public struct Scrobbling {
    public static let stateKey = "plugin:scrobble:"
    public static let services = ["listenbrainz", "lastfm"]

    public let config: SongboxConfig
    public let store: LibraryStore

    public init(config: SongboxConfig, store: LibraryStore) {
        self.config = config
        self.store = store
    }

    var options: [String: String] { config.pluginOptions["scrobble"] ?? [:] }

    /// The services the config sets up, in the plugin's order.
    public var configured: [String] {
        var services: [String] = []
        if options["listenbrainz_token"]?.isEmpty == false { services.append("listenbrainz") }
        if options["lastfm_key"]?.isEmpty == false, options["lastfm_secret"]?.isEmpty == false { services.append("lastfm") }
        return services
    }

    /// Whether the config grants the plugin any host.
    public var granted: Bool { config.networkGrants["scrobble"]?.hosts.isEmpty == false }

    /// The listens `service` has not taken yet (none before the plugin first ran with it: a
    /// service set up later starts with the listens from then on).
    public func waiting(_ service: String) throws(SongboxError) -> Int {
        guard let sent = try number(Self.stateKey + "sent:" + service) else { return 0 }
        return try store.state.names(prefix: Self.stateKey + "listen:").count {
            (Int($0.dropFirst(Self.stateKey.count + "listen:".count)) ?? 0) > sent
        }
    }

    /// The Last.fm user the kept session is of, nil when there is none.
    public func lastFMUser() throws(SongboxError) -> String? {
        guard let data = try store.state.saved(Self.stateKey + "lastfm_session"),
              let session = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any], session["key"] is String else { return nil }
        return session["name"] as? String ?? ""
    }

    private func number(_ name: String) throws(SongboxError) -> Int? {
        try store.state.saved(name).flatMap { Int(String(decoding: $0, as: UTF8.self)) }
    }

    /// Keeps the session the plugin signs Last.fm's requests with.
    public func keepLastFMSession(key: String, user: String) throws {
        let data = try JSONSerialization.data(withJSONObject: ["key": key, "name": user], options: [.sortedKeys])
        try store.state.save(data, as: Self.stateKey + "lastfm_session")
    }
}

/// Last.fm's web authentication for a desktop application (https://www.last.fm/api/desktopauth):
/// a token (`auth.getToken`), which the user allows in a browser, then the session it becomes
/// (`auth.getSession`), kept for good. Every call is signed as the plugin signs its own.
public struct LastFMLogin {
    let key: String
    let secret: String
    let endpoint: String
    let grant: NetworkGrant
    let certificates: String?

    /// From the config's `plugin.scrobble.lastfm_key`, `lastfm_secret` and `lastfm_url`.
    public init(config: SongboxConfig) throws(SongboxError) {
        let options = config.pluginOptions["scrobble"] ?? [:]
        guard let key = options["lastfm_key"], !key.isEmpty, let secret = options["lastfm_secret"], !secret.isEmpty else {
            throw SongboxError(.invalidArgument, "Last.fm needs an API account first: plugin.scrobble.lastfm_key and plugin.scrobble.lastfm_secret in the config",
                               hint: "make one at https://www.last.fm/api/account/create (see docs/scrobbling.md)")
        }
        let endpoint = options["lastfm_url"] ?? "https://ws.audioscrobbler.com/2.0/"
        guard let url = URL(string: endpoint), let entry = NetworkGrant.Host(url: url) else {
            throw SongboxError(.invalidArgument, "plugin.scrobble.lastfm_url is not an http:// or https:// URL: \(endpoint)")
        }
        self.key = key
        self.secret = secret
        self.endpoint = endpoint
        grant = NetworkGrant(hosts: [entry])
        certificates = config.tlsCertificates
    }

    /// Last.fm's `api_sig`: the MD5 of the parameters sorted by name, each name then its
    /// value, then the secret (`format` and `callback` are not signed).
    public static func signature(_ parameters: [String: String], secret: String) -> String {
        let signed = parameters.filter { $0.key != "format" && $0.key != "callback" }.sorted { $0.key < $1.key }
        return MD5.hex(Array((signed.map { $0.key + $0.value }.joined() + secret).utf8))
    }

    /// An answer of Last.fm: its JSON, or its error code and message.
    enum Answer {
        case success([String: Any])
        case failure(code: Int, message: String)
    }

    func call(_ method: String, _ extra: [String: String] = [:]) throws(SongboxError) -> Answer {
        var parameters = extra
        parameters["method"] = method
        parameters["api_key"] = key
        parameters["api_sig"] = Self.signature(parameters, secret: secret)
        parameters["format"] = "json"
        let body = parameters.sorted { $0.key < $1.key }.map { name, value in
            "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? "")"
        }.joined(separator: "&")
        let request = GrantedRequest(method: "POST", url: endpoint, headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                     body: Array(body.utf8), timeout: 20, maximumBody: 1 << 20)
        switch GrantedHTTP.shared(trusting: certificates).perform(request, grant: grant) {
        case .failure(let failure):
            throw SongboxError(.networkFailed, "cannot reach Last.fm: \(Message(verbatim: failure.message))")
        case .success(let response):
            guard let json = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] else {
                throw SongboxError(.networkFailed, "Last.fm answered \(response.status) with no JSON")
            }
            if let code = json["error"] as? Int { return .failure(code: code, message: json["message"] as? String ?? "") }
            return .success(json)
        }
    }

    /// What a form or a query keeps as it is (RFC 3986's unreserved characters, ASCII only).
    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// A token for the user to allow (`auth.getToken`).
    public func token() throws(SongboxError) -> String {
        switch try call("auth.getToken") {
        case .success(let json):
            guard let token = json["token"] as? String, !token.isEmpty else { throw SongboxError(.networkFailed, "Last.fm gave no token") }
            return token
        case .failure(let code, let message):
            throw SongboxError(.networkFailed, "Last.fm refused: error \(code), \(Message(verbatim: message))")
        }
    }

    /// Where the user allows songbox: Last.fm's page for the token.
    public func authorizationURL(token: String) -> String {
        let encode = { (text: String) in text.addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? "" }
        return "https://www.last.fm/api/auth/?api_key=\(encode(key))&token=\(encode(token))"
    }

    /// The session for an allowed token, as (key, user); nil while the user has not allowed it
    /// yet (error 14).
    public func session(token: String) throws(SongboxError) -> (key: String, user: String)? {
        switch try call("auth.getSession", ["token": token]) {
        case .success(let json):
            guard let session = json["session"] as? [String: Any], let key = session["key"] as? String else {
                throw SongboxError(.networkFailed, "Last.fm gave no session")
            }
            return (key, session["name"] as? String ?? "")
        case .failure(14, _):
            return nil
        case .failure(let code, let message):
            throw SongboxError(.networkFailed, "Last.fm refused: error \(code), \(Message(verbatim: message))")
        }
    }
}
