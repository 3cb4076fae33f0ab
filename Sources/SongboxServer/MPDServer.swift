import Foundation
import SongboxMessages
import NIOCore
import NIOPosix
import ServiceLifecycle
import SongboxAudio
import Synchronization

/// Answers MPD commands for the server: the daemon's table (`MPDCommands`). One command at a
/// time per connection: a command the table answers in place (`MPDCommandTable.answeredInPlace`:
/// from memory, never waiting) on the connection's event loop as its request arrives, any other
/// in the connection's task on a GCD thread (`MPDConnection.blockingExecutor`), so it may wait
/// on the library. A long
/// answer awaits `MPDResponse.flush()` between its pieces: while the client does not read, the
/// command is suspended and holds no thread.
public protocol MPDCommandHandler: Sendable {
    func handle(_ command: String, _ arguments: [String], client: MPDClient, out: MPDResponse) async throws(MPDProtocol.Failure)
    /// Answers one of `MPDCommandTable.answeredInPlace`, on the event loop, without waiting.
    func answerInPlace(_ command: MPDCommandTable.Entry, _ arguments: [String], client: MPDClient, out: MPDResponse) throws(MPDProtocol.Failure)
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
/// (no thread per client), as a `Service`: it binds in `run()`, serves each connection in a
/// task of a task group (a slow command never stalls the event loop or the other clients, and a
/// client that does not read its answers holds no thread while it waits), and on graceful
/// shutdown stops accepting, closes the connections, waits for their tasks and removes its
/// socket files. Connections beyond `maximumConnections` are closed at once.
public final class MPDServer: Service {
    public let endpoints: [MPDEndpoint]
    public let clients: Clients
    private let commands: any MPDCommandHandler
    private let access: MPDAccess
    private let maximumConnections: Int
    /// The TCP ports once bound, or why it could not bind (`listening()`).
    private let bound = Outcome<[Int]>()
    /// The channels to close on the way out: the listeners and the open connections.
    private let open = Mutex<(listeners: [any Channel], connections: [ObjectIdentifier: MPDConnection], closing: Bool)>(([], [:], false))

    /// The most bytes of a client's requests read at a time.
    static let readSize = 8 << 10

    /// MPD's default `max_connections`.
    public static let defaultMaximumConnections = 100

    public init(endpoints: [MPDEndpoint], commands: any MPDCommandHandler, clients: Clients = Clients(),
                access: MPDAccess = MPDAccess(), maximumConnections: Int = MPDServer.defaultMaximumConnections) {
        self.endpoints = endpoints
        self.clients = clients
        self.commands = commands
        self.access = access
        self.maximumConnections = maximumConnections
    }

    /// Waits until every endpoint is bound: the TCP ports (the real ones, for a port 0 that let
    /// the system choose). Throws what stopped it binding.
    public func listening() async throws -> [Int] { try await bound.value() }

    /// Binds every endpoint (a socket file another daemon answers on is an error; a stale one
    /// is replaced; a socket file is made mode 0660, and its folder, made 0700 when missing,
    /// decides who reaches it), then serves until a graceful shutdown or cancellation.
    public func run() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let listeners: [Listener]
        do {
            listeners = try await bind(on: group)
        } catch {
            bound.set(.failure(error))
            try? await group.shutdownGracefully()
            throw error
        }
        open.withLock { $0.listeners = listeners.map(\.channel) }
        // A client that leaves a piece of its answer unread too long is dropped: one look at
        // them all every few seconds, not a timer a connection (idle clients wake nothing).
        let watch = group.next().scheduleRepeatedTask(initialDelay: MPDConnection.watchInterval, delay: MPDConnection.watchInterval) { _ in
            for connection in self.open.withLock({ Array($0.connections.values) }) { connection.dropIfStalled() }
        }
        defer { watch.cancel() }
        bound.set(.success(listeners.compactMap { $0.channel.localAddress?.protocol == .unix ? nil : $0.channel.localAddress?.port }))
        await withGracefulShutdownHandler {
            await withTaskCancellationHandler {
                await withDiscardingTaskGroup { tasks in
                    for listener in listeners {
                        tasks.addTask { await self.accept(listener) }
                    }
                }
            } onCancel: {
                self.closeAll()
            }
        } onGracefulShutdown: {
            self.closeAll()
        }
        for case .unix(let path) in endpoints { unlink(path) }
        try? await group.shutdownGracefully()
    }

    private typealias Listener = NIOAsyncChannel<MPDConnection, Never>

