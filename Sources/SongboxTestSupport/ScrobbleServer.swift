import Foundation

/// The tests' ListenBrainz and Last.fm (`scrobble_server.py`) on a free loopback port: checks the
/// token header, the listens' JSON and Last.fm's signatures as the services do, and writes each
/// request and each listen it takes to a log that outlives a restart.
public final class ScrobbleServer: ServerProcess, @unchecked Sendable {
    public let port: Int
    public let logPath: String
    public static let token = "lb-test-token"
    public static let apiKey = "lastfm-test-key"
    public static let secret = "lastfm-test-secret"
    public static let session = "lastfm-test-session"

    /// Starts the server: on `port` (one a server here had, to come back there) or a free one.
    public init(folder: String, port: Int? = nil) throws {
        self.port = try port ?? freePort()
        logPath = folder + "/scrobble-server.log"
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path + "/scrobble_server.py"
        try super.init(folder: folder, executable: "/usr/bin/python3",
                       arguments: [script, String(self.port), logPath, Self.token, Self.apiKey, Self.secret, Self.session],
                       log: "scrobble-server-\(self.port).out")
        try waitUntilListening(self.port, "the scrobble server")
    }

    /// `http://127.0.0.1:PORT` and `path`.
    public func url(_ path: String = "") -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Every entry of the log, oldest first.
    public var entries: [[String: Any]] {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
    }

    /// The listens `service` took, oldest first.
    public func listens(_ service: String) -> [[String: Any]] {
        entries.filter { $0["kind"] as? String == "listen" && $0["service"] as? String == service }
    }

    public override var log: String {
        (try? String(contentsOfFile: folder + "/scrobble-server-\(port).out", encoding: .utf8)) ?? ""
    }
}
