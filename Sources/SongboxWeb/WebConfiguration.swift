import SongboxMessages
import SongboxServer

/// Where the web app listens and who may use it: `http = HOST:PORT` (or `none`), `http_password`,
/// `http_host` in the config; `--http` on the command line.
public struct WebConfiguration: Sendable {
    public var host: String
    public var port: Int
    /// The password of the login page; nil: none (allowed on a loopback address only).
    public var password: String?
    /// Names a browser may reach the box by (`http_host = songbox.local`) beside the loopback
    /// names and any IP address: a request naming another `Host` is refused (DNS rebinding).
    public var hostNames: [String]

    /// The default: loopback only, as the MPD port.
    public static let defaultAddress = "127.0.0.1:8680"

    public init(host: String = "127.0.0.1", port: Int = 8680, password: String? = nil, hostNames: [String] = []) {
        self.host = host
        self.port = port
        self.password = password
        self.hostNames = hostNames
    }

    /// `HOST:PORT` or `[V6]:PORT`, as `bind` takes it.
    public init(address: String, password: String? = nil, hostNames: [String] = []) throws(DaemonError) {
        guard case .tcp(let host, let port) = try? MPDEndpoint(parsing: address) else {
            throw DaemonError("the web app's address is HOST:PORT (e.g. 127.0.0.1:8680) or none, got '\(address)'")
        }
        self.init(host: host, port: port, password: password, hostNames: hostNames)
    }

    /// Whether only this machine reaches the address.
    public var isLoopback: Bool { Self.isLoopback(host) }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// Refuses an address beyond this machine without a password: anyone on the network could
    /// drive the player (and the plugins' admin).
    public func check() throws(DaemonError) {
        guard isLoopback || !(password ?? "").isEmpty else {
            throw DaemonError("the web app would listen on \(host):\(port), beyond this machine, with no password",
                              hint: "set http_password = SECRET in the config, or http = 127.0.0.1:8680 (or none)")
        }
    }
}