    /// Serves the connections `listener` accepts, each in a task of its own, until it closes;
    /// returns when they have all ended.
    private func accept(_ listener: Listener) async {
        await withDiscardingTaskGroup { connections in
            try? await listener.executeThenClose { inbound in
                for try await connection in inbound {
                    let channel = connection.channel
                    let admitted = open.withLock { open in
                        guard !open.closing, open.connections.count < maximumConnections else { return false }
                        open.connections[ObjectIdentifier(channel)] = connection
                        return true
                    }
                    guard admitted else {
                        channel.close(promise: nil)
                        continue
                    }
                    connections.addTask(executorPreference: EventLoopExecutor(channel.eventLoop)) {
                        defer { _ = self.open.withLock { $0.connections.removeValue(forKey: ObjectIdentifier(channel)) } }
                        await connection.serve()
                    }
                }
            }
        }
    }

    /// Stops accepting and ends every connection (each task then finishes its command and ends).
    private func closeAll() {
        let channels = open.withLock { open in
            open.closing = true
            return open.listeners + open.connections.values.map(\.channel)
        }
        for channel in channels { channel.close(promise: nil) }
    }

    private func bind(on group: MultiThreadedEventLoopGroup) async throws -> [Listener] {
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            // A client that shuts its side after sending (`printf 'status\n' | nc -N`) still
            // reads the answers: the connection ends once they are written.
            .childChannelOption(.allowRemoteHalfClosure, value: true)
        let (commands, clients, access) = (commands, clients, access)
        let initializer: @Sendable (any Channel) -> EventLoopFuture<MPDConnection> = { channel in
            channel.eventLoop.makeCompletedFuture {
                // What a client that sends much and reads nothing makes the daemon hold: a read or
                // two of its requests, and a piece or two of its answer (the connection waits
                // past the write watermark).
                try channel.syncOptions?.setOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: Self.readSize))
                try channel.syncOptions?.setOption(.writeBufferWaterMark, value: .init(low: MPDResponse.chunk / 2, high: MPDResponse.chunk))
                let connection = MPDConnection(channel: channel, commands: commands, clients: clients, access: access)
                try channel.pipeline.syncOperations.addHandler(connection)
                return connection
            }
        }
        var listeners: [Listener] = []
        do {
            for endpoint in endpoints {
                switch endpoint {
                case .unix(let path):
                    try Self.prepare(path)
                    let previous = umask(0o117)
                    defer { umask(previous) }
                    listeners.append(try await bootstrap.bind(unixDomainSocketPath: path, childChannelInitializer: initializer))
                    chmod(path, 0o660)
                case .tcp(let host, let port):
                    listeners.append(try await bootstrap.bind(host: host, port: port, childChannelInitializer: initializer))
                }
            }
            return listeners
        } catch {
            for listener in listeners { try? await listener.channel.close() }
            if let known = error as? DaemonError { throw known }
            // The system's words for it (`Address already in use`), not NIO's call that met it.
            let reason = (error as? IOError).map { String(cString: strerror($0.errnoCode)) } ?? "\(error)"
            throw DaemonError("cannot listen on \(endpoints.map(\.description).joined(separator: ", ")): \(reason)",
                              hint: "another server (an MPD?) may have the port: stop it, or set `bind = HOST:PORT` (or `none`) in the config")
        }
    }

    private static func prepare(_ path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        // Made by someone else (first, or meanwhile): they would decide who reaches the daemon.
        var info = stat()
        if !folder.isEmpty, lstat(folder, &info) == 0, info.st_uid != getuid(), info.st_uid != 0 {
            throw DaemonError("the socket's folder \(folder) belongs to another user (uid \(info.st_uid))",
                              hint: "name a socket in a folder of your own: --socket, or socket = PATH in the config")
        }
        guard FileManager.default.fileExists(atPath: path) else { return }
        if (try? ControlClient(path: path)) != nil {
            throw DaemonError("a songbox daemon already answers on \(path)", hint: "stop it first (systemctl stop songbox, or kill its pid)")
        }
        unlink(path)  // left by a daemon that did not stop cleanly
    }
}

/// Splits a connection's bytes into request lines (without the newline or a `\r` before it),
/// in the connection's own task: NIO hands over what it read as it is, a few KiB at a time, so a
/// client that sends much and reads nothing has no more than a read or two of it held.
struct RequestLines {
    /// The start of a line whose end has not come yet.
    private var partial: [UInt8] = []

    /// The line longer than the protocol allows: the connection ends.
    struct TooLong: Error {}

