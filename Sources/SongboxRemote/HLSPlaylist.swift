import Foundation
import SongboxFiles

/// An HLS playlist (RFC 8216): a master playlist naming the variants of a stream, or a media
/// playlist naming its segments — the pieces of one stream, in order, each fetched on its own.
/// A live one grows (it is read again every target duration); one with `#EXT-X-ENDLIST` is whole.
enum HLSPlaylist: Equatable {
    case master([Variant])
    case media(Media)

    struct Variant: Equatable {
        var url: String
        var bandwidth: Int
        /// `CODECS`, lowercased, when said.
        var codecs: [String]
        /// Whether it is an audio rendition (`#EXT-X-MEDIA:TYPE=AUDIO`) rather than a variant.
        var audioRendition = false
        var isDefault = false

        /// Whether it holds sound only, by its codecs (a variant that does not say may hold video).
        var audioOnly: Bool {
            audioRendition || (!codecs.isEmpty && codecs.allSatisfy { $0.hasPrefix("mp4a") || $0 == "mp3" })
        }
    }

    struct Media: Equatable {
        var targetDuration: Double
        /// The sequence number of the first segment.
        var firstSequence: Int
        var segments: [Segment]
        /// `#EXT-X-ENDLIST`: nothing more will be added (a recording, not a live stream).
        var ended: Bool
        /// Why songbox cannot play the segments (encrypted, fragmented MP4), when it cannot.
        var unplayable: String?
    }

    struct Segment: Equatable {
        var url: String
        /// What `#EXTINF` names the piece (a station's title for it), when anything.
        var title: String?
        /// `#EXT-X-DISCONTINUITY`: what follows is not the same stream (another encoding).
        var discontinuity = false
    }

    /// The most a playlist may hold (a live station's lists a few segments; a long recording's,
    /// thousands).
    static let largest = 1 << 20

    /// Whether `text` is an HLS playlist rather than a list of streams.
    static func isHLS(_ text: String) -> Bool {
        text.hasPrefix("#EXTM3U") && text.contains("#EXT-X-")
    }

