import Foundation
import SongboxTestSupport
import Testing

/// One HTTP/1.1 exchange on a plain socket, every header as the test writes it (a foreign
/// `Host`, an `Origin`): the request, then the answer read to its end (`Connection: close`).
struct HTTPExchange {
    struct Answer {
        let status: Int
        let headers: [(String, String)]
        let bytes: [UInt8]
        var body: String { String(decoding: bytes, as: UTF8.self) }

        func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
        var json: Any? { try? JSONSerialization.jsonObject(with: Data(body.utf8), options: [.fragmentsAllowed]) }
        var errorCode: String? { ((json as? [String: Any])?["error"] as? [String: Any])?["code"] as? String }
        var errorMessage: String? { ((json as? [String: Any])?["error"] as? [String: Any])?["message"] as? String }
    }

    let port: Int

    /// Sends a request; `host` nil: the server's own address.
    func send(_ method: String, _ path: String, host: String? = nil, headers: [(String, String)] = [], body: String? = nil,
              contentType: String? = "application/json") throws -> Answer {
        let socket = try connect()
        defer { close(socket) }
        var request = "\(method) \(path) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\nConnection: close\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        if let body {
            if let contentType { request += "Content-Type: \(contentType)\r\n" }
            request += "Content-Length: \(body.utf8.count)\r\n"
        }
        request += "\r\n" + (body ?? "")
        try write(socket, request)
        let bytes = readToEnd(socket)
        guard let end = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else { throw FixtureError("no HTTP answer: \(bytes.count) bytes") }
        let lines = String(decoding: bytes[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(lines[0].split(separator: " ")[1]) ?? 0
        let headers = lines.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var body = Array(bytes[end.upperBound...])
        if headers.contains(where: { $0.0.lowercased() == "transfer-encoding" && $0.1 == "chunked" }) { body = Self.unchunked(body) }
        return Answer(status: status, headers: headers, bytes: body)
    }

    static func unchunked(_ bytes: [UInt8]) -> [UInt8] {
        var rest = bytes[...], out: [UInt8] = []
        while let line = rest.firstRange(of: Array("\r\n".utf8)),
              let size = Int(String(decoding: rest[..<line.lowerBound], as: UTF8.self), radix: 16), size > 0,
              line.upperBound + size <= rest.endIndex {
            out += rest[line.upperBound..<(line.upperBound + size)]
            rest = rest[(line.upperBound + size)...].dropFirst(2)
        }
        return out
    }

    /// What the server sends until it closes the connection.
    func readToEnd(_ socket: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(socket, &chunk, chunk.count, 0)
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return bytes
    }

    func connect() throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(socket)
            throw FixtureError("cannot connect to the web app on port \(port)")
        }
        return socket
    }

    func write(_ socket: Int32, _ text: String) throws {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw FixtureError("the web app closed the connection") }
            sent += count
        }
    }
}

/// The parts of OpenAPI's schemas `web/openapi.json` uses (type, properties, required,
/// additionalProperties, items, oneOf, allOf, enum, nullable, $ref), checked on real answers.
struct OpenAPISchemas {
    let document: [String: Any]

    init() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.packageRoot + "/web/openapi.json"))
        document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// The schema of `path`'s `method` answer with `status` (JSON), resolved.
    func schema(_ path: String, _ method: String, _ status: Int) throws -> [String: Any] {
        let operation = try #require(((document["paths"] as? [String: Any])?[path] as? [String: Any])?[method] as? [String: Any], "\(method) \(path)")
        var response = try #require((operation["responses"] as? [String: Any])?[String(status)] as? [String: Any], "\(status) of \(method) \(path)")
        response = resolve(response)
        let content = try #require(response["content"] as? [String: Any], "\(status) of \(method) \(path) has no content")
        return try #require((content["application/json"] as? [String: Any])?["schema"] as? [String: Any])
    }

    func resolve(_ schema: [String: Any]) -> [String: Any] {
        guard let reference = schema["$ref"] as? String else { return schema }
        var node: Any = document
        for part in reference.dropFirst(2).split(separator: "/") { node = (node as? [String: Any])?[String(part)] ?? [:] }
        return resolve(node as? [String: Any] ?? [:])
    }

    /// What in `value` the schema does not allow; empty when it fits.
    func problems(_ value: Any, _ schema: [String: Any], at place: String = "$") -> [String] {
        let schema = resolve(schema)
        if value is NSNull { return schema["nullable"] as? Bool == true ? [] : ["\(place) is null"] }
        var found: [String] = []
        for part in schema["allOf"] as? [[String: Any]] ?? [] { found += problems(value, part, at: place) }
        if let choices = schema["oneOf"] as? [[String: Any]], choices.filter({ problems(value, $0, at: place).isEmpty }).count != 1 {
            found.append("\(place) fits not exactly one of its choices")
        }
        if let allowed = schema["enum"] as? [String], !allowed.contains(value as? String ?? "") { found.append("\(place) is not one of \(allowed)") }
        switch schema["type"] as? String {
        case "object"?:
            guard let object = value as? [String: Any] else { return found + ["\(place) is not an object"] }
            for key in schema["required"] as? [String] ?? [] where object[key] == nil { found.append("\(place).\(key) is missing") }
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for (key, item) in object {
                if let property = properties[key] as? [String: Any] {
                    found += problems(item, property, at: place + "." + key)
                } else if let extra = schema["additionalProperties"] as? [String: Any] {
                    found += problems(item, extra, at: place + "." + key)
                } else if schema["additionalProperties"] as? Bool == false {
                    found.append("\(place).\(key) is not in the schema")
                }
            }
        case "array"?:
            guard let array = value as? [Any] else { return found + ["\(place) is not an array"] }
            if let items = schema["items"] as? [String: Any] {
                for (index, item) in array.enumerated() { found += problems(item, items, at: "\(place)[\(index)]") }
            }
        case "string"?:
            if !(value is String) { found.append("\(place) is not a string") }
        case "integer"?:
            if !(value is Int) { found.append("\(place) is not an integer") }
        default: break
        }
        return found
    }

    /// Checks each record of a command's answer against one of the file's schemas (`AlarmRecord`, ...).
    func check(records answer: HTTPExchange.Answer, _ component: String) throws {
        try check(answer, "/api/command/{name}", "post")
        let records = try #require((answer.json as? [String: Any])?["records"] as? [Any], "\(answer.body)")
        let found = problems(records, ["type": "array", "items": ["$ref": "#/components/schemas/" + component]])
        #expect(found.isEmpty, "\(component): \(found) in \(answer.body.prefix(500))")
    }

    /// Checks an answer against the file: its status is documented for the call, and its body fits.
    func check(_ answer: HTTPExchange.Answer, _ path: String, _ method: String) throws {
        let schema = try self.schema(path, method, answer.status)
        let body = try #require(answer.json, "\(method) \(path): not JSON: \(answer.body)")
        let found = problems(body, schema)
        #expect(found.isEmpty, "\(method) \(path) → \(answer.status): \(found) in \(answer.body.prefix(500))")
    }
}

