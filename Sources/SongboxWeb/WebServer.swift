import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle
import SongboxServer
import Synchronization

/// The web app and its JSON API, as a `Service` beside the MPD server: Hummingbird on one
/// address, every request through `WebGuard`, the API one more adapter over the command table
/// (`CommandCall`: the same commands, permissions and errors as an MPD client's) and the event
/// bus (`WebEvents`). It holds no logic of the player's or the library's.
public final class WebServer: Service {
    public let configuration: WebConfiguration
    private let commands: CommandCall
    private let events: WebEvents
    private let logger: Logger
    private let sessions: Sessions
    private let bound = Outcome<Int>()
    /// Whether it listened (a failure after that is not a failure to bind).
    private let started = Atomic(false)

    /// The largest request body taken (a JSON call is a few hundred bytes).
    static let bodyLimit = 64 << 10
    /// The largest answer of a command (a window of the library is asked for, not all of it).
    static let answerLimit = 4 << 20
    /// Connections at once (each page holds one for its events); more wait to be accepted.
    static let maximumConnections = 64
    /// A client that sends nothing this long in the middle of a request (or between two) is dropped.
    static let idleTimeout = TimeAmount.seconds(30)

    public init(configuration: WebConfiguration, commands: CommandCall, events: WebEvents, logger: Logger,
                now: @escaping @Sendable () -> Double = { ProcessInfo.processInfo.systemUptime }) {
        self.configuration = configuration
        self.commands = commands
        self.events = events
        self.logger = logger
        sessions = Sessions(now: now)
    }

    /// The port once bound (the real one, for port 0), or why it could not bind.
    public func listening() async throws -> Int { try await bound.value() }

