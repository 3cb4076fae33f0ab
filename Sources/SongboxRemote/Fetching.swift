import AsyncHTTPClient
import Foundation
import NIOCore
import SongboxFiles

/// One GET as songbox makes it, for the player, downloads and playlists alike: the URL checked
/// (`FetchPolicy`, no control characters), its `user:password@` sent as Basic authentication
/// and never in the request, and redirects followed here, each hop checked the same way.
struct Fetch {
    /// The most redirects followed for one request.
    static let redirectLimit = 5

    /// The URL that was asked for, after its redirects.
    var url: String
    var response: HTTPClientResponse

    /// A server (at `url`, checked) answered `ICY 200 OK`, which no HTTP parser takes: a
    /// SHOUTcast 1 station, asked again by `ShoutcastV1`.
    struct AnsweredICY: Error {
        var url: URL
        var authorization: String?
    }
}

extension Fetch {
    /// Where a redirect (`response`, to a request for `current`) leads, its body read and
    /// dropped: its Location against `current`, http(s), somewhere not `seen` yet, within
    /// `redirectLimit`. The one rule for the player's fetches and plugins' (`GrantedHTTP`).
    static func redirect(_ response: HTTPClientResponse, from current: URL, seen: inout Set<String>,
                         redirects: inout Int) async throws(HTTPAudioSource.Stop) -> URL {
        _ = try? await response.body.collect(upTo: 64 << 10)
        redirects += 1
        guard redirects <= redirectLimit else { throw .failed("more redirects than songbox follows (\(redirectLimit))") }
        guard let location = response.headers.first(name: "location"), !location.isEmpty else {
            throw .failed("the server answered \(response.status.code) \(response.status.reasonPhrase) without saying where to")
        }
        guard let next = URL(string: location, relativeTo: current)?.absoluteURL,
              ["http", "https"].contains(next.scheme?.lowercased() ?? "") else {
            throw .failed("the server redirected to \(TrackLocation.shown(location)), which is not an http:// or https:// URL")
        }
        guard seen.insert(next.absoluteString).inserted else { throw .failed("its redirects go round in a circle") }
        return next
    }
}

extension NetworkTracks {
    /// GETs `url` with `headers`; `origin` is the URL that named it (a station's playlist), nil
    /// when the user did. Throws `HTTPAudioSource.Stop.failed` for a URL refused, a redirect
    /// songbox does not follow, or more of them than `Fetch.redirectLimit`.
    func get(_ url: String, headers: [(String, String)] = [], deadline: NIODeadline, origin: String? = nil) async throws -> Fetch {
        let authorization = Self.basicAuthorization(url)
        let first = try Self.parse(url)
        var current = first, from = origin.flatMap { URL(string: $0) }
        var seen: Set<String> = [first.absoluteString]
        var redirects = 0
        while true {
            try policy.check(current, origin: from)
            var request = HTTPClientRequest(url: TrackLocation.shown(current.absoluteString))
            request.headers.add(name: "User-Agent", value: "songbox")
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            // The password goes to the server it was written for, not to where it redirects.
            if let authorization, current.host == first.host, current.port == first.port, current.scheme == first.scheme {
                request.headers.add(name: "Authorization", value: authorization)
            }
            let response: HTTPClientResponse
            do {
                response = try await client.execute(request, deadline: deadline)
            } catch where ShoutcastV1.answeredICY(error) && current.scheme?.lowercased() == "http" {
                throw Fetch.AnsweredICY(url: current, authorization: request.headers.first(name: "Authorization"))
            }
            guard [301, 302, 303, 307, 308].contains(response.status.code) else {
                return Fetch(url: current.absoluteString, response: response)
            }
            let next = try await Fetch.redirect(response, from: current, seen: &seen, redirects: &redirects)
            from = current
            current = try Self.parse(next.absoluteString)
        }
    }

    /// `url` as a URL songbox may ask for: http(s), a host, nothing that could end a request
    /// line (CR, LF, NUL, spaces and other control characters, which `URL` would keep).
    static func parse(_ url: String) throws(HTTPAudioSource.Stop) -> URL {
        guard !url.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7f }) else {
            throw .failed("the URL holds spaces or control characters")
        }
        guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""),
              parsed.host?.isEmpty == false else {
            throw .failed("not a URL songbox can play (http:// or https://)")
        }
        return parsed
    }

    /// `Basic …` for a URL's `user:password@`.
    static func basicAuthorization(_ url: String) -> String? {
        TrackLocation.credentials(url).map { "Basic " + Data("\($0.user):\($0.password)".utf8).base64EncodedString() }
    }
}