    /// Takes the next whole line out of `buffer` (keeping a start with no end for the next
    /// buffer); nil once `buffer` has no more.
    mutating func next(from buffer: inout ByteBuffer) throws(TooLong) -> [UInt8]? {
        // By whole runs of bytes (memchr, memcpy), never byte by byte: every connection's
        // requests are split on the one event loop.
        let (line, consumed) = buffer.withUnsafeReadableBytes { raw -> ([UInt8]?, Int) in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard let base = bytes.baseAddress, let found = memchr(base, Int32(UInt8(ascii: "\n")), bytes.count) else {
                partial.append(contentsOf: bytes)
                return (nil, bytes.count)
            }
            let end = UnsafePointer(found.assumingMemoryBound(to: UInt8.self)) - base
            var line = partial
            partial = []
            line.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[..<end]))
            return (line, end + 1)
        }
        buffer.moveReaderIndex(forwardBy: consumed)
        guard var line else {
            guard partial.count <= MPDProtocol.maximumLineLength else { throw TooLong() }
            return nil
        }
        guard line.count <= MPDProtocol.maximumLineLength else { throw TooLong() }
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        return line
    }
}

/// What a connection keeps between its commands; touched only by the task that serves it.
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
    /// Whether it came on the Unix socket (MPD's "local" client: `config` answers it).
    public let isLocal: Bool
    /// The protocol features it turned on (`protocol enable`), lowercased.
    public var protocolFeatures: Set<String> = []

    init(id: Int, clients: Clients, permissions: MPDPermissions, isLocal: Bool = false) {
        self.id = id
        self.clients = clients
        self.permissions = permissions
        self.isLocal = isLocal
    }

    /// Whether it may run `command` (the table's permission; a name that is no command is
    /// refused as unknown, not here).
    public func may(_ command: String) -> Bool {
        MPDCommandTable.permission(of: command).map { permissions.isSuperset(of: $0) } ?? true
    }

    public func subscribe(to channel: String) -> Bool { clients.subscribe(id, to: channel) }
    public func unsubscribe(from channel: String) -> Bool { clients.unsubscribe(id, from: channel) }
    public var channels: Set<String> { clients.channels(of: id) }
    public func takeMessages() -> [(channel: String, text: String)] { clients.takeMessages(id) }
}

/// A response being written: fields, binary chunks. A command that writes much awaits
/// `flush()` between its pieces, so a large answer (a whole library) goes out as it is made and
/// is never held whole. Written straight into the buffer NIO sends: no copy of it is made.
public final class MPDResponse: @unchecked Sendable {
    private var buffer = MPDResponse.allocator.buffer(capacity: 1024)
    private let sink: (ByteBuffer) async -> Bool
    private static let allocator = ByteBufferAllocator()
    /// Bytes held before `flush()` sends them on; also the most a connection's channel holds
    /// unsent before the writer waits (its write watermark).
    static let chunk = 32 << 10
    /// False once the client went away mid-answer: writing more is pointless.
    public private(set) var open = true

    init(sink: @escaping (ByteBuffer) async -> Bool) {
        self.sink = sink
    }

    /// The bytes written and not yet sent.
    var count: Int { buffer.readableBytes }

    public func field(_ key: String, _ value: String) {
        // One access to `buffer` for the line: each use of a class's stored property is an
        // exclusivity check at run time.
        Self.write(key, value, to: &buffer)
    }

    /// A field's line in one write (`write(_:utf8:to:)`), its value cleared of controls.
    static func write(_ key: String, _ value: String, to buffer: inout ByteBuffer) {
        var value = value
        value.withUTF8 { write(key, utf8: UnsafeRawBufferPointer($0), to: &buffer) }
    }

    public func fields(_ pairs: [(String, String)]) { for (key, value) in pairs { field(key, value) } }

