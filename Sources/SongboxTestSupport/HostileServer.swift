import Foundation

/// The tests' hostile server (`hostile_http.py`): a server that stalls after its headers,
/// redirects for ever or to `file://`, wants a password, or is no web server at all but an MPD
/// (`impersonatingMPD`). Every request's bytes are kept, for a test to see what songbox sent.
public final class HostileServer: ServerProcess, @unchecked Sendable {
    public let port: Int
    private let requestsPath: String

    public init(folder: String, file: String, impersonatingMPD: Bool = false) throws {
        port = try freePort()
        requestsPath = folder + "/requests-\(port).log"
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path + "/hostile_http.py"
        try super.init(folder: folder, executable: "/usr/bin/python3",
                       arguments: [script, String(port), requestsPath, file] + (impersonatingMPD ? ["--mpd"] : []),
                       log: "hostile-\(port).out")
        try waitUntilListening(port, "the hostile server")
    }

    /// `http://127.0.0.1:PORT` and `path`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Every byte songbox sent it, requests apart by `----` lines.
    public var requests: String {
        (try? String(contentsOfFile: requestsPath, encoding: .isoLatin1)) ?? ""
    }
}
