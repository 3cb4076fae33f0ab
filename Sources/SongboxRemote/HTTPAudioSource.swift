import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import SongboxAudio
import Synchronization

/// The bytes of one remote track, fetched ahead of the player by a task of their own into a
/// bounded buffer. The player takes them without ever waiting (`take`); the task waits when the
/// buffer is full, so a paused player or a fast network costs no memory, and a slow network is a
/// short pause, not a skipped track.
///
/// A connection that drops is made again after a growing wait (a file from the byte where it
/// stopped, with a range request; a live stream from now); a server that is not there the first
/// time, that answers with an error, with something that is not audio, or with a certificate
/// that is not trusted is given up on at once, with a message that says so.
public final class HTTPAudioSource: Sendable {
    /// What `take` gave.
    enum Take: Equatable {
        case bytes([UInt8])
        /// Nothing yet; the task is still fetching.
        case waiting
        /// Every byte has been taken.
        case ended
        case failed(String)
    }

    /// What the server said of the track, at its first answer.
    struct Head: Sendable, Equatable {
        /// Bytes in the whole track, when the server says.
        var length: Int?
        /// Whether a range request can start it from any byte.
        var ranges: Bool
        /// The station's name (`icy-name`, else the name the playlist gives it).
        var station: String?
        /// A stream with no end (Icecast/SHOUTcast, or no length).
        var live: Bool
        /// The name the station's playlist gives the stream (`TitleN=` of a `.pls`, `#EXTINF`).
        var listedName: String? = nil
        /// The server's `Content-Type`, lowercased.
        var type: String? = nil
    }

    /// How many playlists are followed to a stream (a playlist may list playlists).
    static let playlistDepth = 3
    /// The most bytes fetched and not yet taken: a minute of 128 kbit/s audio.
    static let readAhead = 1 << 20
    /// The waits before making a dropped connection again; once they are used up (with no byte
    /// coming in between), the track fails. About a minute in all: long enough for Wi-Fi to
    /// come back or a station's source to restart.
    public static let retryWaits: [Duration] = [.milliseconds(250), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(15), .seconds(30)]

    let url: String
    let network: NetworkTracks
    let retryWaits: [Duration]
    private let shared = Mutex(Shared())

    private struct Shared {
        var buffer: [UInt8] = []
        /// Bytes of `buffer` already taken.
        var taken = 0
        /// How it ended, once it has.
        var end: Take?
        var titles: [String] = []
        /// The last title announced, across reconnections.
        var lastTitle: String?
        var head: Head?
        /// The stream that answered with audio: the URL, or one its playlist lists.
        var stream: PlaylistStream?
        /// The task, waiting for room in the buffer.
        var waitingForRoom: CheckedContinuation<Void, Never>?
        var task: Task<Void, Never>?
        /// Counts restarts: a task that was replaced stops adding.
        var generation = 0

        var held: Int { buffer.count - taken }
    }

    init(url: String, network: NetworkTracks, retryWaits: [Duration] = HTTPAudioSource.retryWaits) {
        self.url = url
        self.network = network
        self.retryWaits = retryWaits
        start(at: 0)
    }

    deinit { close() }

    /// What the server said, once it answered.
    var head: Head? { shared.withLock { $0.head } }

    /// Up to `count` bytes, in order; never waits.
    func take(upTo count: Int) -> Take {
        let (result, room) = shared.withLock { state -> (Take, CheckedContinuation<Void, Never>?) in
            guard state.held > 0 else { return (state.end ?? .waiting, nil) }
            let end = state.taken + min(count, state.held)
            let bytes = Array(state.buffer[state.taken..<end])
            state.taken = end
            if state.taken >= 64 << 10, state.taken * 2 >= state.buffer.count {
                state.buffer.removeFirst(state.taken)
                state.taken = 0
            }
            var room: CheckedContinuation<Void, Never>?
            if state.held <= Self.readAhead / 2 { swap(&room, &state.waitingForRoom) }
            return (.bytes(bytes), room)
        }
        room?.resume()
        return result
    }

    /// The newest title the stream announced since the last call.
    func takeTitle() -> String? {
        shared.withLock { state in
            defer { state.titles.removeAll() }
            return state.titles.last
        }
    }

    /// Fetches again from byte `offset` (a seek): what was held is dropped.
    func restart(at offset: Int) {
        start(at: offset)
    }

    /// Stops fetching.
    func close() {
        let (task, room) = shared.withLock { state in
            state.generation += 1
            defer { state.task = nil; state.waitingForRoom = nil }
            return (state.task, state.waitingForRoom)
        }
        task?.cancel()
        room?.resume()
    }

    private func start(at offset: Int) {
        close()
        shared.withLock { state in
            state.buffer.removeAll()
            state.taken = 0
            state.end = nil
            let generation = state.generation
            state.task = Task.detached(executorPreference: DispatchExecutor.shared) { [self] in await fetch(from: offset, generation: generation) }
        }
    }

    // MARK: The task

