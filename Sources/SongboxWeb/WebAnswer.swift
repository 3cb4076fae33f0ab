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

    static func array(_ items: [String]) -> String { "[" + items.joined(separator: ",") + "]" }

    /// A command's fields as records: a new one starts when the answer's first key comes again,
    /// or with a `file`, `directory` or `playlist` after one of those (MPD's entities; `status`
    /// has a `playlist` of its own, a version); a key given more than once in a record (a
    /// song's artists) is a list.
    static func records(_ fields: [(String, String)]) -> [String] {
        let entities: Set<String> = ["file", "directory", "playlist"]
        var records: [[(String, [String])]] = []
        let first = fields.first?.0
        for (key, value) in fields {
            let current = records.last ?? []
            if records.isEmpty || (key == first && current.contains { $0.0 == key })
                || (entities.contains(key) && current.contains { entities.contains($0.0) }) {
                records.append([])
            }
            if let index = records[records.count - 1].firstIndex(where: { $0.0 == key }) {
                records[records.count - 1][index].1.append(value)
            } else {
                records[records.count - 1].append((key, [value]))
            }
        }
        return records.map { record in
            object(fields: record.map { key, values in
                (key, values.count == 1 ? JSONText.quoted(values[0]) : array(values.map(JSONText.quoted)))
            })
        }
    }
}