    /// A field whose value is a whole number: its digits written straight into the answer, in
    /// one write (`status` has a dozen, and clients poll it).
    func field(_ key: StaticString, _ value: Int) {
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: key.utf8CodeUnitCount + 2 + 20 + 1) { line in
            var end = Self.copy(key, into: line)
            if value < 0 {
                line[end] = UInt8(ascii: "-")
                end += 1
            }
            end = Self.digits(value.magnitude, minimum: 1, into: line, at: end)
            line[end] = UInt8(ascii: "\n")
            return end + 1
        }
    }

    /// A field whose value is a decimal number with `places` decimals (`writeDecimal`).
    func field(_ key: StaticString, _ value: Double, places: Int) {
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: key.utf8CodeUnitCount + 2 + Self.longestDecimal + 1) { line in
            let end = Self.writeDecimal(value, places: places, into: line, at: Self.copy(key, into: line))
            line[end] = UInt8(ascii: "\n")
            return end + 1
        }
    }

    /// The most bytes `writeDecimal` writes.
    static let longestDecimal = 1 + 13 + 1 + 6

    /// Writes `value` with `places` (0 to 6) decimals, as C's `%.Nf` writes it (MPD's `%f` has
    /// six), at `start` of `line`; where it ends. A value too large to be a time, or none, is 0.
    static func writeDecimal(_ value: Double, places: Int, into line: UnsafeMutableRawBufferPointer, at start: Int) -> Int {
        let places = min(max(places, 0), 6)
        let scale = [1, 10, 100, 1000, 10_000, 100_000, 1_000_000][places]
        let magnitude = value.isFinite && abs(value) < 1e12 ? abs(value) : 0
        // The whole part and the fraction apart (both exact), so the rounding is the fraction's
        // alone, as printf's of the exact value: a product of the whole number loses digits.
        var whole = UInt(magnitude.rounded(.towardZero))
        var fraction = UInt(((magnitude - Double(whole)) * Double(scale)).rounded())
        if fraction == UInt(scale) {
            whole += 1
            fraction = 0
        }
        var end = start
        if value < 0, whole > 0 || fraction > 0 {
            line[end] = UInt8(ascii: "-")
            end += 1
        }
        end = digits(whole, minimum: 1, into: line, at: end)
        guard places > 0 else { return end }
        line[end] = UInt8(ascii: ".")
        return digits(fraction, minimum: places, into: line, at: end + 1)
    }

    /// Writes the decimal digits of `value`, at least `minimum` of them (zeros before), at
    /// `start` of `line`; where they end.
    private static func digits(_ value: UInt, minimum: Int, into line: UnsafeMutableRawBufferPointer, at start: Int) -> Int {
        var count = 0, rest = value
        repeat {
            count += 1
            rest /= 10
        } while rest > 0
        count = max(count, minimum)
        rest = value
        for index in stride(from: start + count - 1, through: start, by: -1) {
            line[index] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        }
        return start + count
    }

    /// A field whose key and value are the program's own words.
    func field(_ key: StaticString, _ value: StaticString) {
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: key.utf8CodeUnitCount + 2 + value.utf8CodeUnitCount + 1) { line in
            var end = Self.copy(key, into: line)
            line.baseAddress!.advanced(by: end).copyMemory(from: value.utf8Start, byteCount: value.utf8CodeUnitCount)
            end += value.utf8CodeUnitCount
            line[end] = UInt8(ascii: "\n")
            return end + 1
        }
    }

    /// Writes `key` and `: ` at the start of `line`; where the value goes.
    private static func copy(_ key: StaticString, into line: UnsafeMutableRawBufferPointer) -> Int {
        line.baseAddress!.copyMemory(from: key.utf8Start, byteCount: key.utf8CodeUnitCount)
        line[key.utf8CodeUnitCount] = UInt8(ascii: ":")
        line[key.utf8CodeUnitCount + 1] = UInt8(ascii: " ")
        return key.utf8CodeUnitCount + 2
    }

    /// A field whose value is text as SQLite holds it: its bytes go out as they are, no String
    /// made (a search answer writes thousands); a control character in them becomes a space
    /// (`MPDProtocol.fieldValue`).
    /// The library's text is UTF-8 as songbox wrote it.
    func field(_ key: String, utf8 value: UnsafeRawBufferPointer) {
        Self.write(key, utf8: value, to: &buffer)
    }

    /// Runs `body` on the bytes not yet sent, with one access to them: a long answer's lines
    /// written in a loop inside it pay no exclusivity check each (a class's stored property).
    func withBuffer<T, E: Error>(_ body: (inout ByteBuffer) throws(E) -> T) throws(E) -> T {
        try body(&buffer)
    }

    static func write(_ key: String, utf8 value: UnsafeRawBufferPointer, to buffer: inout ByteBuffer) {
        // One write of the whole line: each of ByteBuffer's writes checks its storage's
        // exclusive access at run time, and a listing writes tens of thousands of lines.
        var key = key
        key.withUTF8 { key in
            let count = key.count + 2 + value.count + 1
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { line in
                line.copyMemory(from: UnsafeRawBufferPointer(key))
                line[key.count] = UInt8(ascii: ":")
                line[key.count + 1] = UInt8(ascii: " ")
                let text = UnsafeMutableRawBufferPointer(rebasing: line[(key.count + 2)..<(key.count + 2 + value.count)])
                text.copyMemory(from: value)
                MPDProtocol.clearControls(text)
                line[count - 1] = UInt8(ascii: "\n")
                return count
            }
        }
    }

    /// `binary: N` and the bytes.
    public func binary(_ data: [UInt8]) {
        field("binary", String(data.count))
        buffer.writeBytes(data)
        buffer.writeInteger(UInt8(ascii: "\n"))
    }

    func line(_ text: String) { buffer.writeString(text) }

    /// The bytes written and not yet sent, taken out. The next go into new storage: of the same
    /// size with `keepingCapacity` (one allocation for a short answer, where growing from
    /// nothing takes several), else empty until written to.
    func take(keepingCapacity: Bool) -> ByteBuffer {
        defer { if keepingCapacity { buffer.clear() } else { buffer = Self.allocator.buffer(capacity: 0) } }
        return buffer
    }

    /// Bytes another response wrote (`range` of its unsent ones), as they are.
    func append(_ other: MPDResponse, _ range: Range<Int>) {
        buffer.writeBytes(other.buffer.readableBytesView.dropFirst(range.lowerBound).prefix(range.count))
    }

    /// Sends what is held once it is a chunk or more, waiting (without a thread) until the
    /// client has room for it. A command that writes much calls this between its pieces.
    public func flush() async {
        guard buffer.readableBytes >= Self.chunk else { return }
        await send()
        // Then the others' turn: many long answers made at once take turns piece by piece, so a
        // new client's short one waits for a piece of each, not for all of them.
        await Task.yield()
    }

    /// Sends what is held, waiting until the client has room for it. The buffer goes to NIO
    /// as it is; the next bytes start a new one (a client that does not read holds only that).
    func send() async {
        guard buffer.readableBytes > 0 else { return }
        let sent = take(keepingCapacity: false)
        if open { open = await sink(sent) }
    }
}