    /// Why a fetch stopped.
    enum Stop: Error {
        /// For good, with this message.
        case failed(String)
        /// The connection went; make it again.
        case dropped(String)
        /// The answer was a playlist (a radio station's link) listing these streams.
        case playlist([PlaylistStream])
        /// The answer was an HLS playlist, at this URL: the stream comes in pieces.
        case hls(HLSPlaylist, at: String)
    }

    private func fetch(from start: Int, generation: Int) async {
        var offset = start
        var failures = 0
        // Where the track is: its URL, or the streams its playlist lists, tried in turn until
        // one answers with audio (that one is kept for reconnections and seeks).
        var streams = [shared.withLock { $0.stream } ?? PlaylistStream(url: url, name: nil)]
        var playlists = 0
        while !Task.isCancelled {
            let before = offset
            do {
                try await fetchOnce(streams[0], from: &offset, generation: generation)
                finish(.ended, generation: generation)
                return
            } catch Stop.playlist(let listed) {
                playlists += 1
                guard playlists <= Self.playlistDepth else {
                    return finish(.failed("its playlists lead only to more playlists"), generation: generation)
                }
                guard !listed.isEmpty else {
                    return finish(.failed("a playlist with no http:// or https:// stream in it"), generation: generation)
                }
                streams = listed
            } catch Stop.hls(let playlist, let address) {
                do {
                    try await playHLS(playlist, at: address, listedAs: streams[0], generation: generation)
                    finish(.ended, generation: generation)
                } catch {
                    if !Task.isCancelled { finish(.failed(Self.describe(error)), generation: generation) }
                }
                return
            } catch {
                if Task.isCancelled { return }
                // A station lists its streams in order of preference: one that has not
                // answered yet gives way to the next at once.
                if head == nil, streams.count > 1 {
                    streams.removeFirst()
                    continue
                }
                if case Stop.failed(let message) = error { return finish(.failed(message), generation: generation) }
                if offset > before { failures = 0 }
                let reason = if case Stop.dropped(let why) = error { why } else { Self.describe(error) }
                guard failures < retryWaits.count else {
                    return finish(.failed("the connection was lost and could not be made again: \(reason)"), generation: generation)
                }
                try? await Task.sleep(for: retryWaits[failures])
                failures += 1
            }
        }
    }

    /// One request, from byte `offset` of a file (a live stream starts from now), whose body
    /// goes into the buffer; `offset` follows the bytes added. Returns when the track is whole.
    private func fetchOnce(_ stream: PlaylistStream, from offset: inout Int, generation: Int) async throws {
        // A live stream has no bytes to resume from: it starts again from now.
        let resuming = head.map { !$0.live } ?? true
        var headers = [("Icy-MetaData", "1")]
        if offset > 0, resuming { headers.append(("Range", "bytes=\(offset)-")) }
        let fetched: Fetch
        do {
            fetched = try await network.get(stream.url, headers: headers, deadline: .distantFuture, origin: stream.listedBy)
        } catch let icy as Fetch.AnsweredICY {
            return try await ShoutcastV1.fetch(icy.url, authorization: icy.authorization) { head, next in
                try await receive(head, next, of: stream, at: icy.url.absoluteString, from: &offset, generation: generation)
            }
        } catch let stop as Stop {
            throw stop
        } catch {
            // No answer yet at all: the server is not there (a dead URL would otherwise hold
            // the queue through every wait). One that answered before is waited for.
            throw Self.permanent(error) || head == nil ? Stop.failed(Self.describe(error)) : Stop.dropped(Self.describe(error))
        }
        let response = fetched.response
        var body = response.body.makeAsyncIterator()
        let head = ResponseHead(code: Int(response.status.code), reason: response.status.reasonPhrase) { response.headers.first(name: $0) }
        try await receive(head, { try await body.next() }, of: stream, at: fetched.url, from: &offset, generation: generation)
    }