    /// Reads `text`, its relative URLs resolved against `address`.
    static func parse(_ text: String, at address: String) throws(HTTPAudioSource.Stop) -> HLSPlaylist {
        let base = URL(string: address)
        let resolve = { (reference: String) in URL(string: reference, relativeTo: base)?.absoluteString }
        var variants: [Variant] = []
        var pendingVariant: Variant?
        var media = Media(targetDuration: 0, firstSequence: 0, segments: [], ended: false)
        var title: String?, discontinuity = false, sawSegmentTag = false
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty else { continue }
            guard line.hasPrefix("#") else {
                guard let url = resolve(line), TrackLocation.isURL(url) else { continue }
                if var variant = pendingVariant {
                    variant.url = url
                    variants.append(variant)
                    pendingVariant = nil
                } else if sawSegmentTag {
                    media.segments.append(Segment(url: url, title: title, discontinuity: discontinuity))
                    title = nil
                    discontinuity = false
                }
                continue
            }
            let (tag, value) = split(line)
            switch tag {
            case "#EXT-X-STREAM-INF":
                let attributes = attributeList(value)
                pendingVariant = Variant(url: "", bandwidth: attributes["BANDWIDTH"].flatMap { Int($0) } ?? 0,
                                         codecs: codecs(attributes["CODECS"]))
            case "#EXT-X-MEDIA":
                let attributes = attributeList(value)
                if attributes["TYPE"] == "AUDIO", let uri = attributes["URI"], let url = resolve(uri), TrackLocation.isURL(url) {
                    variants.append(Variant(url: url, bandwidth: 0, codecs: [], audioRendition: true,
                                            isDefault: attributes["DEFAULT"] == "YES"))
                }
            case "#EXT-X-TARGETDURATION":
                // Between half a second and two minutes: the playlist is read again at this pace.
                media.targetDuration = Double(value).flatMap { $0.isFinite && $0 > 0 ? min(max($0, 0.5), 120) : nil } ?? 0
                sawSegmentTag = true
            case "#EXT-X-MEDIA-SEQUENCE":
                media.firstSequence = Int(value).map { max(0, $0) } ?? 0
            case "#EXTINF":
                sawSegmentTag = true
                title = extinfTitle(value)
            case "#EXT-X-DISCONTINUITY":
                discontinuity = true
            case "#EXT-X-ENDLIST":
                media.ended = true
            case "#EXT-X-KEY":
                let method = attributeList(value)["METHOD"] ?? "NONE"
                if method != "NONE" { media.unplayable = "an HLS stream whose pieces are encrypted (\(method))" }
            case "#EXT-X-MAP":
                media.unplayable = "an HLS stream in fragmented MP4 pieces, which songbox does not play"
            default:
                continue
            }
        }
        if !variants.isEmpty { return .master(variants) }
        guard sawSegmentTag else { throw .failed("an HLS playlist that lists no pieces of audio") }
        if media.targetDuration <= 0 { media.targetDuration = 10 }
        return .media(media)
    }

    /// The variant to play: the best sounding of those that hold sound only (no video fetched
    /// for nothing), else an audio rendition, else the smallest variant (its audio taken out).
    static func choose(_ variants: [Variant]) -> Variant? {
        let audio = variants.filter { $0.audioOnly && !$0.audioRendition }
        if let best = audio.max(by: { $0.bandwidth < $1.bandwidth }) { return best }
        let renditions = variants.filter(\.audioRendition)
        if let rendition = renditions.first(where: \.isDefault) ?? renditions.first { return rendition }
        return variants.min(by: { $0.bandwidth < $1.bandwidth })
    }

    // MARK: Lines

    /// `#TAG:VALUE` as its tag and value.
    private static func split(_ line: String) -> (tag: String, value: String) {
        guard let colon = line.firstIndex(of: ":") else { return (line.uppercased(), "") }
        return (line[..<colon].uppercased(), String(line[line.index(after: colon)...]))
    }

    /// An attribute list, `NAME=VALUE,NAME="VALUE, with commas"`.
    static func attributeList(_ text: String) -> [String: String] {
        var attributes: [String: String] = [:]
        var rest = Substring(text)
        while let equals = rest.firstIndex(of: "=") {
            let name = rest[..<equals].trimmingCharacters(in: .whitespaces).uppercased()
            rest = rest[rest.index(after: equals)...]
            let value: Substring
            if rest.first == "\"" {
                let body = rest.dropFirst()
                let close = body.firstIndex(of: "\"") ?? body.endIndex
                value = body[..<close]
                rest = close < body.endIndex ? body[body.index(after: close)...] : ""
                rest = rest.drop { $0 != "," }
            } else {
                let comma = rest.firstIndex(of: ",") ?? rest.endIndex
                value = rest[..<comma]
                rest = rest[comma...]
            }
            attributes[name] = String(value)
            rest = rest.dropFirst()
        }
        return attributes
    }

    private static func codecs(_ text: String?) -> [String] {
        (text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
    }

    /// What `#EXTINF:<seconds>,<title>` names a piece: the title, or a station's
    /// `title="…",artist="…"` as "artist - title".
    static func extinfTitle(_ value: String) -> String? {
        guard let comma = value.firstIndex(of: ",") else { return nil }
        let label = value[value.index(after: comma)...].trimmingCharacters(in: .whitespaces)
        guard !label.isEmpty else { return nil }
        guard label.contains("=\"") else { return label }
        let attributes = attributeList(label).mapValues { $0.trimmingCharacters(in: .whitespaces) }
        let parts = [attributes["ARTIST"], attributes["TITLE"]].compactMap { $0?.isEmpty == false ? $0 : nil }
        return parts.isEmpty ? nil : parts.joined(separator: " - ")
    }
}