/// One client, as the handler of its channel: greets it, then answers each request line in
/// order, with MPD's command lists and `idle`.
///
/// Lines are split on the event loop as they arrive. A line the table answers from memory
/// (`MPDCommandTable.answeredInPlace`: `status`, `ping`, ...) is answered there and then when
/// nothing waits before it: no task is woken and no thread takes over, so what clients ask most
/// costs what it costs MPD. Every other line waits, in order, for the connection's task
/// (`serve`), which runs the commands that may wait: on the library (a GCD thread), on the
/// player, or on the client reading a long answer (suspended, holding no thread, while more than
/// `MPDResponse.chunk` waits unsent). While lines wait for the task, nothing more is read past
/// `MPDServer.readSize` bytes of them: a client that sends much and reads nothing holds little,
/// and one that leaves a piece of an answer unread for `writeTimeout` is dropped.
final class MPDConnection: ChannelDuplexHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// The most commands a command list may hold, and its bytes (MPD: 2 MiB).
    static let listLimit = (commands: 10_000, bytes: 2 << 20)
    /// How long a client may leave a reply unread before it is dropped (checked every 5 s).
    static let writeTimeout = TimeAmount.seconds(30), watchInterval = TimeAmount.seconds(5)
    /// Where a command that may block runs (a library read): GCD's threads, which Swift's few
    /// cooperative threads and the event loop must not be. A task that waits for its client is
    /// off every thread.
    static let blockingExecutor = DispatchExecutor.shared

    let channel: any Channel
    private let commands: any MPDCommandHandler
    private let clients: Clients
    private let access: MPDAccess
    /// The channel's event loop, as the task's executor.
    private let loop: EventLoopExecutor

    // Below: touched on the event loop only, and by the task's commands while the task has the
    // floor (`taskHasFloor`), when nothing else touches them.
    private var context: ChannelHandlerContext?
    private var client: MPDClient!
    private(set) var list: (lines: [String], bytes: Int, ok: Bool)?
    /// Whether it began an `idle` that is not answered yet.
    private var idleBegun = false
    private var requests = RequestLines()
    /// The lines waiting for the task, in order, and their bytes.
    private var waiting = CircularBuffer<[UInt8]>()
    private var waitingBytes = 0
    /// Whether the task runs a command or has lines to run: a line answered in place would
    /// overtake them. The task has it until it greeted the client.
    private var taskHasFloor = true
    /// The task waiting for a line (nil: the connection ended), and for room to write.
    private var lineWaiter: CheckedContinuation<[UInt8]?, Never>?
    private var roomWaiter: CheckedContinuation<Void, Never>?
    /// Set once no more lines will come (the client half-closed, a line was too long, the
    /// channel went): the task ends after the waiting ones.
    private var inputEnded = false
    /// A read NIO asked for, held while lines wait for the task.
    private var readHeld = false
    /// When the write waiting for the client began (`DispatchTime` nanoseconds); 0: none waits.
    private var writingSince: UInt64 = 0
    /// Bytes a command wrote from its GCD thread that the socket has not taken yet.
    private let unsent = Atomic<Int>(0)
    /// What the lines answered in place write, sent after each read.
    private let inPlace = MPDResponse(sink: { _ in false })

    init(channel: any Channel, commands: any MPDCommandHandler, clients: Clients, access: MPDAccess) {
        self.channel = channel
        self.commands = commands
        self.clients = clients
        self.access = access
        loop = EventLoopExecutor(channel.eventLoop)
    }

    // MARK: The channel's events (on the event loop)

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !inputEnded else { return }
        var bytes = unwrapInboundIn(data)
        do {
            while let line = try requests.next(from: &bytes) { take(line) }
        } catch {
            // A line longer than the protocol allows: the connection ends once what came
            // before it is answered, and nothing after it is read as a command.
            endInput()
        }
        sendInPlace()
    }

    /// Holds NIO's next read while more than a read's worth of lines waits for the task.
    func read(context: ChannelHandlerContext) {
        if waitingBytes >= MPDServer.readSize { readHeld = true } else { context.read() }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { roomWaiter.take()?.resume() }
        context.fireChannelWritabilityChanged()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The client shut its side after sending (`printf 'status\n' | nc -N`): it still gets
        // its answers, and the connection ends once they are written.
        if case ChannelEvent.inputClosed = event { endInput() }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        endInput()
        roomWaiter.take()?.resume()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }

    /// A request line: answered now when the table answers it in place and nothing waits before
    /// it, else left for the task.
    private func take(_ line: [UInt8]) {
        if !taskHasFloor, waiting.isEmpty, channel.isWritable, answerInPlace(line) { return }
        waiting.append(line)
        waitingBytes += line.count
        taskHasFloor = true
        lineWaiter.take()?.resume(returning: takeWaiting())
    }

    private func endInput() {
        inputEnded = true
        if waiting.isEmpty { lineWaiter.take()?.resume(returning: nil) }
    }

    /// Answers `line` in place if the table answers it from memory (and the connection is not
    /// in a command list or an idle); false when it is the task's.
    private func answerInPlace(_ line: [UInt8]) -> Bool {
        guard !idleBegun, list == nil, !line.contains(0), let text = String(validating: line, as: UTF8.self),
              let (command, arguments) = try? MPDProtocol.parse(text) else { return false }
        // Not idle (a wake answered it already): no answer at all, as MPD.
        if command == "noidle" { return true }
        guard let entry = try? MPDCommandTable.entry(command), entry.isAnsweredInPlace else { return false }
        do throws(MPDProtocol.Failure) {
            try entry.admit(count: arguments.count, permissions: client.permissions)
            try commands.answerInPlace(entry, arguments, client: client, out: inPlace)
            inPlace.line("OK\n")
        } catch {
            inPlace.line(MPDProtocol.ack(error, command: command))
        }
        // Many pipelined requests: their answers go out a piece at a time, and wait for the
        // task once the client has no room (`channel.isWritable`).
        if inPlace.count >= MPDResponse.chunk { sendInPlace() }
        return true
    }

    private func sendInPlace() {
        guard inPlace.count > 0, let context else { return }
        context.writeAndFlush(wrapOutboundOut(inPlace.take(keepingCapacity: true)), promise: nil)
    }

    /// Closes the connection when a write has waited for the client longer than `writeTimeout`
    /// (its task's write then fails). From the server's watch, on any thread.
    func dropIfStalled() {
        guard channel.eventLoop.inEventLoop else { return channel.eventLoop.execute { self.dropIfStalled() } }
        guard writingSince != 0, DispatchTime.now().uptimeNanoseconds - writingSince > UInt64(Self.writeTimeout.nanoseconds) else { return }
        channel.close(promise: nil)
    }

    /// Writes the answer of an `idle` a wake ended, unless a `noidle` got there first.
    private func answerWokenIdle() {
        guard idleBegun, let changed = clients.takeIdleAnswer(client.id), let context else { return }
        idleBegun = false
        context.writeAndFlush(wrapOutboundOut(channel.allocator.buffer(string: Self.idleAnswer(changed))), promise: nil)
    }

    // MARK: The task

    /// Serves the connection until it ends: greets the client, runs the lines left to it in
    /// order, and closes the channel once the last answer is sent.
    func serve() async {
        // The Unix socket's clients may do everything: its folder decides who reaches it.
        let local = channel.localAddress?.protocol == .unix
        let eventLoop = channel.eventLoop
        let id = clients.register { [weak self] in
            eventLoop.execute { [weak self] in self?.answerWokenIdle() }
        }
        defer { clients.unregister(id) }
        client = MPDClient(id: id, clients: clients, permissions: local ? .all : access.defaultPermissions, isLocal: local)
        if await write(channel.allocator.buffer(string: MPDProtocol.greeting + "\n")) {
            while let line = await nextLine() {
                guard await receive(line) else { break }
                // The other connections' turn before the next request that may be waiting
                // already (as `MPDResponse.flush` gives it between the pieces of an answer);
                // a line that only joins a command list runs nothing to take turns with.
                if list == nil { await Task.yield() }
            }
        }
        // What was written goes out before the channel closes (`close`, a half-closed client),
        // unless the client leaves it unread past `writeTimeout`: writes end in order, so an
        // empty one ends after them.
        if channel.isActive {
            writingSince = DispatchTime.now().uptimeNanoseconds
            try? await channel.writeAndFlush(ByteBuffer()).get()
        }
        try? await channel.close()
    }

    /// The next line waiting for the task; suspended (the floor given up) while none is. Nil
    /// once the connection ended.
    private func nextLine() async -> [UInt8]? {
        if let line = takeWaiting() { return line }
        if inputEnded { return nil }
        taskHasFloor = false
        return await withCheckedContinuation { lineWaiter = $0 }
    }

    private func takeWaiting() -> [UInt8]? {
        guard let line = waiting.popFirst() else { return nil }
        waitingBytes -= line.count
        if readHeld, waitingBytes < MPDServer.readSize, let context {
            readHeld = false
            context.read()
        }
        return line
    }

    /// Answers a request line; false when the connection is to end.
    private func receive(_ bytes: [UInt8]) async -> Bool {
        guard !bytes.contains(0), let line = String(validating: bytes, as: UTF8.self) else {
            return await write(MPDProtocol.ack(MPDProtocol.Failure(.argument, "malformed request: not UTF-8 text"), command: ""))
        }
        if idleBegun {
            idleBegun = false
            let noidle = line.trimmingCharacters(in: .whitespaces) == "noidle"
            if let changed = clients.endIdle(client.id) {
                // While idle, only `noidle` is allowed (MPD ends the connection otherwise).
                guard noidle else { return false }
                return await write(Self.idleAnswer(changed))
            }
            // A wake ended the idle and its answer is not written yet: it goes before this line's.
            if let changed = clients.takeIdleAnswer(client.id), !(await write(Self.idleAnswer(changed))) { return false }
            if noidle { return true }
        }
        if list != nil {
            if line == "command_list_end", let pending = list.take() {
                return await run(pending.lines, listOK: pending.ok)
            }
            // Appended in place (a copy taken out and put back would copy the whole list at each
            // line: 5,000 lines, 12 million strings copied).
            list!.lines.append(line)
            list!.bytes += bytes.count
            // A list over the limit ends the connection, as MPD ends it: nothing of it runs,
            // and the rest of it is never read as commands of their own.
            guard list!.lines.count <= Self.listLimit.commands, list!.bytes <= Self.listLimit.bytes else { return false }
            return true
        }
        switch line {
        case "command_list_begin": list = ([], 0, false)
        case "command_list_ok_begin": list = ([], 0, true)
        default: return await run([line], listOK: nil)
        }
        return true
    }

    /// Runs a command, or the commands of a list: each one's output (and `list_OK` after each
    /// with `listOK`), then `OK`; at the first failure its `ACK` with its index, and no more.
    /// False when the connection is to end.
    private func run(_ lines: [String], listOK: Bool?) async -> Bool {
        let out = MPDResponse { [self] bytes in await write(bytes) }
        for (index, line) in lines.enumerated() {
            var name = ""
            do throws(MPDProtocol.Failure) {
                let (command, arguments) = try MPDProtocol.parse(line)
                // Not idle (the idle was answered already, which the client reads now): no
                // answer at all, as MPD, or the client would read every later answer one late.
                if command == "noidle", listOK == nil { return true }
                // The table decides: unknown (named in the ACK's text only, as MPD: `{}`), not
                // permitted, or the wrong number of arguments.
                let entry = try MPDCommandTable.entry(command)
                name = command
                try entry.admit(count: arguments.count, permissions: client.permissions)
                switch command {
                case "close":
                    await out.send()
                    return false
                case "idle" where listOK == nil:
                    var mask: IdleSubsystems = arguments.isEmpty ? .all : []
                    for name in arguments { mask.formUnion(try IdleSubsystems(named: name)) }
                    if let changed = clients.beginIdle(client.id, mask) { return await write(Self.idleAnswer(changed)) }
                    idleBegun = true
                    return true
                case "idle":
                    throw MPDProtocol.Failure(.argument, "\(command) is not allowed here")
                case "password":
                    guard let granted = access.passwords[arguments[0]] else { throw MPDProtocol.Failure(.password, "incorrect password") }
                    client.permissions = access.defaultPermissions.union(granted)
                case _ where entry.isAnsweredInPlace:
                    try commands.answerInPlace(entry, arguments, client: client, out: out)
                default:
                    try await withTaskExecutorPreference(Self.blockingExecutor) { () async throws(MPDProtocol.Failure) in
                        try await commands.handle(command, arguments, client: client, out: out)
                    }
                }
                if listOK == true { out.line("list_OK\n") }
            } catch {
                out.line(MPDProtocol.ack(error, command: name, index: listOK == nil ? 0 : index))
                await out.send()
                return out.open
            }
            // A long list's answers go out as they are made.
            await out.flush()
            guard out.open else { return false }
        }
        out.line("OK\n")
        await out.send()
        return out.open
    }

    /// The answer of an `idle`: what changed of what it waited for.
    private static func idleAnswer(_ changed: IdleSubsystems) -> String {
        changed.names.map { "changed: \($0)\n" }.joined() + "OK\n"
    }

    private func write(_ text: String) async -> Bool { await write(channel.allocator.buffer(string: text)) }

    /// Writes `bytes`, waiting (on no thread) while the client has more unread than the
    /// channel's high-water mark. False when the connection is gone.
    private func write(_ bytes: ByteBuffer) async -> Bool {
        guard channel.eventLoop.inEventLoop else { return await writeFromCommand(bytes) }
        guard channel.isActive, let context else { return false }
        context.writeAndFlush(wrapOutboundOut(bytes), promise: nil)
        if !channel.isWritable {
            writingSince = DispatchTime.now().uptimeNanoseconds
            defer { writingSince = 0 }
            while channel.isActive, !channel.isWritable { await withCheckedContinuation { roomWaiter = $0 } }
        }
        return channel.isActive
    }

    /// A write from a command on a GCD thread, handed to the channel from there (it takes writes
    /// from any thread, in order): a long answer's pieces cost no hand-over to the event loop and
    /// back while the client keeps up. Past a piece unsent, the task goes over to the loop and
    /// waits there for the client.
    private func writeFromCommand(_ bytes: ByteBuffer) async -> Bool {
        let count = bytes.readableBytes
        unsent.add(count, ordering: .relaxed)
        let written = channel.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenComplete { [self] _ in
            // On the event loop.
            unsent.subtract(count, ordering: .relaxed)
            roomWaiter.take()?.resume()
        }
        channel.writeAndFlush(bytes, promise: written)
        guard unsent.load(ordering: .relaxed) > MPDResponse.chunk else { return channel.isActive }
        return await withTaskExecutorPreference(loop) { () async -> Bool in
            writingSince = DispatchTime.now().uptimeNanoseconds
            defer { writingSince = 0 }
            while channel.isActive, unsent.load(ordering: .relaxed) > MPDResponse.chunk {
                await withCheckedContinuation { roomWaiter = $0 }
            }
            return channel.isActive
        }
    }
}

/// A connection's event loop as the executor of its task: reading a request, answering it from
/// memory and writing the answer happen on that one thread, with no hand-over to another and
/// no thread woken (a `status` then costs what it costs MPD).
final class EventLoopExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        eventLoop.execute { job.runSynchronously(on: executor) }
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

/// A value set once (the first time) and awaited by any number of tasks.
public final class Outcome<Value: Sendable>: Sendable {
    private let state = Mutex<(result: Result<Value, any Error>?, waiting: [CheckedContinuation<Value, any Error>])>((nil, []))

    public init() {}

    public func set(_ result: Result<Value, any Error>) {
        let waiting = state.withLock { state -> [CheckedContinuation<Value, any Error>] in
            guard state.result == nil else { return [] }
            state.result = result
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume(with: result) }
    }

    public func value() async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            let known = state.withLock { state -> Result<Value, any Error>? in
                if state.result == nil { state.waiting.append(continuation) }
                return state.result
            }
            if let known { continuation.resume(with: known) }
        }
    }
}
