import HTTPTypes
import Hummingbird
import SongboxLibrary
import SongboxServer

/// JSON answers of the API: records made of a command's fields, and errors with a code, the
/// message an MPD client (and the CLI) gets, and a hint where there is one.
enum WebAnswer {
    /// `{"error": {"code", "ack", "message", "hint"}}` with its HTTP status.
    static func error(_ status: HTTPResponse.Status, code: String, _ message: String, ack: Int? = nil, hint: String? = nil) -> Response {
        var fields = [("code", JSONText.quoted(code))]
        if let ack { fields.append(("ack", String(ack))) }
        fields.append(("message", JSONText.quoted(message)))
        if let hint { fields.append(("hint", JSONText.quoted(hint))) }
        return json(object(fields: [("error", object(fields: fields))]), status: status)
    }

    /// A command's failure: the ACK's code by name and number, its message, the HTTP status it means.
    static func failure(_ failure: MPDProtocol.Failure) -> Response {
        let (status, code): (HTTPResponse.Status, String) = switch failure.code {
        case .argument: (.badRequest, "argument")
        case .notList: (.badRequest, "not-list")
        case .password: (.unauthorized, "password")
        case .permission: (.forbidden, "permission")
        case .unknown: (.notFound, "unknown")
        case .noExist: (.notFound, "no-exist")
        case .playlistMax: (.conflict, "playlist-max")
        case .system: (.internalServerError, "system")
        case .playlistLoad: (.internalServerError, "playlist-load")
        case .updateAlready: (.conflict, "update-already")
        case .playerSync: (.conflict, "player-sync")
        case .exists: (.conflict, "exists")
        }
        return error(status, code: code, failure.message, ack: failure.code.rawValue)
    }

    static func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// `{"k": v, ...}` of JSON texts, in order.
    static func object(fields: [(String, String)]) -> String {
        "{" + fields.map { JSONText.quoted($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }

    /// A command's fields as records: a new one starts when the answer's first key comes again,
    /// or with a `file`, `directory` or `playlist` after one of those (MPD's entities; `status`
    /// has a `playlist` of its own, a version); a key given more than once in a record (a
    /// song's artists) is a list.
    static func records(_ fields: [(String, String)]) -> [String] {
        recordRanges(fields).map { range in
            var out: [UInt8] = []
            appendRecord(fields[range], to: &out)
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// The records of `fields` as one JSON array, written in one buffer (a search's thousands of
    /// songs make no string of their own).
    static func recordArray(_ fields: [(String, String)]) -> String {
        var out: [UInt8] = [UInt8(ascii: "[")]
        out.reserveCapacity(fields.reduce(2) { $0 + $1.0.utf8.count + $1.1.utf8.count + 6 })
        for (index, range) in recordRanges(fields).enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            appendRecord(fields[range], to: &out)
        }
        out.append(UInt8(ascii: "]"))
        return String(decoding: out, as: UTF8.self)
    }

    /// Where each record of `fields` begins and ends.
    private static func recordRanges(_ fields: [(String, String)]) -> [Range<Int>] {
        let entities: Set<String> = ["file", "directory", "playlist"]
        var ranges: [Range<Int>] = []
        var start = 0
        guard let first = fields.first?.0 else { return [] }
        for index in fields.indices.dropFirst() {
            let key = fields[index].0
            let current = fields[start..<index]
            if (key == first && current.contains { $0.0 == key })
                || (entities.contains(key) && current.contains { entities.contains($0.0) }) {
                ranges.append(start..<index)
                start = index
            }
        }
        ranges.append(start..<fields.count)
        return ranges
    }

    /// One record as a JSON object: each key once, where it first comes; a repeated key's values
    /// as a list. A record is a song's dozen fields, so looking back and ahead costs little.
    private static func appendRecord(_ record: ArraySlice<(String, String)>, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        var written = false
        for index in record.indices {
            let key = record[index].0
            guard !record[record.startIndex..<index].contains(where: { $0.0 == key }) else { continue }
            if written { out.append(UInt8(ascii: ",")) }
            written = true
            JSONText.appendQuoted(key, to: &out)
            out.append(UInt8(ascii: ":"))
            let rest = record[index...]
            if rest.dropFirst().contains(where: { $0.0 == key }) {
                out.append(UInt8(ascii: "["))
                for (position, value) in rest.filter({ $0.0 == key }).enumerated() {
                    if position > 0 { out.append(UInt8(ascii: ",")) }
                    JSONText.appendQuoted(value.1, to: &out)
                }
                out.append(UInt8(ascii: "]"))
            } else {
                JSONText.appendQuoted(record[index].1, to: &out)
            }
        }
        out.append(UInt8(ascii: "}"))
    }
}
