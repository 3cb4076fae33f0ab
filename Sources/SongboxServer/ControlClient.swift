import Foundation

/// Where the daemon's control socket is: `$SONGBOX_SOCKET`, else
/// `$XDG_RUNTIME_DIR/songbox/control.sock`, else `/tmp/songbox-UID/control.sock`.
public func defaultControlSocketPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
    if let explicit = environment["SONGBOX_SOCKET"], !explicit.isEmpty { return explicit }
    if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty { return runtime + "/songbox/control.sock" }
    return "/tmp/songbox-\(getuid())/control.sock"
}

/// A blocking client of the control socket, for one-shot commands: connects, reads the greeting,
/// sends a command and reads its answer.
public final class ControlClient {
    private let socket: Int32
    private var pending: [UInt8] = []

    /// Connects to the daemon on `path`; throws when none answers there.
    public init(path: String = defaultControlSocketPath()) throws {
        socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
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
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard let greeting = try readLine(), greeting.hasPrefix("OK MPD ") else {
            Glibc.close(socket)
            throw DaemonError("what answers on \(path) is not a songbox daemon")
        }
    }

    deinit { Glibc.close(socket) }

    /// Sends `command` with `arguments` (quoted as needed) and returns the answer's fields;
    /// an `ACK` becomes a `DaemonError` with its message.
    public func send(_ command: String, _ arguments: [String] = []) throws -> [(String, String)] {
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
                throw DaemonError(message)
            }
            guard let colon = reply.range(of: ": ") else { continue }
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