/// The web app's JSON API against a real daemon: the answers the OpenAPI file describes, the same
/// errors as an MPD client's, and what it refuses (a foreign Host, a call from another site, a
/// body too large, a password's absence beyond loopback).
@Suite(.serialized) struct WebAPITests: TestLibrarySuite {
    let library: TestLibrary

    init() throws {
        library = try TestLibrary()
        try library.scanExamples()
    }

    func startDaemon(config: String = "", extra: [String] = []) throws -> (DaemonProcess, web: HTTPExchange, mpdPort: Int) {
        try config.write(toFile: folder + "/config", atomically: true, encoding: .utf8)
        let mpdPort = try freePort(), webPort = try freePort()
        let daemon = try DaemonProcess(database: songbox.database, folder: folder, arguments: [
            "--plugins", folder, "--output", "null", "--config", folder + "/config",
            "--bind", "127.0.0.1:\(mpdPort)", "--http", "127.0.0.1:\(webPort)",
        ] + extra)
        return (daemon, HTTPExchange(port: webPort), mpdPort)
    }

    func mpc(_ port: Int, _ arguments: String...) throws -> SongboxRunner.Output {
        try SongboxRunner.run(executable: "/usr/bin/mpc", ["--host", "127.0.0.1", "--port", String(port)] + arguments)
    }

