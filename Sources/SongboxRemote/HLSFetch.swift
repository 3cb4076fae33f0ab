import AsyncHTTPClient
import Foundation
import NIOCore
import SongboxFiles

/// An HLS stream, fetched piece by piece into the source's buffer as one stream of audio bytes:
/// the variant chosen from a master playlist, then its pieces in order — an MPEG-TS piece's
/// audio taken out, a packed-audio piece's ID3 tag taken off — and a live playlist read again
/// every target duration for the pieces added since (RFC 8216, 6.3). The fed decoders play the
/// result as they play a station.
extension HTTPAudioSource {
    func playHLS(_ first: HLSPlaylist, at address: String, listedAs stream: PlaylistStream, generation: Int) async throws {
        var (media, mediaURL) = try await mediaPlaylist(first, at: address, origin: stream.listedBy)
        answered(Head(length: nil, ranges: false, station: stream.name, live: !media.ended, listedName: stream.name),
                 by: stream, generation: generation)
        // A live stream is joined three pieces from its end, as the RFC asks; a recording from its start.
        var next = media.firstSequence + (media.ended ? 0 : max(0, media.segments.count - 3))
        var pieces = HLSPieces()
        var lastTitle: String?
        var failures = 0
        // Pieces refused one after another (a piece a live playlist listed may be gone by the
        // time it is asked for: it is passed over, as players do), and the last refusal.
        var refusedInARow = 0, refusal: String?, heardAny = false
        var unchanged = false
        var delivered = 0  // bytes of the piece in hand already in the buffer
        while !Task.isCancelled {
            if next < media.firstSequence {
                // Paused or slowed past the pieces the server keeps: on from the oldest it has.
                next = media.firstSequence
                pieces.restart()
            } else if next > media.firstSequence + media.segments.count {
                // The numbers started again (the station's encoder restarted): joined anew.
                next = media.firstSequence + max(0, media.segments.count - 3)
                pieces.restart()
            }
            let index = next - media.firstSequence
            if index < media.segments.count {
                let segment = media.segments[index]
                if segment.discontinuity, delivered == 0 { pieces.restart() }
                var titles: [String] = []
                if let title = segment.title, title != lastTitle {
                    titles = [title]
                    lastTitle = title
                }
                do {
                    try await fetchPiece(segment.url, origin: mediaURL, pieces: &pieces, delivered: &delivered,
                                         titles: titles, generation: generation)
                    next += 1
                    delivered = 0
                    failures = 0
                    refusedInARow = 0
                    heardAny = true
                } catch let refused as PieceRefused {
                    refusedInARow += 1
                    refusal = refused.message
                    guard refusedInARow < 3 else { throw Stop.failed("\(refusedInARow) pieces in a row could not be fetched: \(refused.message)") }
                    next += 1
                    delivered = 0
                } catch let stop as Stop {
                    if case .failed = stop { throw stop }
                    try await waitToRetry(&failures, after: stop)
                }
                continue
            }
            if media.ended {
                if !heardAny, let refusal { throw Stop.failed(refusal) }
                return
            }
            // Nothing new: a live playlist is read again after a target duration (half of it
            // when the last reading brought nothing new).
            try await Task.sleep(for: .seconds(media.targetDuration / (unchanged ? 2 : 1)))
            do {
                let reread = try await readPlaylist(mediaURL, origin: stream.listedBy)
                guard case .media(let fresh) = reread else { throw Stop.failed("an HLS playlist that became a master playlist") }
                unchanged = fresh.firstSequence + fresh.segments.count == media.firstSequence + media.segments.count
                media = fresh
                failures = 0
            } catch let stop as Stop {
                if case .failed = stop { throw stop }
                try await waitToRetry(&failures, after: stop)
            }
        }
    }

    /// The media playlist of `playlist`: itself, or the variant a master playlist leads to.
    private func mediaPlaylist(_ playlist: HLSPlaylist, at address: String, origin: String?) async throws -> (HLSPlaylist.Media, String) {
        var (playlist, address) = (playlist, address)
        if case .master(let variants) = playlist {
            guard let variant = HLSPlaylist.choose(variants) else { throw Stop.failed("an HLS master playlist with no stream in it") }
            address = variant.url
            playlist = try await readPlaylist(address, origin: origin)
        }
        guard case .media(let media) = playlist else { throw Stop.failed("an HLS master playlist that leads to another") }
        if let unplayable = media.unplayable { throw Stop.failed(unplayable) }
        return (media, address)
    }

    /// An HLS playlist, read again or followed from a master playlist.
    private func readPlaylist(_ url: String, origin: String?) async throws -> HLSPlaylist {
        let response = try await answer(url, origin: origin, deadline: .now() + .seconds(30))
        if let said = Self.refusal(response, for: url) { throw Stop.dropped(said) }
        var body = response.body.makeAsyncIterator()
        guard case .hls(let playlist) = try await PlaylistStream.read({ try await body.next() }, listedAt: url) else {
            throw Stop.failed("\(TrackLocation.shown(url)) is not an HLS playlist")
        }
        if case .media(let media) = playlist, let unplayable = media.unplayable { throw Stop.failed(unplayable) }
        return playlist
    }

