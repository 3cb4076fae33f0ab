import AsyncHTTPClient
import Foundation
import NIOCore
import SongboxFiles

/// A stream a radio station's playlist link lists. Stations are mostly linked as a `.pls` or
/// `.m3u` file naming their streams (often several, the same audio from other servers); such
/// an answer is read and its streams are tried in order, as players do.
struct PlaylistStream: Sendable, Equatable {
    var url: String
    /// The name the playlist gives it (`TitleN=`, `#EXTINF`): the station's, when the stream
    /// does not say its own.
    var name: String?
    /// The playlist that lists it; nil for the URL itself.
    var listedBy: String?

    /// The most a playlist may hold: a station's lists a few lines, an HLS recording's a few
    /// thousand.
    static let largest = HLSPlaylist.largest

    /// Media types of PLS and M3U playlists.
    static let playlistTypes: Set<String> = [
        "audio/x-scpls", "audio/scpls", "application/pls+xml", "application/pls",
        "audio/x-mpegurl", "audio/mpegurl", "application/x-mpegurl", "application/vnd.apple.mpegurl", "audio/x-mpequrl",
    ]

    /// Whether an answer is a playlist: by its type, or by its name where the type says
    /// little (`text/plain`, `application/octet-stream` or none).
    static func isPlaylist(type: String?, url: String) -> Bool {
        let media = type.map(mediaType) ?? ""
        if playlistTypes.contains(media) { return true }
        let named = ["pls", "m3u", "m3u8"].contains(URL(string: url)?.pathExtension.lowercased() ?? "")
        return named && ["", "text/plain", "application/octet-stream"].contains(media)
    }

    static func mediaType(_ type: String) -> String {
        type.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
    }

    /// What a playlist on the network is.
    enum Listing {
        /// Streams to try in turn.
        case streams([PlaylistStream])
        /// Pieces of one stream (HLS).
        case hls(HLSPlaylist)
    }

    /// Reads a playlist's body: the http(s) streams it lists, relative ones resolved against
    /// `address`, or the HLS playlist it is.
    static func read(_ next: () async throws -> ByteBuffer?, listedAt address: String) async throws -> Listing {
        var body: [UInt8] = []
        while let chunk = try await next() {
            body += chunk.readableBytesView
            guard body.count <= largest else {
                throw HTTPAudioSource.Stop.failed("a playlist larger than \(largest >> 10) KiB")
            }
        }
        let text = String(decoding: body, as: UTF8.self)
        if HLSPlaylist.isHLS(text) { return .hls(try HLSPlaylist.parse(text, at: address)) }
        return .streams(streams(in: Data(body), listedAt: address))
    }

    static func streams(in body: Data, listedAt address: String) -> [PlaylistStream] {
        let base = URL(string: address)
        return PlaylistText.entries(body).compactMap { entry in
            guard let url = URL(string: entry.location, relativeTo: base)?.absoluteString, TrackLocation.isURL(url) else { return nil }
            let name = [entry.artist, entry.title].compactMap { $0 }.joined(separator: " - ")
            return PlaylistStream(url: url, name: name.isEmpty ? nil : name, listedBy: address)
        }
    }
}

extension NetworkTracks {
    /// The streams a playlist on the network lists (`.pls`, `.m3u`; MPD's `load URL`), in its
    /// order; an HLS playlist is one stream, its own URL. An answer that is not a playlist, or
    /// none, is a `DownloadError` in words.
    public func playlist(at url: String) async throws(DownloadError) -> [String] {
        let failed = { (message: String) in DownloadError(url: url, message: message) }
        do {
            let fetched = try await get(url, deadline: .now() + .seconds(30))
            let response = fetched.response
            guard (200..<300).contains(response.status.code) else {
                throw failed("the server answered \(response.status.code) \(response.status.reasonPhrase)")
            }
            let type = response.headers.first(name: "content-type")
            guard PlaylistStream.isPlaylist(type: type, url: url) else { throw failed("not a playlist: the server sent \(type ?? "no type")") }
            var body = response.body.makeAsyncIterator()
            switch try await PlaylistStream.read({ try await body.next() }, listedAt: fetched.url) {
            case .streams(let streams): return streams.map(\.url)
            case .hls: return [url]  // one stream, in pieces
            }
        } catch let error as DownloadError {
            throw error
        } catch HTTPAudioSource.Stop.failed(let message) {
            throw failed(message)
        } catch {
            throw failed(HTTPAudioSource.describe(error))
        }
    }
}