    @Test func answersAreWhatTheOpenAPIFileSays() throws {
        let (daemon, web, mpdPort) = try startDaemon()
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        #expect(daemon.errors.contains("the web app is at http://127.0.0.1:\(web.port)/"), "\(daemon.errors)")
        let schemas = try OpenAPISchemas()

        let search = try web.send("GET", "/api/search?q=" + "artist:\"Mabel Grey\" sort:title".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        try schemas.check(search, "/api/search", "get")
        let songs = try #require((search.json as? [String: Any])?["songs"] as? [[String: Any]])
        #expect(songs.compactMap { $0["Title"] as? String } == ["Northern Skies", "Old Roads", "The River's Lullaby"])

        // Added through the API, seen by mpc; the queue and the state as the file says.
        for song in songs {
            let call = String(decoding: try JSONSerialization.data(withJSONObject: ["args": [song["file"]!]]), as: UTF8.self)
            let added = try web.send("POST", "/api/command/addid", body: call)
            try schemas.check(added, "/api/command/{name}", "post")
        }
        #expect(try mpc(mpdPort, "playlist", "-f", "%title%").lines == ["Northern Skies", "Old Roads", "The River's Lullaby"])
        try schemas.check(try web.send("GET", "/api/queue"), "/api/queue", "get")
        // Each answer dated (RFC 9110's form, in English, made when asked: no clock ticks for it).
        let dated = try web.send("GET", "/api/status")
        try schemas.check(dated, "/api/status", "get")
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let date = try #require(dated.header("Date").flatMap(formatter.date(from:)), "\(dated.headers)")
        #expect(abs(date.timeIntervalSinceNow) < 60)
        try schemas.check(try web.send("POST", "/api/command/play", body: #"{"args": [1]}"#), "/api/command/{name}", "post")
        let status = try web.send("GET", "/api/status")
        try schemas.check(status, "/api/status", "get")
        let song = try #require((status.json as? [String: Any])?["song"] as? [String: Any])
        #expect(song["Title"] as? String == "Old Roads")
        let state = try #require((status.json as? [String: Any])?["status"] as? [String: Any])
        #expect(state["state"] as? String == "play" && state["playlistlength"] as? String == "3" && state["song"] as? String == "1", "\(state)")
        #expect(try mpc(mpdPort, "current", "-f", "%title%").lines == ["Old Roads"])
        // The sleep timer beside MPD's status: as set, and the seconds left.
        #expect((status.json as? [String: Any])?["sleep"] as? [String: String] == ["sleep": "off"])
        try schemas.check(try web.send("POST", "/api/command/sleep", body: #"{"args": [30]}"#), "/api/command/{name}", "post")
        let sleeping = try web.send("GET", "/api/status")
        try schemas.check(sleeping, "/api/status", "get")
        let sleep = try #require((sleeping.json as? [String: Any])?["sleep"] as? [String: String], "\(sleeping.body)")
        #expect(sleep["sleep"] == "30" && (Double(sleep["sleepleft"] ?? "") ?? 0) > 1700, "\(sleep)")
        #expect(try mpdCommand(mpdPort, "status").allSatisfy { !$0.hasPrefix("sleep") }, "MPD's status stays MPD's")
        try schemas.check(try web.send("GET", "/api/messages?lang=he"), "/api/messages", "get")

        // A song's picture: the bytes mpc reads with readpicture, typed by what they are.
        let lanterns = "The Lanterns/Morning Light/01 - Morning Light.mp3"
        let cover = try web.send("GET", "/api/cover?file=" + lanterns.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        let picture = try SongboxRunner.run(executable: "/usr/bin/mpc", ["--host", "127.0.0.1", "--port", String(mpdPort), "readpicture", lanterns])
        #expect(cover.status == 200 && !cover.bytes.isEmpty && cover.bytes == Array(picture.stdoutBytes), "\(cover.status) \(cover.bytes.count) vs \(picture.stdoutBytes.count)")
        #expect(["image/jpeg", "image/png"].contains(cover.header("Content-Type") ?? ""))
        let none = try web.send("GET", "/api/cover?file=" + "Mabel Grey/Old Roads/01 - Old Roads.mp3".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        try schemas.check(none, "/api/cover", "get")
        #expect(none.status == 404)

        // The same errors as an MPD client's, with MPD's codes: mpc's message, word for word.
        let outOfRange = try web.send("POST", "/api/command/play", body: #"{"args": [99]}"#)
        try schemas.check(outOfRange, "/api/command/{name}", "post")
        #expect(outOfRange.status == 400 && outOfRange.errorCode == "argument")
        let mpcSays = try mpc(mpdPort, "play", "100").stderr
        #expect(mpcSays.contains(try #require(outOfRange.errorMessage)), "\(mpcSays) vs \(outOfRange.body)")
        let unknown = try web.send("POST", "/api/command/frobnicate")
        try schemas.check(unknown, "/api/command/{name}", "post")
        #expect(unknown.status == 404 && unknown.errorCode == "unknown" && unknown.errorMessage == "unknown command \"frobnicate\"")
        let badQuery = try web.send("GET", "/api/search?q=year%3A1960..abc")
        try schemas.check(badQuery, "/api/search", "get")
        #expect(badQuery.status == 400 && badQuery.errorCode == "argument")
        let idle = try web.send("POST", "/api/command/idle")
        #expect(idle.status == 404 && idle.errorCode == "unknown", "\(idle.body)")
        let wrongType = try web.send("POST", "/api/command/setvol", body: #"{"args": [{"no": 1}]}"#)
        try schemas.check(wrongType, "/api/command/{name}", "post")
        #expect(wrongType.status == 400)
    }

    /// One request of MPD's protocol on a plain connection (mpc has no way to send songbox's own
    /// commands): the answer's lines up to its `OK` or `ACK`.
    func mpdCommand(_ port: Int, _ line: String) throws -> [String] {
        let connection = HTTPExchange(port: port)
        let socket = try connection.connect()
        defer { close(socket) }
        try connection.write(socket, line + "\nclose\n")
        return String(decoding: connection.readToEnd(socket), as: UTF8.self).split(separator: "\n").map(String.init).dropFirst().filter { $0 != "OK" }
    }

    func call(_ web: HTTPExchange, _ name: String, _ args: [Any]) throws -> HTTPExchange.Answer {
        try web.send("POST", "/api/command/" + name, body: String(decoding: try JSONSerialization.data(withJSONObject: ["args": args]), as: UTF8.self))
    }

    func records(_ answer: HTTPExchange.Answer) -> [[String: Any]] {
        ((answer.json as? [String: Any])?["records"] as? [[String: Any]]) ?? []
    }

    /// The alarms are commands of the table: kept through the API, listed by the CLI and by an
    /// MPD connection alike, refused with the words the CLI says for the same mistake.
    @Test func alarmsAreCommandsOfTheTableForEverySurface() throws {
        try FileManager.default.copyItem(atPath: Fixtures.packageRoot + "/plugins/alarm.lua", toPath: folder + "/alarm.lua")
        let (daemon, web, mpdPort) = try startDaemon()
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let schemas = try OpenAPISchemas()
        let saved = try call(web, "alarmsave", [#"{"name": "nap", "when": "sat,sun 14:00", "fade": 300, "curve": "log", "volume": 60}"#])
        try schemas.check(saved, "/api/command/{name}", "post")
        #expect(saved.status == 200 && records(saved).first?["alarm"] as? String == "nap", "\(saved.body)")
        #expect(try songbox.run(["alarm", "ls"]).stdout.contains("nap: sat,sun 14:00"))

        let listed = try call(web, "alarms", [])
        try schemas.check(records: listed, "AlarmRecord")
        let nap = try #require(records(listed).first)
        #expect(nap["alarm"] as? String == "nap" && nap["fade"] as? String == "300" && nap["curve"] as? String == "log"
                && nap["volume"] as? String == "60" && nap["enabled"] as? String == "1" && nap["next"] != nil, "\(nap)")
        // An MPD connection gets the same fields.
        let lines = try mpdCommand(mpdPort, "alarms")
        #expect(lines.first == "alarm: nap" && lines.contains("fade: 300") && lines.contains("curve: log"), "\(lines)")

        // A mistake: refused with the CLI's own words, and nothing kept.
        let late = try call(web, "alarmsave", [#"{"name": "bad", "when": "25:00"}"#])
        try schemas.check(late, "/api/command/{name}", "post")
        let cli = try songbox.run(["alarm", "add", "bad", "--at", "25:00"])
        #expect(late.status == 400 && late.errorCode == "argument" && cli.status != 0)
        #expect(cli.stderr.contains(try #require(late.errorMessage)), "\(cli.stderr) vs \(late.body)")
        let unknown = try call(web, "alarmsave", [#"{"name": "bad", "when": "07:00", "loud": true}"#])
        #expect(unknown.status == 400 && (unknown.errorMessage ?? "").contains("unknown alarm key 'loud'"), "\(unknown.body)")
        #expect(try call(web, "alarmsave", ["<not json>"]).status == 400)
        #expect(!(try songbox.run(["alarm", "ls"]).stdout.contains("bad")))

        // An alarm's test timeline, a record each moment, as `songbox alarm test` prints it.
        #expect(try songbox.run(["alarm", "add", "quick", "--at", "07:00", "--query", "title:\"Old Roads\"", "--fade", "20s",
                                 "--timeout", "1m"]).status == 0)
        let tested = try call(web, "alarmtest", ["quick"])
        try schemas.check(records: tested, "AlarmTestRecord")
        #expect(records(tested).first?["what"] as? String == "sounding" && records(tested).last?["phase"] as? String == "timeout", "\(tested.body)")
        let printed = try songbox.run(["alarm", "test", "quick", "--json"])
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(printed.stdout.utf8)) as? [[String: Any]], "\(printed.stdout)")
        #expect(records(tested).map { $0["kind"] as? String } == entries.map { $0["kind"] as? String })
        let noSuch = try call(web, "alarmtest", ["nope"])
        try schemas.check(noSuch, "/api/command/{name}", "post")
        #expect(noSuch.status == 404 && noSuch.errorMessage == "no alarm named 'nope'", "\(noSuch.body)")
        #expect(try call(web, "alarmtest", ["quick", "soon"]).errorCode == "argument")
        #expect(try call(web, "alarmrm", ["quick"]).status == 200)

        // Removed through an MPD connection; a second time there is nothing to remove.
        #expect(try mpdCommand(mpdPort, "alarmrm nap") == [])
        #expect(try mpdCommand(mpdPort, "alarmrm nap").first?.hasPrefix("ACK [50@0] {alarmrm} no alarm named 'nap'") == true)
        #expect(records(try call(web, "alarms", [])).isEmpty)
    }

    /// Autoplay's settings are commands of the table: listed as the plugin publishes them, one
    /// changed and kept, a bad value refused with the config's words.
    @Test func autoplaysSettingsAreCommandsOfTheTable() throws {
        try FileManager.default.copyItem(atPath: Fixtures.packageRoot + "/plugins/autoplay.lua", toPath: folder + "/autoplay.lua")
        let (daemon, web, mpdPort) = try startDaemon(config: "plugin.autoplay.window = 20\n")
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let schemas = try OpenAPISchemas()
        // The plugin says its settings when it starts.
        var listed = try call(web, "autoplaysettings", [])
        for _ in 0..<100 where listed.status != 200 {
            usleep(100_000)
            listed = try call(web, "autoplaysettings", [])
        }
        try schemas.check(records: listed, "AutoplaySettingRecord")
        let ahead = try #require(records(listed).first { $0["setting"] as? String == "ahead" }, "\(listed.body)")
        #expect(ahead["value"] as? String == "3" && ahead["low"] as? String == "1" && ahead["high"] as? String == "50" && ahead["from"] as? String == "default")
        let window = records(listed).first { $0["setting"] as? String == "window" }
        #expect(window?["value"] as? String == "20" && window?["from"] as? String == "config", "\(String(describing: window))")

        for (key, value, words) in [("ahead", "0", "plugin.autoplay.ahead must be a whole number from 1 to 50, got 0"),
                                    ("similar", "maybe", "plugin.autoplay.similar must be true or false, got maybe"),
                                    ("loud", "1", "autoplay has no setting 'loud'")] {
            let refused = try call(web, "autoplayset", [key, value])
            try schemas.check(refused, "/api/command/{name}", "post")
            #expect(refused.status == 400 && refused.errorMessage == words, "\(refused.body)")
        }
        #expect(try call(web, "autoplayset", ["query", "year:19..abc"]).errorCode == "argument")
        #expect(try call(web, "autoplayset", ["window", "7"]).status == 200)
        // An MPD connection reads the same.
        let lines = try mpdCommand(mpdPort, "autoplaysettings")
        let at = try #require(lines.firstIndex(of: "setting: window"), "\(lines)")
        #expect(lines[at...].prefix(7).contains("value: 7") && lines[at...].prefix(7).contains("from: page"), "\(lines)")
        // Emptied: the config's again.
        #expect(try call(web, "autoplayset", ["window", ""]).status == 200)
        #expect(records(try call(web, "autoplaysettings", [])).first { $0["setting"] as? String == "window" }?["value"] as? String == "20")
    }

    /// The history's commands after a real play: what `songbox history` says, by every surface.
    @Test func theHistoryIsCommandsOfTheTable() throws {
        let (daemon, web, mpdPort) = try startDaemon()
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let schemas = try OpenAPISchemas()
        _ = try mpc(mpdPort, "add", "Mabel Grey/Old Roads/01 - Old Roads.mp3")
        _ = try mpc(mpdPort, "play")
        // The example lasts seconds: played to its end, then recorded.
        var history: [[String: Any]] = []
        for _ in 0..<600 where history.isEmpty {
            usleep(100_000)
            history = records(try call(web, "history", [10]))
        }
        let entry = try #require(history.first)
        #expect(entry["Title"] as? String == "Old Roads" && entry["kind"] as? String == "play" && entry["reason"] as? String == "finished", "\(entry)")
        // Named as MPD clients name songs: what `add` takes.
        #expect(entry["file"] as? String == "Mabel Grey/Old Roads/01 - Old Roads.mp3", "\(entry)")
        let cli = try songbox.run(["history", "--json"])
        let cliEntry = try #require((try JSONSerialization.jsonObject(with: Data(cli.stdout.utf8)) as? [[String: Any]])?.first)
        #expect(cliEntry["reason"] as? String == entry["reason"] as? String && "\(cliEntry["id"]!)" == entry["history"] as? String)
        try schemas.check(records: try call(web, "history", []), "HistoryRecord")

        let top = try call(web, "topplayed", [7])
        try schemas.check(records: top, "TopRecord")
        #expect(records(top).first?["Title"] as? String == "Old Roads" && records(top).first?["plays"] as? String == "1", "\(top.body)")
        #expect(try mpdCommand(mpdPort, "topplayed 0 1").first == "plays: 1")
        let perDay = try call(web, "playsperday", [30])
        try schemas.check(records: perDay, "DayRecord")
        let days = records(perDay)
        #expect(days.count == 1 && days.first?["plays"] as? String == "1", "\(days)")
        let bad = try call(web, "topplayed", ["week"])
        #expect(bad.status == 400 && bad.errorCode == "argument", "\(bad.body)")
    }

    /// A mood playlist previewed through the table: each track with why, no queue touched; a
    /// mood's mistake in the mood API's words.
    @Test func aMoodPlaylistIsPreviewedByACommand() throws {
        #expect(try songbox.run(["analyze"]).status == 0)
        let (daemon, web, mpdPort) = try startDaemon()
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let schemas = try OpenAPISchemas()
        let moodList = try call(web, "moods", [])
        try schemas.check(records: moodList, "MoodRecord")
        let moods = records(moodList).compactMap { $0["mood"] as? String }
        #expect(moods.contains("calm") && moods.contains("energetic"), "\(moods)")
        let preview = try call(web, "moodplaylist", ["mood=calm", "minutes=10"])
        try schemas.check(records: preview, "MoodPickRecord")
        let tracks = records(preview)
        #expect(!tracks.isEmpty && tracks.allSatisfy { ($0["why"] as? String ?? "").isEmpty == false && $0["file"] != nil }, "\(preview.body)")
        #expect(try mpc(mpdPort, "playlist").stdout.isEmpty)
        // Each a song MPD clients can add by its `file`.
        for track in tracks { _ = try mpc(mpdPort, "add", try #require(track["file"] as? String)) }
        #expect(try mpc(mpdPort, "playlist").lines.count == tracks.count)
        let wrong = try call(web, "moodplaylist", ["mood=calm", "minutes=lots"])
        #expect(wrong.status == 400 && wrong.errorCode == "argument", "\(wrong.body)")
        let unknown = try call(web, "moodplaylist", ["mood=nosuchmood"])
        #expect(unknown.status == 400 && (unknown.errorMessage ?? "").contains("nosuchmood"), "\(unknown.body)")
    }

    /// A call from another site, a foreign Host, a form post, a body past the bound: refused,
    /// and nothing changed.
    @Test func refusesForeignHostsCrossSiteCallsAndLargeBodies() throws {
        let (daemon, web, mpdPort) = try startDaemon()
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let schemas = try OpenAPISchemas()
        _ = try mpc(mpdPort, "add", "Mabel Grey")
        let before = try mpc(mpdPort, "playlist").stdout

        let page = try web.send("GET", "/")
        #expect(page.status == 200 && page.body.contains("<script type=\"module\" src=\"/app.js\">"))
        let policy = try #require(page.header("Content-Security-Policy"))
        #expect(policy.contains("script-src 'self'") && !policy.contains("unsafe-inline") && policy.contains("frame-ancestors 'none'"))

        let rebound = try web.send("GET", "/api/status", host: "attacker.example:\(web.port)")
        #expect(rebound.status == 421 && rebound.errorCode == "host")
        #expect(try web.send("GET", "/api/status", host: "localhost:\(web.port)").status == 200)

        let crossSite = try web.send("POST", "/api/command/clear", headers: [("Origin", "http://attacker.example")], body: "{}")
        try schemas.check(crossSite, "/api/command/{name}", "post")
        #expect(crossSite.status == 403 && crossSite.errorCode == "origin")
        let form = try web.send("POST", "/api/command/clear", body: "args=1", contentType: "application/x-www-form-urlencoded")
        try schemas.check(form, "/api/command/{name}", "post")
        #expect(form.status == 415)
        let large = try web.send("POST", "/api/command/clear", body: "{\"args\": [\"" + String(repeating: "x", count: 100_000) + "\"]}")
        try schemas.check(large, "/api/command/{name}", "post")
        #expect(large.status == 413 && large.errorCode == "too-large")
        #expect(try mpc(mpdPort, "playlist").stdout == before)

        // The page's own origin is taken.
        let sameSite = try web.send("POST", "/api/command/clear", headers: [("Origin", "http://127.0.0.1:\(web.port)")], body: "{}")
        #expect(sameSite.status == 200, "\(sameSite.body)")
        #expect(try mpc(mpdPort, "playlist").stdout.isEmpty)
    }

    /// Beyond loopback without a password the daemon does not start, and says why; with one, the
    /// API wants the login, whose cookie is HttpOnly and SameSite=Strict, and tries are limited.
    @Test func aPasswordGuardsTheAppAndIsNeededBeyondLoopback() throws {
        let port = try freePort()
        let refused = try songbox.run(["daemon", "--output", "null", "--config", "/dev/null", "--bind", "none",
                                       "--socket", folder + "/refused.sock", "--http", "0.0.0.0:\(port)"])
        #expect(refused.status == 78 && refused.stderr.contains("http_password"), "\(refused.stderr)")

        let (daemon, web, _) = try startDaemon(config: "http_password = correct horse\n")
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        // A port already taken: the second daemon says so and ends.
        let other = try TestLibrary()
        let taken = try other.songbox.run(["daemon", "--output", "null", "--config", "/dev/null", "--bind", "none",
                                           "--socket", other.folder + "/taken.sock", "--http", "127.0.0.1:\(web.port)"])
        #expect(taken.status != 0 && taken.stderr.contains("cannot listen on 127.0.0.1:\(web.port) for the web app"), "\(taken.stderr)")
        let schemas = try OpenAPISchemas()
        let locked = try web.send("GET", "/api/status")
        try schemas.check(locked, "/api/status", "get")
        #expect(locked.status == 401 && locked.errorCode == "login")
        #expect(try web.send("GET", "/").header("Location") == "/login")
        #expect(try web.send("GET", "/login").status == 200)

        let wrong = try web.send("POST", "/api/login", body: #"{"password": "battery staple"}"#)
        try schemas.check(wrong, "/api/login", "post")
        #expect(wrong.status == 401)
        let right = try web.send("POST", "/api/login", body: #"{"password": "correct horse"}"#)
        #expect(right.status == 204)
        let cookie = try #require(right.header("Set-Cookie"))
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
        let session = String(cookie.prefix { $0 != ";" })
        #expect(try web.send("GET", "/api/status", headers: [("Cookie", session)]).status == 200)
        #expect(try web.send("GET", "/api/status", headers: [("Authorization", "Bearer correct horse")]).status == 200)

        // Guessing is slowed down: past a few tries, refused before the password is compared.
        var statuses: [Int] = []
        for _ in 0..<8 { statuses.append(try web.send("POST", "/api/login", body: #"{"password": "guess"}"#).status) }
        #expect(statuses.contains(429), "\(statuses)")
        let limited = try web.send("POST", "/api/login", body: #"{"password": "correct horse"}"#)
        try schemas.check(limited, "/api/login", "post")
        #expect(limited.status == 429 && limited.header("Retry-After") != nil)
    }

    /// The whole app (every file the pages load, and the OpenAPI file) is under 150 KB before
    /// compression: a Pi 3 sends it in a moment.
    @Test func theWholeAppIsUnder150KB() throws {
        let folder = Fixtures.packageRoot + "/web"
        let sizes = try FileManager.default.contentsOfDirectory(atPath: folder).map { name in
            (try FileManager.default.attributesOfItem(atPath: folder + "/" + name)[.size] as? Int) ?? 0
        }
        #expect(sizes.reduce(0, +) < 150_000, "\(sizes.reduce(0, +)) bytes")
    }

    /// Every English word the pages say goes through the catalog: each `t("...")` of the scripts,
    /// each `data-t`, `data-t-label` and `data-t-placeholder` of the pages, and the words a
    /// script looks up by a value (a history's reason, a plugin's state, a day) is a message
    /// the Hebrew catalog translates (`/api/messages?lang=he`).
    @Test func everyWordOfThePagesIsInTheHebrewCatalog() throws {
        let (daemon, web, _) = try startDaemon()
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let answer = try web.send("GET", "/api/messages?lang=he")
        let catalog = try #require((answer.json as? [String: Any])?["messages"] as? [String: String], "\(answer.body)")
        let folder = Fixtures.packageRoot + "/web"
        var words: Set<String> = ["finished", "skipped", "stopped", "error", "replaced", "starting", "running", "restarting", "disabled",
                                  "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun", "query", "playlist", "mood", "played"]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name.hasSuffix(".js") || name.hasSuffix(".html") {
            let text = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
            for match in text.matches(of: /\bt\("([^"\\]*)"\)/) { words.insert(String(match.1)) }
            for match in text.matches(of: /data-t(?:-label|-placeholder)?="([^"]*)"/) { words.insert(String(match.1)) }
        }
        let missing = words.filter { (catalog[$0] ?? "").isEmpty }.sorted()
        #expect(missing.isEmpty, "not in the catalog: \(missing)")
        #expect(words.count > 120, "\(words.count)")
    }

    /// The event stream carries the bus's events as plugins get them: a play started by mpc.
    @Test func theEventStreamCarriesThePlayersEvents() throws {
        let (daemon, web, mpdPort) = try startDaemon()
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let socket = try web.connect()
        defer { close(socket) }
        try web.write(socket, "GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:\(web.port)\r\n\r\n")
        var received = ""
        func read(until text: String) throws {
            var chunk = [UInt8](repeating: 0, count: 4096)
            while !received.contains(text) {
                let count = recv(socket, &chunk, chunk.count, 0)
                guard count > 0 else { throw FixtureError("the stream ended before \(text): \(received)") }
                received += String(decoding: chunk[..<count], as: UTF8.self)
            }
        }
        try read(until: "retry: 2000")
        #expect(received.contains("text/event-stream"))
        _ = try mpc(mpdPort, "add", "Mabel Grey/Old Roads/01 - Old Roads.mp3")
        _ = try mpc(mpdPort, "play")
        try read(until: "\"type\":\"track_started\"")
        #expect(received.contains("\"title\":\"Old Roads\""), "\(received)")
        // An open stream does not hold the daemon: SIGTERM ends the stream, then the daemon, cleanly.
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0, "\(daemon.errors)")
        var chunk = [UInt8](repeating: 0, count: 4096)
        while recv(socket, &chunk, chunk.count, 0) > 0 {}
    }
}

/// The web app in a real browser (Debian's chromium, headless, with Selenium: `web/browser.py`),
/// on a phone-sized window, against a real daemon; what it changed read back with mpc. The
/// screenshots it takes are docs/web.md's (written there with `SONGBOX_SCREENSHOTS=1`).
@Suite(.serialized) struct WebBrowserTests: TestLibrarySuite {
    let library: TestLibrary

    static let python = Fixtures.packageRoot + "/.build/test-venv/bin/python"
    static let script = Fixtures.packageRoot + "/Tests/SongboxCLITests/web/browser.py"
    static let hostileTitle = "<img src=x onerror=alert(1)>"

    init() throws {
        library = try TestLibrary()
        // The examples and a track whose title is markup, in one music folder (MPD's URIs are
        // relative to it).
        try FileManager.default.copyItem(atPath: TestLibrary.examples, toPath: library.music)
        try Fixtures.writeMP3(to: library.music + "/hostile.mp3", v2: ID3v2Tag(version: 4, frames: [
            .text("TIT2", Self.hostileTitle), .text("TPE1", "<b>bold</b>"),
        ]), audio: try Fixtures.audio("tone-mono-44k.mp3"))
        try library.scan()
    }

    /// Starts a daemon on free ports and runs `scenario` of browser.py against it (`extra`: its
    /// arguments after the password); `plugins`: the bundled plugins its plugin folder holds.
    /// What the scenario printed.
    @discardableResult
    func run(_ scenario: String, config: String = "", password: String? = nil, plugins: [String] = [], extra: [String] = []) throws -> String {
        for plugin in plugins {
            try? FileManager.default.removeItem(atPath: folder + "/" + plugin)
            try FileManager.default.copyItem(atPath: Fixtures.packageRoot + "/plugins/" + plugin, toPath: folder + "/" + plugin)
        }
        guard FileManager.default.isExecutableFile(atPath: Self.python) else {
            throw FixtureError("no Selenium: run scripts/install-deps.sh --test (it makes \(Self.python))")
        }
        try config.write(toFile: folder + "/config", atomically: true, encoding: .utf8)
        let mpdPort = try freePort(), webPort = try freePort()
        let daemon = try DaemonProcess(database: songbox.database, folder: folder, arguments: [
            "--plugins", folder, "--output", "null", "--config", folder + "/config",
            "--bind", "127.0.0.1:\(mpdPort)", "--http", "127.0.0.1:\(webPort)",
        ])
        defer { daemon.signal(SIGTERM); _ = try? daemon.waitForExit() }
        let shots = folder + "/screenshots"
        try FileManager.default.createDirectory(atPath: shots, withIntermediateDirectories: true)
        let result = try SongboxRunner.run(executable: Self.python,
                                           [Self.script, scenario, "http://127.0.0.1:\(webPort)/", String(mpdPort), shots, password ?? ""] + extra)
        #expect(result.status == 0 && result.stdout.contains("ok \(scenario)"), "\(result.stdout)\(result.stderr)\n\(daemon.errors.suffix(2000))")
        if ProcessInfo.processInfo.environment["SONGBOX_SCREENSHOTS"] == "1" {
            let docs = Fixtures.packageRoot + "/docs/web"
            try? FileManager.default.createDirectory(atPath: docs, withIntermediateDirectories: true)
            for name in try FileManager.default.contentsOfDirectory(atPath: shots) {
                try? FileManager.default.removeItem(atPath: docs + "/" + name)
                try FileManager.default.copyItem(atPath: shots + "/" + name, toPath: docs + "/" + name)
            }
        }
        return result.stdout
    }

    @Test func playFromTheLibraryAndNowPlayingFollowsOverTheEventStream() throws { try run("play") }
    @Test func reorderTheQueueInThePageAndMpcReadsIt() throws { try run("reorder") }
    @Test func aTitleThatIsMarkupIsShownAsText() throws { try run("xss") }
    /// Every page in Hebrew at a phone's size: right to left, no English word of the interface
    /// left, numbers and times still left to right, nothing wider than the screen (web/browser.py's
    /// `right_to_left`); an English page keeps a Hebrew title right to left.
    @Test func theHebrewInterfaceIsRightToLeft() throws {
        // A short one, so its test timeline (on the fast clock) is quick.
        #expect(try songbox.run(["alarm", "add", "wake", "--at", "07:30", "--days", "mon-fri", "--query", "artist:\"Mabel Grey\"",
                                 "--fade", "1m", "--timeout", "3m"]).status == 0)
        #expect(try songbox.run(["analyze"]).status == 0)
        try #"require("songbox").log.info("שלום מהתוסף")"#.write(toFile: folder + "/hello.lua", atomically: true, encoding: .utf8)
        // Autoplay (off) says its settings.
        try run("hebrew", plugins: ["alarm.lua", "autoplay.lua"])
    }
    @Test func aPasswordAsksForTheLoginPage() throws { try run("login", config: "http_password = open sesame\n", password: "open sesame") }
    @Test func nowPlayingWorksWithTheKeyboardAlone() throws { try run("keyboard") }

    /// An alarm added in the page is the one `songbox alarm ls` lists, as the CLI would have made it.
    @Test func anAlarmAddedInThePageIsInAlarmLs() throws {
        try run("alarm", plugins: ["alarm.lua"])
        let listed = try songbox.run(["alarm", "ls", "--json"])
        let alarms = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]], "\(listed.stdout)")
        let wake = try #require(alarms.first { $0["name"] as? String == "wake" }, "\(alarms)")
        #expect(wake["when"] as? String == "mon,tue,wed,thu,fri 06:45" && wake["query"] as? String == "artist:\"Mabel Grey\"")
        #expect(wake["fade"] as? Double == 1200 && wake["curve"] as? String == "log", "\(wake)")
        #expect(try songbox.run(["alarm", "ls"]).stdout.contains("wake: mon,tue,wed,thu,fri 06:45"))
    }

    /// An alarm's test timeline opened in the page (`alarmtest`) has the rows `songbox alarm test`
    /// prints for it: the time, what happened, the volume.
    @Test func anAlarmsTestTimelineInThePageIsWhatAlarmTestPrints() throws {
        #expect(try songbox.run(["alarm", "add", "wake", "--at", "06:00", "--query", "title:\"Old Roads\"", "--fade", "1m",
                                 "--volume", "80", "--timeout", "3m"]).status == 0)
        // A browser shows runs of spaces as one.
        func words<S: StringProtocol>(_ parts: [S]) -> [String] { parts.map { $0.split(separator: " ").joined(separator: " ") } }
        let page = try run("alarmtest", plugins: ["alarm.lua"]).split(separator: "\n").filter { $0.hasPrefix("row\t") }
            .map { words(Array($0.split(separator: "\t", omittingEmptySubsequences: false).dropFirst())) }
        let printed = try songbox.run(["alarm", "test", "wake"])
        #expect(printed.status == 0, "\(printed.stderr)")
        // "    30.0 s  volume   volume  40.0  WHAT": the time (the page's unit: sec), the kind and
        // what, the volume.
        let lines = printed.lines.map { line -> [String] in
            let parts = line.split(separator: " ").map(String.init)
            guard parts.count >= 5, parts[1] == "s", parts[3] == "volume" else { return [line] }
            return words([parts[0] + " sec", ([parts[2]] + parts.dropFirst(5)).joined(separator: " "), parts[4]])
        }
        #expect(page.count >= 10 && page == lines, "the page: \(page)\nalarm test: \(printed.stdout)")
    }

    /// A sounding alarm (fired by an MPD client) is snoozed and dismissed from the page.
    @Test func aSoundingAlarmIsSnoozedFromThePage() throws {
        #expect(try songbox.run(["alarm", "add", "wake", "--at", "06:00", "--query", "artist:\"Mabel Grey\"", "--snooze", "9m"]).status == 0)
        try run("snooze", plugins: ["alarm.lua"])
    }

    /// A mood previewed in the page, each track with its reason, then played (mpc reads the queue).
    @Test func aMoodIsPreviewedAndPlayed() throws {
        #expect(try songbox.run(["analyze"]).status == 0)
        try run("moods", extra: ["calm"])
    }

    /// Two moods as a trajectory ("From the first to the second"): the page previews the
    /// playlist examples/mood-playlist.lua makes of `calm>energetic`, in its order.
    @Test func aMoodTrajectoryIsPreviewedAsTheScriptMakesIt() throws {
        #expect(try songbox.run(["analyze"]).status == 0)
        let script = try songbox.run(["run", "--output", "null", "--fast", Fixtures.packageRoot + "/examples/mood-playlist.lua", "calm>energetic", "45"])
        #expect(script.status == 0, "\(script.stderr)")
        // " 1. 0:04  Mabel Grey - Old Roads  [latin]": the artist and title.
        let lines = script.stdout.split(separator: "\n").compactMap { line -> String? in
            guard let dot = line.firstRange(of: ". "), line[..<dot.lowerBound].allSatisfy({ $0 == " " || $0.isNumber }),
                  let open = line.range(of: "  [", options: .backwards) else { return nil }
            let rest = line[dot.upperBound..<open.lowerBound]
            guard let gap = rest.firstRange(of: "  ") else { return nil }
            return String(rest[gap.upperBound...])
        }
        #expect(lines.count >= 2, "\(script.stdout)")
        try run("trajectory", extra: [lines.joined(separator: "\n")])
    }

    /// The Library page follows the library: an album copied into the watched music folder shows
    /// in an open page (an artist's albums, a folder) with no reload and no click, read once, the
    /// reader's place kept; an MPD client in `idle database` is woken once for it.
    @Test func theLibraryPageShowsANewAlbumCopiedIn() throws {
        let staged = folder + "/staged"
        try FileManager.default.createDirectory(atPath: staged, withIntermediateDirectories: true)
        for (number, title) in ["Tidewater", "Lamplighter"].enumerated() {
            try Fixtures.writeMP3(to: staged + "/0\(number + 1) - \(title).mp3", v2: ID3v2Tag(version: 4, frames: [
                .text("TIT2", title), .text("TPE1", "The Lanterns"), .text("TALB", "Harbour Lights"), .text("TRCK", String(number + 1)),
            ]), audio: try Fixtures.audio("tone-mono-44k.mp3"))
        }
        try run("follow", extra: [staged, library.music])
    }

    @Test func theStatsFollowAPlay() throws { try run("stats") }
    /// The sleep timer set, shown counting its minutes, read back through the API, cancelled.
    @Test func theSleepTimerIsSetShownAndCancelled() throws { try run("sleep") }
    /// The line being sung, from an `.lrc` beside the song, follows the song on Now playing.
    @Test func nowPlayingShowsTheLineBeingSung() throws {
        try "[00:00.30]Down the old roads\n[00:02.50]שיר <b>הדרך</b>\n".write(
            toFile: library.music + "/Mabel Grey/Old Roads/01 - Old Roads.lrc", atomically: true, encoding: .utf8)
        try library.scan()
        try run("lyric")
    }
    @Test func dragTheQueueAndMoveItByKeyboardAndMpcReadsIt() throws { try run("drag") }
    @Test func browseTheLibraryByArtistAlbumAndFolder() throws { try run("browse") }
    @Test func aSmartPlaylistIsTypedWithALivePreview() throws { try run("smart") }

    /// A plugin's log lines and its error, with file:line, on the Plugins page (as text).
    @Test func thePluginsPageShowsEachPluginsLastLogLines() throws {
        try """
            local sb = require "songbox"
            sb.log.info("<b>started</b>")
            sb.on("track_started", function() error("boom") end)
            """.write(toFile: folder + "/noisy.lua", atomically: true, encoding: .utf8)
        try run("plugins")
    }

    /// Autoplay's settings changed in the Plugins page: a bad value refused with the config's
    /// words, a good one kept (autoplay acts by it, and `songbox autoplay status` says it).
    @Test func autoplaysSettingsAreChangedInThePluginsPage() throws {
        #expect(try songbox.run(["autoplay", "on"]).status == 0)
        try run("autoplay", plugins: ["autoplay.lua"])
        let status = try songbox.run(["autoplay", "status"])
        #expect(status.stdout.hasPrefix("Autoplay is on. It keeps 5 tracks ahead"), "\(status.stdout)\(status.stderr)")
    }
}
