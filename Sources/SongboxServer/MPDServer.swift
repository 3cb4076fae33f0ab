import Foundation
import SongboxMessages
import NIOCore
import NIOPosix
import Synchronization

/// Answers MPD commands for the server: the daemon's table (`MPDCommands`). Called off the
/// event loop, on the connection's own serial queue, one command at a time per connection, so
/// it may wait on the player or the library.
public protocol MPDCommandHandler: Sendable {
    func handle(_ command: String, _ arguments: [String], client: MPDClient, out: MPDResponse) throws(MPDProtocol.Failure)
}

/// Where the server listens.
public enum MPDEndpoint: Sendable, Hashable, CustomStringConvertible {
    case unix(path: String)
    case tcp(host: String, port: Int)

    /// `HOST:PORT`, `[V6]:PORT`, or a path (starting with `/`).
    /// A `bind` that is no address: what the config and `--bind` say.
    public struct Invalid: Error, Sendable {
        public let message: Message
    }

    public init(parsing text: String) throws(Invalid) {
        if text.hasPrefix("/") { self = .unix(path: text); return }
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port) else {
            throw Invalid(message: "an address is HOST:PORT (e.g. 127.0.0.1:6600) or a socket path, got '\(text)'")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self = .tcp(host: host.isEmpty ? "0.0.0.0" : host, port: port)
    }

    public var description: String {
        switch self {
        case .unix(let path): path
        case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        }
    }
}

/// The MPD protocol server: Unix sockets and TCP addresses served by one SwiftNIO event loop
/// (no thread per client). Each connection's commands run in order on a serial queue of its
/// own, so a slow command never stalls the event loop or the other clients. Connections beyond
/// `maximumConnections` are closed at once.
public final class MPDServer: Sendable {
    public let endpoints: [MPDEndpoint]
    public let clients: Clients
    private let group: MultiThreadedEventLoopGroup
    private let channels: [any Channel]

    /// MPD's default `max_connections`.
    public static let defaultMaximumConnections = 100

    /// Binds every endpoint. A socket file another daemon answers on is an error; a stale one is
    /// replaced. A socket file is made mode 0660 (its folder, made 0700 when missing, decides
    /// who reaches it).
    public init(endpoints: [MPDEndpoint], commands: any MPDCommandHandler, clients: Clients = Clients(),
                access: MPDAccess = MPDAccess(), maximumConnections: Int = MPDServer.defaultMaximumConnections) throws {
        self.endpoints = endpoints
        self.clients = clients
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        self.group = group
        let open = Atomic<Int>(0)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                let count = open.add(1, ordering: .relaxed).newValue
                channel.closeFuture.whenComplete { _ in open.subtract(1, ordering: .relaxed) }
                guard count <= maximumConnections else { return channel.close() }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineDecoder()))
                    try channel.pipeline.syncOperations.addHandler(MPDConnection(commands: commands, clients: clients, access: access))
                }
            }
        var bound: [any Channel] = []
        do {
            for endpoint in endpoints {
                switch endpoint {
                case .unix(let path):
                    try Self.prepare(path)
                    let previous = umask(0o117)
                    defer { umask(previous) }
                    bound.append(try bootstrap.bind(unixDomainSocketPath: path).wait())
                    chmod(path, 0o660)
                case .tcp(let host, let port):
                    bound.append(try bootstrap.bind(host: host, port: port).wait())
                }
            }
        } catch {
            for channel in bound { try? channel.close().wait() }
            try? group.syncShutdownGracefully()
            if let known = error as? DaemonError { throw known }
            throw DaemonError("cannot listen on \(endpoints.map(\.description).joined(separator: ", ")): \(error)",
                              hint: "another server (an MPD?) may have the port: stop it, or set `bind = HOST:PORT` (or `none`) in the config")
        }
        channels = bound
    }

    /// The TCP ports bound (the real ones, for a port 0 that let the system choose).
    public var tcpPorts: [Int] { channels.compactMap { $0.localAddress?.protocol == .inet || $0.localAddress?.protocol == .inet6 ? $0.localAddress?.port : nil } }

    /// Stops accepting, closes the connections and removes the socket files.
    public func close() {
        for channel in channels { try? channel.close().wait() }
        try? group.syncShutdownGracefully()
        for case .unix(let path) in endpoints { unlink(path) }
    }

    private static func prepare(_ path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        guard FileManager.default.fileExists(atPath: path) else { return }
        if (try? ControlClient(path: path)) != nil {
            throw DaemonError("a songbox daemon already answers on \(path)", hint: "stop it first (systemctl stop songbox, or kill its pid)")
        }
        unlink(path)  // left by a daemon that did not stop cleanly
    }
}

