import Foundation
import NIOCore
import NIOPosix

/// What answers the commands of the control socket (the daemon). Called off the event loop, one
/// command at a time per connection, so it may block on the player or the library.
public protocol ControlCommands: Sendable {
    func handle(_ command: String, _ arguments: [String]) -> Result<[(String, String)], ControlProtocol.Failure>
}

/// The local control socket: a Unix socket, mode 0600, in a folder of mode 0700, served by one
/// SwiftNIO event loop (no thread per client). Each connection's commands run in order on a
/// serial queue of its own, so a slow command never stalls the event loop or other clients.
public final class ControlServer: Sendable {
    public let path: String
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel

    /// Binds `path`. A socket file another daemon answers on is an error; a stale one is replaced.
    public init(path: String, commands: any ControlCommands) throws {
        self.path = path
        try Self.prepare(path)
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let bootstrap = ServerBootstrap(group: group)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineDecoder()))
                    try channel.pipeline.syncOperations.addHandler(ControlConnection(commands: commands))
                }
            }
        do {
            let previous = umask(0o177)
            defer { umask(previous) }
            channel = try bootstrap.bind(unixDomainSocketPath: path).wait()
        } catch {
            try? group.syncShutdownGracefully()
            throw error
        }
        chmod(path, 0o600)
    }

    /// Stops accepting, closes the connections and removes the socket file.
    public func close() {
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
        unlink(path)
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
/// allows closes the connection.
struct LineDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > ControlProtocol.maximumLineLength { throw DaemonError("request line too long") }
            return .needMoreData
        }
        let length = newline - buffer.readerIndex
        var line = buffer.readSlice(length: length)!
        buffer.moveReaderIndex(forwardBy: 1)
        if line.readableBytesView.last == UInt8(ascii: "\r") { line = line.getSlice(at: line.readerIndex, length: length - 1)! }
        context.fireChannelRead(wrapInboundOut(line))
        return .continue
    }
}

/// One client: greets it, then answers each request line in order.
final class ControlConnection: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer

    private let commands: any ControlCommands
    private let queue = DispatchQueue(label: "songbox control connection")

    init(commands: any ControlCommands) { self.commands = commands }

    func channelActive(context: ChannelHandlerContext) {
        context.writeAndFlush(NIOAny(context.channel.allocator.buffer(string: ControlProtocol.greeting + "\n")), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let line = String(decoding: unwrapInboundIn(data).readableBytesView, as: UTF8.self)
        let channel = context.channel
        let commands = self.commands
        queue.async {
            let reply: String
            do throws(ControlProtocol.Failure) {
                let (command, arguments) = try ControlProtocol.parse(line)
                if command == "close" {
                    channel.close(promise: nil)
                    return
                }
                reply = ControlProtocol.response(commands.handle(command, arguments), command: command)
            } catch {
                reply = ControlProtocol.response(.failure(error), command: "")
            }
            channel.writeAndFlush(channel.allocator.buffer(string: reply), promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// An error of the daemon or its clients, with a hint when there is one.
public struct DaemonError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public var hint: String?

    public init(_ message: String, hint: String? = nil) {
        self.message = message
        self.hint = hint
    }

    public var description: String { message + (hint.map { "\n  hint: \($0)" } ?? "") }
}
