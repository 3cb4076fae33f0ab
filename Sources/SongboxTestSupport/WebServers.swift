import Foundation

/// A port nothing listens on now (the kernel's choice for a socket bound to port 0).
public func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw FixtureError("no socket: \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard bound else { throw FixtureError("no free port: \(String(cString: strerror(errno)))") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// A server process of a test, started from Debian's package with a config of the test's own
/// (`scripts/install-deps.sh --test` installs them); its output goes to files, never to the
/// test's pipes, and it is killed when the test lets go of it.
public class ServerProcess: @unchecked Sendable {
    let process = Process()
    public let folder: String

    init(folder: String, executable: String, arguments: [String], log: String) throws {
        self.folder = folder
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        _ = FileManager.default.createFile(atPath: folder + "/" + log, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: folder + "/" + log))
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    deinit { stop() }

    public var isRunning: Bool { process.isRunning }

    /// Ends the server at once (SIGKILL: a server that dies mid-answer).
    public func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Waits until something accepts connections on `port`.
    func waitUntilListening(_ port: Int, _ what: String) throws {
        try waitFor(timeout: 20, "\(what) to listen on \(port)") {
            guard self.process.isRunning else { throw FixtureError("\(what) ended: \(self.log)") }
            return Self.accepts(port)
        }
    }

    public var log: String { "" }

    static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}

/// nginx serving the files of `root` over HTTP and HTTPS (with range requests, as for any
/// static file), with the places the faults of remote tracks need:
/// - `/files/NAME`: the file; `/slow/NAME`: the same at `slowRate` bytes a second;
/// - `/moved/NAME`: a redirect to `/files/NAME`; `/loop/NAME`: redirects that go round;
/// - `/missing/NAME`: 404.
/// Its certificate is signed by a CA of the test's own (`certificateAuthority`, a PEM file),
/// which nothing trusts unless told to.
public final class NginxServer: ServerProcess, @unchecked Sendable {
    public let port: Int
    public let tlsPort: Int
    public let certificateAuthority: String

    public init(root: String, folder: String, slowRate: Int = 8_000, restartingOn port: Int? = nil) throws {
        self.port = try port ?? freePort()
        tlsPort = try freePort()
        certificateAuthority = folder + "/ca.pem"
        if !FileManager.default.fileExists(atPath: folder + "/server.pem") { try Self.makeCertificates(in: folder) }
        for temp in ["body", "proxy", "fastcgi", "uwsgi", "scgi"] {
            try FileManager.default.createDirectory(atPath: folder + "/temp/" + temp, withIntermediateDirectories: true)
        }
        let config = """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(folder)/nginx.pid;
            error_log \(folder)/error.log;
            events { worker_connections 64; }
            http {
                log_format ranges '$request_uri "$http_range" $status';
                access_log \(folder)/access.log ranges;
                client_body_temp_path \(folder)/temp/body;
                proxy_temp_path \(folder)/temp/proxy;
                fastcgi_temp_path \(folder)/temp/fastcgi;
                uwsgi_temp_path \(folder)/temp/uwsgi;
                scgi_temp_path \(folder)/temp/scgi;
                types { audio/mpeg mp3; text/html html; audio/x-scpls pls; audio/x-mpegurl m3u; application/vnd.apple.mpegurl m3u8; }
                default_type application/octet-stream;
                server {
                    listen 127.0.0.1:\(self.port);
                    listen 127.0.0.1:\(tlsPort) ssl;
                    ssl_certificate \(folder)/server.pem;
                    ssl_certificate_key \(folder)/server.key;
                    location /files/ { alias \(root)/; }
                    location /slow/ { alias \(root)/; limit_rate \(slowRate); }
                    location /moved/ { rewrite ^/moved/(.*)$ /files/$1 redirect; }
                    location /loop/ { rewrite ^/loop/(.*)$ /loop2/$1 redirect; }
                    location /loop2/ { rewrite ^/loop2/(.*)$ /loop/$1 redirect; }
                    location /missing/ { return 404; }
                    location /busy/ { return 503; }
                }
            }
            """
        try config.write(toFile: folder + "/nginx.conf", atomically: true, encoding: .utf8)
        try super.init(folder: folder, executable: "/usr/sbin/nginx",
                       arguments: ["-p", folder, "-c", folder + "/nginx.conf", "-e", folder + "/error.log"], log: "nginx.out")
        try waitUntilListening(self.port, "nginx")
        try waitUntilListening(tlsPort, "nginx")
    }

    /// What was asked for, a line a request: `URI "RANGE" STATUS`.
    public var accessLog: String { (try? String(contentsOfFile: folder + "/access.log", encoding: .utf8)) ?? "" }

    /// A URL of this server: `/files/NAME` and the like, over TLS when `tls`.
    public func url(_ path: String, tls: Bool = false) -> String {
        tls ? "https://localhost:\(tlsPort)\(path)" : "http://127.0.0.1:\(port)\(path)"
    }

    public override var log: String {
        ((try? String(contentsOfFile: folder + "/error.log", encoding: .utf8)) ?? "")
            + ((try? String(contentsOfFile: folder + "/nginx.out", encoding: .utf8)) ?? "")
    }

    /// A CA and a certificate it signs for 127.0.0.1 and localhost (EC keys: quick to make).
    private static func makeCertificates(in folder: String) throws {
        let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try AudioFixtures.run("openssl", ["req", "-x509"] + curve + ["-keyout", folder + "/ca.key", "-out", folder + "/ca.pem",
                                          "-days", "2", "-subj", "/CN=songbox test CA"])
        try AudioFixtures.run("openssl", ["req"] + curve + ["-keyout", folder + "/server.key", "-out", folder + "/server.csr",
                                          "-subj", "/CN=localhost"])
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\n".write(toFile: folder + "/san.ext", atomically: true, encoding: .utf8)
        try AudioFixtures.run("openssl", ["x509", "-req", "-in", folder + "/server.csr", "-CA", folder + "/ca.pem",
                                          "-CAkey", folder + "/ca.key", "-CAcreateserial", "-out", folder + "/server.pem",
                                          "-days", "2", "-extfile", folder + "/san.ext"])
    }
}

/// Icecast 2 on a free port, and its sources: a live MP3 stream with ICY titles, as a radio
/// station sends it.
public final class IcecastServer: ServerProcess, @unchecked Sendable {
    public let port: Int

    public init(folder: String) throws {
        port = try freePort()
        let logs = folder + "/icecast-log"
        try FileManager.default.createDirectory(atPath: logs, withIntermediateDirectories: true)
        // Icecast will not run as root: it becomes `nobody`, who must be able to write its logs.
        chmod(logs, 0o777)
        let config = """
            <icecast>
              <location>test</location><admin>test@localhost</admin>
              <limits><clients>50</clients><sources>4</sources><queue-size>1048576</queue-size>
                <burst-size>65536</burst-size><source-timeout>10</source-timeout></limits>
              <authentication><source-password>hackme</source-password>
                <admin-user>admin</admin-user><admin-password>adminpw</admin-password></authentication>
              <hostname>127.0.0.1</hostname>
              <listen-socket><port>\(port)</port><bind-address>127.0.0.1</bind-address></listen-socket>
              <paths><basedir>/usr/share/icecast2</basedir><logdir>\(logs)</logdir>
                <webroot>/usr/share/icecast2/web</webroot><adminroot>/usr/share/icecast2/admin</adminroot></paths>
              <logging><accesslog>access.log</accesslog><errorlog>error.log</errorlog><loglevel>3</loglevel></logging>
              <security><chroot>0</chroot>\(getuid() == 0 ? "<changeowner><user>nobody</user><group>nogroup</group></changeowner>" : "")</security>
            </icecast>
            """
        try config.write(toFile: folder + "/icecast.xml", atomically: true, encoding: .utf8)
        try super.init(folder: folder, executable: "/usr/bin/icecast2", arguments: ["-c", folder + "/icecast.xml"], log: "icecast.out")
        try waitUntilListening(port, "icecast2")
    }

    public override var log: String {
        ((try? String(contentsOfFile: folder + "/icecast.out", encoding: .utf8)) ?? "")
            + ((try? String(contentsOfFile: folder + "/icecast-log/error.log", encoding: .utf8)) ?? "")
    }

    public func url(_ mount: String) -> String { "http://127.0.0.1:\(port)\(mount)" }

    /// Starts a source on `mount` that sends `file` over and over, `bytesPerSecond` (nil: as
    /// fast as Icecast takes it), named "Songbox Test Radio"; MP3 unless `contentType` says.
    public func source(mount: String, file: String, bytesPerSecond: Int?, contentType: String = "audio/mpeg") throws -> IcecastSource {
        do {
            return try IcecastSource(port: port, mount: mount, file: file, rate: bytesPerSecond.map(String.init) ?? "fast",
                                     contentType: contentType, script: Self.sourceScript, folder: folder)
        } catch {
            // Say how Icecast was then (a run once found it refusing the source it had listened for).
            throw FixtureError("\(error); icecast2 on \(port) \(isRunning ? "still runs" : "has ended"), its log:\n\(log.suffix(3000))")
        }
    }

    /// The source client, beside this file.
    static let sourceScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path + "/icecast_source.py"
}

/// A SHOUTcast 1 server (the tests' own, `shoutcast_v1.py`): answers `ICY 200 OK`, which is
/// not HTTP, and sends `file` with `title` in its ICY metadata, station "Old Shoutcast".
public final class ShoutcastV1Server: ServerProcess, @unchecked Sendable {
    public let port: Int

    public init(folder: String, file: String, title: String) throws {
        port = try freePort()
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path + "/shoutcast_v1.py"
        try super.init(folder: folder, executable: "/usr/bin/python3", arguments: [script, String(port), file, title], log: "shoutcast.out")
        try waitUntilListening(port, "the SHOUTcast server")
    }

    public var url: String { "http://127.0.0.1:\(port)/" }
}

/// A source client streaming to Icecast (the tests' own, `icecast_source.py`): sets
/// titles as a station's software does.
public final class IcecastSource: @unchecked Sendable {
    private let process = Process()
    private let commands = Pipe()
    private let outputPath: String

    init(port: Int, mount: String, file: String, rate: String, contentType: String, script: String, folder: String) throws {
        outputPath = folder + "/source\(mount.replacingOccurrences(of: "/", with: "-")).out"
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script, String(port), mount, "hackme", file, rate, contentType]
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        process.standardOutput = output
        process.standardError = output
        process.standardInput = commands
        try process.run()
        try waitFor(timeout: 20, "the source of \(mount) to stream") {
            guard self.process.isRunning else { throw FixtureError("the source ended: \(self.output)") }
            return self.output.contains("streaming")
        }
    }

    deinit { stop() }

    public var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    /// Sets the stream's title, and waits until Icecast took it.
    public func setTitle(_ title: String) throws {
        let before = output.components(separatedBy: "titled").count
        commands.fileHandleForWriting.write(Data("title \(title)\n".utf8))
        try waitFor(timeout: 10, "Icecast to take the title") { self.output.components(separatedBy: "titled").count > before }
    }

    /// Ends the stream (the source goes, as a station that stops).
    public func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