/// Splits the byte stream into lines (without the newline); a line longer than the protocol
/// allows ends the connection.
struct LineDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > MPDProtocol.maximumLineLength { throw DaemonError("request line too long") }
            return .needMoreData
        }
        let length = newline - buffer.readerIndex
        guard length <= MPDProtocol.maximumLineLength else { throw DaemonError("request line too long") }
        var line = buffer.readSlice(length: length)!
        buffer.moveReaderIndex(forwardBy: 1)
        if line.readableBytesView.last == UInt8(ascii: "\r") { line = line.getSlice(at: line.readerIndex, length: length - 1)! }
        context.fireChannelRead(wrapInboundOut(line))
        return .continue
    }
}

/// What a connection keeps between its commands; touched only on its queue.
public final class MPDClient: @unchecked Sendable {
    /// The id under which `Clients` knows it.
    let id: Int
    public let clients: Clients
    /// The tags its song listings include (`tagtypes`); nil: all.
    public var tagTypes: Set<String>?
    /// The largest binary chunk it takes (`binarylimit`), MPD's default 8 KiB.
    public var binaryLimit = 8192
    /// What it may do: its connection's default, then what its password gave.
    public var permissions: MPDPermissions

    init(id: Int, clients: Clients, permissions: MPDPermissions) {
        self.id = id
        self.clients = clients
        self.permissions = permissions
    }

    /// Whether it may run `command`.
    public func may(_ command: String) -> Bool {
        MPDAccess.required(for: command).map { permissions.contains($0) } ?? true
    }

    public func subscribe(to channel: String) -> Bool { clients.subscribe(id, to: channel) }
    public func unsubscribe(from channel: String) -> Bool { clients.unsubscribe(id, from: channel) }
    public var channels: Set<String> { clients.channels(of: id) }
    public func takeMessages() -> [(channel: String, text: String)] { clients.takeMessages(id) }
}

/// A response being written: fields, binary chunks. Written to the client in pieces as it
/// grows, so a large answer (a whole library) is never held whole.
public final class MPDResponse: @unchecked Sendable {
    private var bytes: [UInt8] = []
    private let flush: ([UInt8]) -> Bool
    /// Bytes held before they are sent on.
    static let chunk = 64 << 10
    /// False once the client went away mid-answer: writing more is pointless.
    public private(set) var open = true

    init(flush: @escaping ([UInt8]) -> Bool) {
        self.flush = flush
        bytes.reserveCapacity(1024)
    }

    public func field(_ key: String, _ value: String) {
        bytes += key.utf8
        bytes.append(UInt8(ascii: ":"))
        bytes.append(UInt8(ascii: " "))
        bytes += MPDProtocol.fieldValue(value).utf8
        bytes.append(UInt8(ascii: "\n"))
        if bytes.count >= Self.chunk { send() }
    }

    public func fields(_ pairs: [(String, String)]) { for (key, value) in pairs { field(key, value) } }

