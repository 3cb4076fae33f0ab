import Foundation
import SongboxMessages

/// Where the daemon puts its control socket when none is named: `$SONGBOX_SOCKET`, else
/// `$XDG_RUNTIME_DIR/songbox/control.sock`, else `/tmp/songbox-UID/control.sock` (its folder
/// checked before use: `RuntimeFolder`).
public func defaultControlSocketPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
    if let explicit = environment["SONGBOX_SOCKET"], !explicit.isEmpty { return explicit }
    if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty { return runtime + "/songbox/control.sock" }
    return "/tmp/songbox-\(getuid())/control.sock"
}

/// A blocking client of the control socket, for one-shot commands: connects, reads the greeting,
/// sends a command and reads its answer.
public final class ControlClient {
    private let socket: Int32
    /// Where the daemon answered: its socket's path, or host:port. A command that changes state
    /// names it, so the user knows which daemon took the change.
    public let name: String
    private var pending: [UInt8] = []

    /// Connects to the daemon that serves the library at `database` (found through the library:
    /// `LibraryDaemon`), or the one `$SONGBOX_SOCKET` names; throws when none answers.
    public convenience init(serving database: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard let socket = Self.socket(serving: database, environment: environment) else {
            throw DaemonError("no songbox daemon serves the library \(database)",
                              hint: "start one with `songbox daemon` (with the same --db), or name a server with --host")
        }
        try self.init(path: socket)
    }

    /// The socket of the daemon serving the library at `database` (or `$SONGBOX_SOCKET`); nil
    /// when no daemon serves it.
    public static func socket(serving database: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let named = environment["SONGBOX_SOCKET"], !named.isEmpty { return named }
        return LibraryDaemon.socket(serving: database)
    }

    /// Connects to the daemon on `path`; throws when none answers there.
    public convenience init(path: String) throws {
        let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw DaemonError("cannot make a socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            Glibc.close(socket)
            throw DaemonError("the socket path is too long: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(socket)
            throw DaemonError("no songbox daemon answers on \(path): \(reason)")
        }
        try self.init(connected: socket, name: path)
    }

    /// Connects to an MPD server (songbox's daemon or MPD itself) at `host`:`port`.
    public convenience init(host: String, port: Int) throws {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let first = found else {
            throw DaemonError("cannot find the host \(host)")
        }
        defer { freeaddrinfo(found) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        var lastError = "no address"
        while let candidate = entry {
            let socket = Glibc.socket(candidate.pointee.ai_family, candidate.pointee.ai_socktype, candidate.pointee.ai_protocol)
            if socket >= 0, connect(socket, candidate.pointee.ai_addr, candidate.pointee.ai_addrlen) == 0 {
                try self.init(connected: socket, name: "\(host):\(port)")
                return
            }
            lastError = String(cString: strerror(errno))
            if socket >= 0 { Glibc.close(socket) }
            entry = candidate.pointee.ai_next
        }
        throw DaemonError("no MPD server answers on \(host):\(port): \(lastError)")
    }

    /// Where `songbox status`, `next`, ... connect, as mpc does: `host` (or `$MPD_HOST`; a path
    /// is a socket; `password@host` sends the password first) and `port` (or `$MPD_PORT`, else 6600).
    /// With neither, the daemon of the library at `database`, and nothing else: a command is
    /// never sent to a port the user did not name.
    public static func reach(host: String?, port: Int?, database: String,
                             environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ControlClient {
        var host = host ?? environment["MPD_HOST"].flatMap { $0.isEmpty ? nil : $0 }
        var password: String?
        if let named = host, let at = named.lastIndex(of: "@") {
            password = String(named[..<at])
            host = String(named[named.index(after: at)...])
        }
        let port = port ?? environment["MPD_PORT"].flatMap { Int($0) }
        let client: ControlClient
        if let host, host.hasPrefix("/") {
            client = try ControlClient(path: host)
        } else if host == nil, port == nil {
            client = try ControlClient(serving: database, environment: environment)
        } else {
            client = try ControlClient(host: host ?? "127.0.0.1", port: port ?? 6600)
        }
        if let password { _ = try client.send("password", [password]) }
        return client
    }

    private init(connected socket: Int32, name: String) throws {
        self.socket = socket
        self.name = name
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard let greeting = try readLine(), greeting.hasPrefix("OK MPD ") else {
            throw DaemonError("what answers on \(name) is not a songbox daemon or an MPD server")
        }
    }

    deinit { Glibc.close(socket) }

    /// Sends `command` with `arguments` (quoted as needed) and returns the answer's fields;
    /// an `ACK` becomes a `DaemonError` with its message. An answer of more than `most` fields
    /// throws `AnswerTooLong`, read no further (the connection is of no more use).
    public func send(_ command: String, _ arguments: [String] = [], most: Int = .max) throws -> [(String, String)] {
        let line = ([command] + arguments.map(MPDProtocol.quote)).joined(separator: " ") + "\n"
        let data = Array(line.utf8)
        var sent = 0
        while sent < data.count {
            let count = data[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw DaemonError("the daemon closed the connection") }
            sent += count
        }
        var fields: [(String, String)] = []
        while let reply = try readLine() {
            if reply == "OK" { return fields }
            if reply.hasPrefix("ACK ") {
                let message = reply.range(of: "} ").map { String(reply[$0.upperBound...]) } ?? reply
                throw DaemonError(Message(verbatim: message))
            }
            guard let colon = reply.range(of: ": ") else { continue }
            guard fields.count < most else { throw AnswerTooLong(command: command, most: most) }
            fields.append((String(reply[..<colon.lowerBound]), String(reply[colon.upperBound...])))
        }
        throw DaemonError("the daemon closed the connection before answering")
    }

    private func readLine() throws -> String? {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count < 0 { throw DaemonError("no answer from the daemon: \(String(cString: strerror(errno)))") }
            if count == 0 { return nil }
            pending += chunk[..<count]
        }
    }
}

/// An answer longer than the caller would take (`ControlClient.send(_:_:most:)`).
public struct AnswerTooLong: Error, Sendable {
    public let command: String
    public let most: Int
}