    /// One piece, its audio into the buffer; `delivered` counts what is there, so a piece
    /// fetched again after a dropped connection adds only the rest.
    private func fetchPiece(_ url: String, origin: String, pieces: inout HLSPieces, delivered: inout Int,
                            titles: [String], generation: Int) async throws {
        let response = try await answer(url, origin: origin, deadline: .distantFuture)
        if let said = Self.refusal(response, for: url) {
            throw response.status.code < 500 ? PieceRefused(message: said) as any Error : Stop.dropped(said)
        }
        if delivered == 0 { pieces.startPiece() }
        var skip = delivered, titles = titles
        for try await chunk in response.body {
            var bytes = Array(chunk.readableBytesView)
            if skip > 0 {
                let dropped = min(skip, bytes.count)
                bytes.removeFirst(dropped)
                skip -= dropped
            }
            guard !bytes.isEmpty else { continue }
            delivered += bytes.count
            let audio = try pieces.take(bytes)
            guard try await add(audio, titles: titles, generation: generation) else { throw CancellationError() }
            titles = []
        }
        if skip > 0 { throw Stop.dropped("an HLS piece came shorter than before") }
        try pieces.endPiece()
    }

    /// A piece the server refused (4xx).
    private struct PieceRefused: Error {
        var message: String
    }

    /// What the server said, when it did not answer 2xx.
    private static func refusal(_ response: HTTPClientResponse, for url: String) -> String? {
        (200..<300).contains(response.status.code) ? nil
            : "the server answered \(response.status.code) \(response.status.reasonPhrase) for \(TrackLocation.shown(url))"
    }

    /// A GET; no answer at all is a `Stop` (for good when trying again will not mend it).
    private func answer(_ url: String, origin: String?, deadline: NIODeadline) async throws -> HTTPClientResponse {
        let fetched: Fetch
        do {
            fetched = try await network.get(url, deadline: deadline, origin: origin)
        } catch let stop as Stop {
            throw stop
        } catch {
            throw Self.permanent(error) ? Stop.failed(Self.describe(error)) : Stop.dropped(Self.describe(error))
        }
        return fetched.response
    }

    /// Waits before trying again, or gives up once the waits are used up.
    private func waitToRetry(_ failures: inout Int, after stop: Stop) async throws {
        guard failures < retryWaits.count else {
            throw Stop.failed("the connection was lost and could not be made again: \(Self.describe(stop))")
        }
        try await Task.sleep(for: retryWaits[failures])
        failures += 1
    }
}

/// The audio in HLS pieces: MPEG-TS taken apart, or packed audio (ADTS or MPEG frames, each piece
/// starting with an ID3 tag that says its time) without the tag; told by each piece's first bytes.
struct HLSPieces {
    private var demuxer = MPEGTSDemuxer()
    /// Whether the pieces are MPEG-TS, once the first bytes told.
    private var transport: Bool?
    /// The first bytes of a piece, until they tell what it starts with.
    private var head: [UInt8] = []
    /// Bytes of the piece's ID3 tag still to pass over.
    private var tagLeft = 0
    private var atStart = false

    /// A new stream follows (a discontinuity, or pieces missed): its tables are read again.
    mutating func restart() {
        demuxer.reset()
        transport = nil
    }

    /// A piece ended: one in MPEG-TS must have said where its audio is by now.
    func endPiece() throws(HTTPAudioSource.Stop) {
        if transport == true, demuxer.audio == nil { throw .failed("an HLS piece with no audio in it") }
    }

    mutating func startPiece() {
        atStart = true
        head = []
        tagLeft = 0
    }

    /// The audio bytes in the next bytes of the piece.
    mutating func take(_ bytes: [UInt8]) throws(HTTPAudioSource.Stop) -> [UInt8] {
        var bytes = bytes
        if atStart {
            // Ten bytes tell an ID3 tag (and its size) or a transport stream's sync byte.
            head += bytes
            guard head.count >= 10 else { return [] }
            bytes = head
            head = []
            atStart = false
            if let size = Self.id3Size(bytes) {
                tagLeft = size
            } else if transport == nil {
                transport = bytes[0] == MPEGTSDemuxer.sync
            }
        }
        if tagLeft > 0 {
            let dropped = min(tagLeft, bytes.count)
            bytes.removeFirst(dropped)
            tagLeft -= dropped
        }
        return transport == true ? try demuxer.take(bytes) : bytes
    }

    /// The length of the ID3v2 tag `bytes` start with (header, frames and footer), if they do.
    static func id3Size(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 10, bytes[0] == 0x49, bytes[1] == 0x44, bytes[2] == 0x33,
              bytes[6...9].allSatisfy({ $0 < 0x80 }) else { return nil }
        let size = bytes[6...9].reduce(0) { $0 << 7 | Int($1) }
        return 10 + size + (bytes[5] & 0x10 != 0 ? 10 : 0)
    }
}