    /// A field whose value is text as SQLite holds it: its bytes go out as they are, no String
    /// made (a search answer writes thousands); a line break or NUL in them becomes a space.
    /// The library's text is UTF-8 as songbox wrote it.
    func field(_ key: String, utf8 value: UnsafeRawBufferPointer) {
        bytes += key.utf8
        bytes.append(UInt8(ascii: ":"))
        bytes.append(UInt8(ascii: " "))
        let start = bytes.count
        bytes.append(contentsOf: value)
        for index in start..<bytes.count where MPDProtocol.breaksLine(bytes[index]) { bytes[index] = UInt8(ascii: " ") }
        bytes.append(UInt8(ascii: "\n"))
        if bytes.count >= Self.chunk { send() }
    }

    /// `binary: N` and the bytes.
    public func binary(_ data: [UInt8]) {
        field("binary", String(data.count))
        bytes += data
        bytes.append(UInt8(ascii: "\n"))
    }

    func line(_ text: String) { bytes += text.utf8 }

    /// Sends what is held.
    func send() {
        guard !bytes.isEmpty else { return }
        if open { open = flush(bytes) }
        bytes.removeAll(keepingCapacity: true)
    }
}

/// One client: greets it, then answers each request line in order, with MPD's command lists
/// and `idle`.
final class MPDConnection: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer

    /// The most commands a command list may hold, and its bytes (MPD: 2 MiB).
    static let listLimit = (commands: 10_000, bytes: 2 << 20)
    /// How long a client may leave a reply unread before it is dropped.
    static let writeTimeout = 30.0

    private let commands: any MPDCommandHandler
    private let clients: Clients
    private let access: MPDAccess
    private let queue = DispatchQueue(label: "songbox mpd connection")
    // Below: touched only on `queue`.
    private var client: MPDClient?
    private var channel: (any Channel)?
    private var list: (lines: [String], bytes: Int, ok: Bool)?
    /// The subsystems an `idle` in progress waits for.
    private var idling: IdleSubsystems?

    init(commands: any MPDCommandHandler, clients: Clients, access: MPDAccess) {
        self.commands = commands
        self.clients = clients
        self.access = access
    }

    func channelActive(context: ChannelHandlerContext) {
        let channel = context.channel
        // The Unix socket's clients may do everything: its folder decides who reaches it.
        let local = channel.localAddress?.protocol == .unix
        queue.async { [self] in
            self.channel = channel
            let id = clients.register { [weak self] in
                guard let connection = self else { return }
                connection.queue.async { connection.answerIdle() }
            }
            client = MPDClient(id: id, clients: clients, permissions: local ? .all : access.defaultPermissions)
        }
        context.writeAndFlush(NIOAny(context.channel.allocator.buffer(string: MPDProtocol.greeting + "\n")), promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        queue.async { [self] in
            if let client { clients.unregister(client.id) }
            client = nil
            channel = nil
        }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = Array(unwrapInboundIn(data).readableBytesView)
        queue.async { [self] in receive(bytes) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    // MARK: On the connection's queue

    private func receive(_ bytes: [UInt8]) {
        guard let channel, let client else { return }
        guard !bytes.contains(0), let line = String(validating: bytes, as: UTF8.self) else {
            return write(MPDProtocol.ack(MPDProtocol.Failure(.argument, "malformed request: not UTF-8 text"), command: ""))
        }
        if idling != nil {
            // While idle, only `noidle` is allowed (MPD ends the connection otherwise).
            guard line.trimmingCharacters(in: .whitespaces) == "noidle" else { return channel.close(promise: nil) as Void }
            let changed = clients.take(client.id, idling ?? [])
            idling = nil
            return write(changed.names.map { "changed: \($0)\n" }.joined() + "OK\n")
        }
        if var pending = list {
            if line == "command_list_end" {
                list = nil
                return run(pending.lines, listOK: pending.ok)
            }
            pending.lines.append(line)
            pending.bytes += bytes.count
            guard pending.lines.count <= Self.listLimit.commands, pending.bytes <= Self.listLimit.bytes else {
                list = nil
                write(MPDProtocol.ack(MPDProtocol.Failure(.argument, "command list too long (at most \(Self.listLimit.commands) commands, 2 MiB)"),
                                      command: "command_list_begin"))
                return
            }
            list = pending
            return
        }
        switch line {
        case "command_list_begin": list = ([], 0, false)
        case "command_list_ok_begin": list = ([], 0, true)
        default: run([line], listOK: nil)
        }
    }

    /// Runs a command, or the commands of a list: each one's output (and `list_OK` after each
    /// with `listOK`), then `OK`; at the first failure its `ACK` with its index, and no more.
    private func run(_ lines: [String], listOK: Bool?) {
        guard let client, let channel else { return }
        let out = MPDResponse { [weak self] bytes in self?.send(bytes, on: channel) ?? false }
        for (index, line) in lines.enumerated() {
            var name = ""
            do throws(MPDProtocol.Failure) {
                let (command, arguments) = try MPDProtocol.parse(line)
                name = command
                switch command {
                case "close":
                    out.send()
                    channel.close(promise: nil)
                    return
                case "idle" where listOK == nil && client.may("idle"):
                    var mask: IdleSubsystems = arguments.isEmpty ? .all : []
                    for name in arguments { mask.formUnion(try IdleSubsystems(named: name)) }
                    idling = mask
                    return answerIdle()
                case "noidle":
                    break  // not idle: nothing to end
                case "password":
                    guard arguments.count == 1, let granted = access.passwords[arguments[0]] else {
                        throw MPDProtocol.Failure(.password, "incorrect password")
                    }
                    client.permissions = access.defaultPermissions.union(granted)
                case _ where !client.may(command):
                    throw MPDProtocol.Failure(.permission, "you don't have permission for \"\(command)\"")
                case "command_list_begin", "command_list_ok_begin", "idle":
                    throw MPDProtocol.Failure(.argument, "\(command) is not allowed here")
                default:
                    try commands.handle(command, arguments, client: client, out: out)
                }
                if listOK == true { out.line("list_OK\n") }
            } catch {
                out.line(MPDProtocol.ack(error, command: name, index: listOK == nil ? 0 : index))
                out.send()
                return
            }
        }
        out.line("OK\n")
        out.send()
    }

    /// Ends an `idle` when something it waits for changed.
    private func answerIdle() {
        guard let mask = idling, let client else { return }
        let changed = clients.take(client.id, mask)
        guard !changed.isEmpty else { return }
        idling = nil
        write(changed.names.map { "changed: \($0)\n" }.joined() + "OK\n")
    }

    private func write(_ text: String) {
        guard let channel else { return }
        _ = send(Array(text.utf8), on: channel)
    }

    /// Writes `bytes` and waits until they are on their way; a client that leaves them unread
    /// too long is dropped. False when the connection is gone.
    private func send(_ bytes: [UInt8], on channel: any Channel) -> Bool {
        let done = DispatchSemaphore(value: 0)
        let sent = Mutex(false)
        channel.writeAndFlush(channel.allocator.buffer(bytes: bytes)).whenComplete { result in
            if case .success = result { sent.withLock { $0 = true } }
            done.signal()
        }
        guard done.wait(timeout: .now() + Self.writeTimeout) == .success else {
            channel.close(promise: nil)
            return false
        }
        return sent.withLock { $0 }
    }
}

/// An error of the daemon or its clients, with a hint when there is one.
public struct DaemonError: Error, CustomStringConvertible, Sendable {
    /// In English for logs and programs (`message`, `description`); `localized` for the CLI.
    public var text: Message
    public var hintText: Message?

    public init(_ message: Message, hint: Message? = nil) {
        self.text = message
        self.hintText = hint
    }

    public var message: String { text.description }
    public var hint: String? { hintText?.description }

    public var description: String { message + (hint.map { "\n  hint: \($0)" } ?? "") }

    public var localized: String {
        text.localized + (hintText.map { "\n  " + Message("hint: \($0)").localized } ?? "")
    }
}