    /// Takes an answer (from `address`, where redirects led): its head checked (an error,
    /// something that is not audio) and its facts kept, then its body into the buffer, the ICY
    /// metadata taken out.
    private func receive(_ response: ResponseHead, _ next: () async throws -> ByteBuffer?, of stream: PlaylistStream,
                         at address: String, from offset: inout Int, generation: Int) async throws {
        guard (200..<300).contains(response.code) else {
            let said = "the server answered \(response.code) \(response.reason)"
            // A server's own trouble may pass, and so may a refusal of what was there a moment
            // ago (a station whose source restarts is a 404 meanwhile); a first refusal will not.
            throw response.code >= 500 || head != nil ? Stop.dropped(said) : Stop.failed(said)
        }
        let type = response.header("content-type")
        if head == nil, PlaylistStream.isPlaylist(type: type, url: stream.url) {
            switch try await PlaylistStream.read(next, listedAt: address) {
            case .streams(let listed): throw Stop.playlist(listed)
            case .hls(let playlist): throw Stop.hls(playlist, at: address)
            }
        }
        if let type, !Self.mayBeAudio(type) {
            throw Stop.failed("not audio: the server sent \(type)")
        }
        let partial = response.code == 206
        let told = response.header("content-length").flatMap { Int($0) }
        let metaInterval = response.header("icy-metaint").flatMap { Int($0) }
        if head == nil {
            let station = response.header("icy-name").map { $0.trimmingCharacters(in: .whitespaces) }
            answered(Head(length: told, ranges: response.header("accept-ranges") == "bytes",
                          station: station?.isEmpty == false ? station : stream.name,
                          live: told == nil || metaInterval != nil, listedName: stream.name, type: type?.lowercased()),
                     by: stream, generation: generation)
        }
        let live = head?.live ?? false
        // A server that ignored the range sends the file from its start: skip what was had.
        var skip = offset > 0 && !live && !partial ? offset : 0
        var metadata = metaInterval.flatMap(ICYMetadata.init(interval:))
        while let chunk = try await next() {
            var bytes = Array(chunk.readableBytesView)
            if skip > 0 {
                let dropped = min(skip, bytes.count)
                bytes.removeFirst(dropped)
                skip -= dropped
            }
            var titles: [String] = []
            if metadata != nil { (bytes, titles) = metadata!.take(bytes) }
            guard try await add(bytes, titles: titles, generation: generation) else { throw CancellationError() }
            offset += bytes.count
        }
        if live { throw Stop.dropped("the stream ended") }
        if let length = head?.length, offset < length {
            throw Stop.dropped("the connection closed after \(offset) of \(length) bytes")
        }
    }

    /// What the stream that answered with audio said of it: kept for the player and for
    /// reconnections.
    func answered(_ found: Head, by stream: PlaylistStream, generation: Int) {
        shared.withLock { state in
            guard state.generation == generation else { return }
            state.head = found
            state.stream = stream
        }
    }

    /// Adds bytes for `take`, first waiting until the buffer has room. False when this fetch
    /// was replaced or closed.
    func add(_ bytes: [UInt8], titles: [String], generation: Int) async throws -> Bool {
        while true {
            let full: Bool? = shared.withLock { state in
                guard state.generation == generation else { return nil }
                return state.held >= Self.readAhead
            }
            guard let full else { return false }
            guard full else { break }
            await withCheckedContinuation { (room: CheckedContinuation<Void, Never>) in
                let now = shared.withLock { state -> Bool in
                    guard state.generation == generation, state.held >= Self.readAhead else { return true }
                    state.waitingForRoom = room
                    return false
                }
                if now { room.resume() }
            }
            try Task.checkCancellation()
        }
        return shared.withLock { state in
            guard state.generation == generation else { return false }
            state.buffer += bytes
            // A reconnected stream says its title again: only a new one is news.
            for title in titles where title != state.lastTitle {
                state.titles.append(title)
                state.lastTitle = title
            }
            return true
        }
    }

    private func finish(_ end: Take, generation: Int) {
        shared.withLock { state in
            if state.generation == generation { state.end = end }
        }
    }

    // MARK: Words

    /// Whether a `Content-Type` may hold MP3 audio (servers label it many ways, and many
    /// label it `application/octet-stream`); a page, a text or an image is not.
    static func mayBeAudio(_ type: String) -> Bool {
        let media = PlaylistStream.mediaType(type)
        return !(media.hasPrefix("text/") || media.hasPrefix("image/") || media.hasPrefix("video/")
                 || media.hasSuffix("/json") || media.hasSuffix("/xml") || media.hasSuffix("+xml") || media.hasSuffix("/html"))
    }

    /// Errors that trying again will not mend.
    static func permanent(_ error: any Error) -> Bool {
        if let error = error as? HTTPClientError {
            return [.invalidURL, .emptyHost, .emptyScheme].contains(error)
                || String(describing: error).contains("unsupportedScheme")
        }
        // TLS: a certificate that is not trusted stays untrusted.
        return error is NIOSSLError
    }

    /// An error of the HTTP client in words.
    static func describe(_ error: any Error) -> String {
        if case Stop.failed(let message) = error { return message }
        if case Stop.dropped(let message) = error { return message }
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout: return "no connection within 10 seconds"
            case .readTimeout: return "the server sent nothing for 30 seconds"
            case .remoteConnectionClosed: return "the server closed the connection"
            default: return String(describing: error)
            }
        }
        let text = String(reflecting: error)
        if text.contains("CERTIFICATE_VERIFY_FAILED") || text.contains("certificate") {
            return "its TLS certificate is not trusted"
        }
        if text.contains("SSL") { return "the TLS handshake failed (\(text))" }
        if let failure = error as? NIOConnectionError {
            if failure.dnsAError != nil || failure.dnsAAAAError != nil, failure.connectionErrors.isEmpty {
                return "the server's name \(failure.host) was not found"
            }
            if let reason = failure.connectionErrors.first?.error as? IOError {
                return reason.errnoCode == ECONNREFUSED ? "the connection was refused" : "no connection: \(reason.description)"
            }
        }
        if let failure = error as? IOError, failure.errnoCode == ECONNREFUSED { return "the connection was refused" }
        return String(describing: error)
    }
}
