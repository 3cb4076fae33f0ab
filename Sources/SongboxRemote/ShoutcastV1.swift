import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// An answer's status and headers, from either client.
struct ResponseHead {
    var code: Int
    var reason: String
    /// A header's value by its name, any case.
    var header: (String) -> String?
}

/// The streams of SHOUTcast 1 servers, which answer `ICY 200 OK` instead of `HTTP/1.0 200 OK`:
/// an HTTP client's parser refuses that line, so they are asked by hand, in HTTP/1.0 over a
/// plain connection (they have no TLS), and their body read as it comes, with the same
/// backpressure (NIO reads no more than the task takes).
enum ShoutcastV1 {
    /// Whether the HTTP client failed on an `ICY` status line.
    static func answeredICY(_ error: any Error) -> Bool {
        (error as? HTTPParserError) == .invalidConstant
    }

    /// The most an answer's head may take.
    static let largestHead = 16 << 10

    /// The longest a server may send nothing, before or during its answer.
    static let readTimeout = TimeAmount.seconds(30)

    /// Asks for `url` (already checked by `FetchPolicy`) and hands its head and a reader of its
    /// body to `receive`.
    static func fetch(_ url: URL, authorization: String?,
                      _ receive: (ResponseHead, () async throws -> ByteBuffer?) async throws -> Void) async throws {
        let request = try requestHead(url, authorization: authorization)
        guard let host = url.host else { throw HTTPAudioSource.Stop.failed("the URL has no host") }
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(10))
            .connect(host: host, port: url.port ?? 80) { channel in
                channel.eventLoop.makeCompletedFuture {
                    // A server that goes quiet is given up on: the connection closes, the read ends.
                    try channel.pipeline.syncOperations.addHandlers(IdleStateHandler(readTimeout: readTimeout), CloseWhenIdle())
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(bytes: request))
            var chunks = inbound.makeAsyncIterator()
            var received: [UInt8] = []
            var end: Int?
            while end == nil {
                guard let chunk = try await chunks.next() else {
                    throw HTTPAudioSource.Stop.dropped("the server closed the connection before it answered")
                }
                received += chunk.readableBytesView
                // What speaks another protocol (an MPD greeting) is no station.
                if let newline = received.firstIndex(of: 10), !(received.starts(with: Array("ICY ".utf8)) || received.starts(with: Array("HTTP/".utf8))) || newline == 0 {
                    throw HTTPAudioSource.Stop.failed("not audio: the server does not answer as an HTTP or ICY server does")
                }
                end = headEnd(received)
                if end == nil, received.count > largestHead { throw HTTPAudioSource.Stop.failed("an answer that is not HTTP") }
            }
            guard let end, let head = parse(received[..<end]) else {
                throw HTTPAudioSource.Stop.failed("not audio: the server does not answer as an HTTP or ICY server does")
            }
            // The body's first bytes came with the head.
            var first: ByteBuffer? = received.count > end + 4 ? ByteBuffer(bytes: received[(end + 4)...]) : nil
            try await receive(head) {
                if let leading = first {
                    first = nil
                    return leading
                }
                return try await chunks.next()
            }
        }
    }

    /// The request's bytes: its target from the URL's encoded form (never decoded: a `%0A`
    /// stays three characters), and nothing that could end a line or the head.
    static func requestHead(_ url: URL, authorization: String?) throws(HTTPAudioSource.Stop) -> [UInt8] {
        guard let parts = URLComponents(url: url, resolvingAgainstBaseURL: true), let host = parts.percentEncodedHost, !host.isEmpty else {
            throw .failed("the URL has no host")
        }
        var target = parts.percentEncodedPath.isEmpty ? "/" : parts.percentEncodedPath
        if let query = parts.percentEncodedQuery { target += "?" + query }
        let hostField = url.port.map { "\(host):\($0)" } ?? host
        guard ![target, hostField].contains(where: { $0.utf8.contains { $0 <= 0x20 || $0 == 0x7f } }),
              authorization?.utf8.contains(where: { $0 < 0x20 || $0 == 0x7f }) != true else {
            throw .failed("the URL holds spaces or control characters")
        }
        var head = "GET \(target) HTTP/1.0\r\nHost: \(hostField)\r\nUser-Agent: songbox\r\nIcy-MetaData: 1\r\n"
        if let authorization { head += "Authorization: \(authorization)\r\n" }
        return Array((head + "\r\n").utf8)
    }

    /// Where the head ends (the index of its blank line's CR LF CR LF).
    static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        return (0...(bytes.count - 4)).first { bytes[$0] == 13 && bytes[$0 + 1] == 10 && bytes[$0 + 2] == 13 && bytes[$0 + 3] == 10 }
    }

    /// `ICY 200 OK` (or `HTTP/1.x 200 OK`) and `Name: value` lines.
    static func parse(_ bytes: ArraySlice<UInt8>) -> ResponseHead? {
        // Station names are often Latin-1, not UTF-8.
        let text = String(validating: bytes, as: UTF8.self) ?? String(bytes.map { Character(Unicode.Scalar($0)) })
        var lines = text.components(separatedBy: "\r\n")
        let status = lines.removeFirst().split(separator: " ", maxSplits: 2)
        guard status.count >= 2, status[0] == "ICY" || status[0].hasPrefix("HTTP/"), let code = Int(status[1]) else { return nil }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return ResponseHead(code: code, reason: status.count > 2 ? String(status[2]) : "") { headers[$0.lowercased()] }
    }
}

/// Closes a connection whose `IdleStateHandler` says it went quiet.
final class CloseWhenIdle: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }
}