    public func run() async throws {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: WebGuard(configuration: configuration, sessions: sessions))
        addAPI(to: router)
        WebFiles.add(to: router)
        let bound = self.bound
        // Hummingbird's own notes (a request's id, "Server started") are not the daemon's log.
        let quiet = { var quiet = logger; quiet.logLevel = max(logger.logLevel, .warning); return quiet }()
        // Hummingbird's server without its `Application`, whose date cache ticks every second
        // for the `Date` header: five wake-ups a second of an idle daemon (its goal is one).
        // The date is made for each answer instead: a few microseconds, only when asked.
        let responder = router.buildResponder()
        let server = try HTTPServerBuilder.http1(configuration: .init(idleTimeout: Self.idleTimeout)).buildServer(
            configuration: ServerConfiguration(address: .hostname(configuration.host, port: configuration.port), serverName: nil,
                                               availableConnectionsDelegate: MaximumAvailableConnections(Self.maximumConnections)),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            logger: quiet,
            responder: { request, writer, channel in
                var response: Response
                do {
                    response = try await responder.respond(to: request, context: BasicRequestContext(source: .init(channel: channel, logger: quiet)))
                } catch let error as HTTPParserError {
                    throw error
                } catch {
                    response = Response(status: .internalServerError)
                }
                response.headers[.date] = HTTPDate.now()
                try await writer.write(response: response.head, body: response.body)
            },
            onServerRunning: { [self] channel in
                started.store(true, ordering: .relaxed)
                bound.set(.success(channel.localAddress?.port ?? 0))
            })
        do {
            try await withGracefulShutdownHandler {
                try await server.run()
            } onGracefulShutdown: { [events] in
                // A page's event stream would hold the server open.
                events.finishAll()
            }
        } catch where !started.load(ordering: .relaxed) {
            let reason = (error as? IOError).map { String(cString: strerror($0.errnoCode)) } ?? "\(error)"
            let failure = DaemonError("cannot listen on \(configuration.host):\(configuration.port) for the web app: \(reason)",
                                      hint: "another program may have the port: set http = HOST:PORT (or none) in the config, or --http")
            bound.set(.failure(failure))
            throw failure
        }
        events.finishAll()
    }

    // MARK: The API

    private func addAPI(to router: Router<BasicRequestContext>) {
        router.get("/api/status") { _, _ in
            await self.answer { () async throws(MPDProtocol.Failure) in
                let status = try await self.call("status")
                let song = WebAnswer.records(try await self.call("currentsong")).first ?? "null"
                // The sleep timer beside MPD's `status`, which has no field for it.
                let sleep = WebAnswer.records(try await self.call("sleep")).first ?? "{}"
                return WebAnswer.object(fields: [("status", WebAnswer.records(status).first ?? "{}"), ("song", song), ("sleep", sleep)])
            }
        }
        router.get("/api/queue") { request, _ in
            await self.answer { () async throws(MPDProtocol.Failure) in
                let window = request.uri.queryParameters.get("window").map { [$0] } ?? []
                return WebAnswer.object(fields: [("songs", WebAnswer.recordArray(try await self.call("playlistinfo", window)))])
            }
        }
        router.get("/api/search") { request, _ in
            await self.answer { () async throws(MPDProtocol.Failure) in
                let query = request.uri.queryParameters.get("q") ?? ""
                guard !query.trimmingCharacters(in: .whitespaces).isEmpty else {
                    throw MPDProtocol.Failure(.argument, "search for something: q=QUERY (docs/query-language.md)")
                }
                let window = request.uri.queryParameters.get("window") ?? "0:200"
                return WebAnswer.object(fields: [("songs", WebAnswer.recordArray(try await self.call("query", [query, window])))])
            }
        }
        router.post("/api/command/:name") { request, context in
            let name = context.parameters.get("name") ?? ""
            let arguments: [String]
            switch await Self.body(of: request, as: CommandBody.self, empty: CommandBody()) {
            case .success(let given): arguments = (given.args ?? []).map(\.text)
            case .failure(let refusal): return refusal.response
            }
            return await self.answer { () async throws(MPDProtocol.Failure) in
                WebAnswer.object(fields: [("records", WebAnswer.recordArray(try await self.call(name, arguments)))])
            }
        }
        router.get("/api/events") { _, _ in
            let stream = self.events.stream()
            return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
                            body: ResponseBody { writer in
                                // A page reconnects this soon after the stream ends.
                                try await writer.write(ByteBuffer(string: "retry: 2000\n\n"))
                                for await message in stream {
                                    try await writer.write(ByteBuffer(string: message))
                                }
                                try await writer.finish(nil)
                            })
        }
        router.get("/api/cover") { request, _ in
            do throws(MPDProtocol.Failure) {
                let file = request.uri.queryParameters.get("file") ?? ""
                guard let picture = try await self.commands.picture(of: file, permissions: .all, most: Self.pictureLimit),
                      let type = Self.imageType(of: picture.bytes) else {
                    return WebAnswer.error(.notFound, code: "no-exist", "the song has no picture")
                }
                return Response(status: .ok, headers: [.contentType: type, .cacheControl: "private, max-age=3600"],
                                body: ResponseBody(byteBuffer: ByteBuffer(bytes: picture.bytes)))
            } catch {
                return WebAnswer.failure(error)
            }
        }
        router.get("/api/messages") { request, _ in
            WebAnswer.json(WebText.json(language: request.uri.queryParameters.get("lang") ?? "en"))
        }
        router.post("/api/login") { request, _ in
            guard let password = self.configuration.password, !password.isEmpty else {
                return WebAnswer.error(.notFound, code: "no-password", "this server has no password: nothing to log in to")
            }
            let given: String
            switch await Self.body(of: request, as: LoginBody.self) {
            case .success(let body): given = body.password
            case .failure(let refusal): return refusal.response
            }
            switch self.sessions.attempt(given, against: password) {
            case .accepted:
                var response = Response(status: .noContent)
                response.headers[.setCookie] = Sessions.setCookie(self.sessions.open())
                return response
            case .refused:
                return WebAnswer.error(.unauthorized, code: "password", "wrong password")
            case .tooMany:
                var response = WebAnswer.error(.tooManyRequests, code: "too-many", "too many login attempts",
                                               hint: "wait \(Int(Sessions.interval)) seconds")
                response.headers[.retryAfter] = String(Int(Sessions.interval))
                return response
            }
        }
        router.post("/api/logout") { request, _ in
            self.sessions.close(Sessions.cookie(in: request.headers[.cookie]))
            var response = Response(status: .noContent)
            response.headers[.setCookie] = Sessions.setCookie("", maxAge: 0)
            return response
        }
    }

    /// The largest picture served (a cover is a few hundred KiB).
    static let pictureLimit = 4 << 20

    /// A picture's type from its first bytes, never from its tags (a tag saying `text/html` or an
    /// SVG would be a page of this site): JPEG, PNG, GIF or WebP, else nil.
    static func imageType(of bytes: [UInt8]) -> String? {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && Array(bytes[offset..<(offset + prefix.count)]) == prefix
        }
        if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if starts(Array("GIF8".utf8)) { return "image/gif" }
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return "image/webp" }
        return nil
    }

    /// Runs a command of the table with every permission (the page is the box's owner, as a
    /// client of the local socket is).
    private func call(_ command: String, _ arguments: [String] = []) async throws(MPDProtocol.Failure) -> [(String, String)] {
        try await commands.run(command, arguments, permissions: .all, most: Self.answerLimit)
    }

    /// The JSON text `body` makes, or the command's failure as an error answer.
    private func answer(_ body: () async throws(MPDProtocol.Failure) -> String) async -> Response {
        do throws(MPDProtocol.Failure) {
            return WebAnswer.json(try await body())
        } catch {
            return WebAnswer.failure(error)
        }
    }

    /// A request refused before any command runs.
    struct Refusal: Error {
        let response: Response
    }

    /// A request's JSON body as `T`, bounded (`bodyLimit`); an empty body is `empty`.
    static func body<T: Decodable>(of request: Request, as type: T.Type, empty: T? = nil) async -> Result<T, Refusal> {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: bodyLimit)
        } catch {
            return .failure(Refusal(response: WebAnswer.error(.contentTooLarge, code: "too-large",
                                                              "a request's body is at most \(bodyLimit >> 10) KiB")))
        }
        if buffer.readableBytes == 0, let empty { return .success(empty) }
        do {
            return .success(try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView)))
        } catch {
            return .failure(Refusal(response: WebAnswer.error(.badRequest, code: "argument", "the body is not what \(request.uri.path) takes",
                                                              hint: "see docs/http-api.md")))
        }
    }

    /// `{"args": [...]}` of a command call.
    struct CommandBody: Decodable {
        var args: [Argument]?
    }

    /// An argument: text as it is, a number as MPD writes it, true and false as 1 and 0.
    struct Argument: Decodable {
        let text: String

        init(from decoder: any Decoder) throws {
            let value = try decoder.singleValueContainer()
            if let flag = try? value.decode(Bool.self) {
                text = flag ? "1" : "0"
            } else if let number = try? value.decode(Double.self) {
                guard number.isFinite else { throw DecodingError.dataCorruptedError(in: value, debugDescription: "not finite") }
                text = number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
            } else {
                text = try value.decode(String.self)
            }
        }
    }

    struct LoginBody: Decodable {
        var password: String
    }
}

/// The `Date` header's form (RFC 9110's IMF-fixdate), in English whatever the locale.
enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func now() -> String { string(time(nil)) }

    static func string(_ seconds: time_t) -> String {
        var clock = seconds
        var parts = tm()
        gmtime_r(&clock, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
