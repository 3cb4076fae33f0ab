import NIOCore

/// One command of the table run inside the daemon, as a connection runs it (the table's lookup,
/// permission and argument checks, then `MPDCommandHandler.handle`), for an adapter that is not
/// an MPD connection: the web app's JSON API. Its answer is the fields an MPD client would read.
public struct CommandCall: Sendable {
    private let commands: any MPDCommandHandler
    private let clients: Clients

    /// The commands about a connection itself (waiting, lists, its password, its subscriptions,
    /// its tag and protocol choices) and those that answer in binary: they mean nothing outside
    /// a connection of MPD's protocol.
    public static let connectionCommands: Set<String> = [
        "idle", "noidle", "close", "password", "command_list_begin", "command_list_ok_begin", "command_list_end",
        "binarylimit", "albumart", "readpicture", "subscribe", "unsubscribe", "readmessages", "tagtypes", "protocol",
    ]

    public init(commands: any MPDCommandHandler, clients: Clients) {
        self.commands = commands
        self.clients = clients
    }

    /// Runs `command`; its fields, or the failure an MPD client would get in its `ACK`. An answer
    /// of more than `most` bytes stops the command and is refused (ask for a window of it).
    public func run(_ command: String, _ arguments: [String], permissions: MPDPermissions, most: Int) async throws(MPDProtocol.Failure) -> [(String, String)] {
        guard !Self.connectionCommands.contains(command) else {
            throw MPDProtocol.Failure(.unknown, "\(command) is a command of MPD's protocol connections only")
        }
        return try await collect(command, arguments, permissions: permissions, most: most).fields()
    }

    /// A song's picture, through the table as an MPD client reads it: `readpicture` (embedded),
    /// else `albumart` (a file beside it), a piece at a time; its bytes and MIME type (`type`,
    /// `readpicture`'s only), at most `most` bytes; nil when it has none.
    public func picture(of uri: String, permissions: MPDPermissions, most: Int) async throws(MPDProtocol.Failure) -> (type: String?, bytes: [UInt8])? {
        for command in ["readpicture", "albumart"] {
            var bytes: [UInt8] = []
            var type: String?
            while true {
                let piece: Collected
                do throws(MPDProtocol.Failure) {
                    piece = try await collect(command, [uri, String(bytes.count)], permissions: permissions, most: Self.pictureChunk + 1024)
                } catch where command == "albumart" && error.code == .noExist {
                    return nil
                }
                guard let (fields, data) = piece.binary() else { break }
                let size = fields.first { $0.0 == "size" }.flatMap { Int($0.1) } ?? 0
                guard size <= most else { throw MPDProtocol.Failure(.argument, "the picture is larger than \(most >> 20) MiB") }
                type = type ?? fields.first { $0.0 == "type" }?.1
                bytes += data
                if data.isEmpty || bytes.count >= size { return (type, bytes) }
            }
        }
        return nil
    }

    /// The pieces a picture is read in (a client's `binarylimit`).
    static let pictureChunk = 256 << 10

    /// Runs `command` (checked as `run` checks it) and keeps its answer's bytes.
    private func collect(_ command: String, _ arguments: [String], permissions: MPDPermissions, most: Int) async throws(MPDProtocol.Failure) -> Collected {
        try MPDCommandTable.entry(command).admit(count: arguments.count, permissions: permissions)
        let collected = Collected(most: most)
        let out = MPDResponse { bytes in collected.take(bytes) }
        let client = MPDClient(id: -1, clients: clients, permissions: permissions)
        client.binaryLimit = Self.pictureChunk
        if MPDCommandTable.answeredInPlace.contains(command) {
            try await commands.handle(command, arguments, client: client, out: out)
        } else {
            // Where an MPD connection runs it, as it may block (a library read, an alarm's test):
            // not on one of Swift's few cooperative threads, which the other requests need.
            try await withTaskExecutorPreference(MPDConnection.blockingExecutor) { () async throws(MPDProtocol.Failure) in
                try await commands.handle(command, arguments, client: client, out: out)
            }
        }
        await out.send()
        guard !collected.tooLong else {
            throw MPDProtocol.Failure(.argument, "the answer to \(command) is longer than \(most >> 10) KiB: ask for a window of it")
        }
        return collected
    }
}

/// An answer's bytes as they are sent, up to a bound. Used by one command's task only.
private final class Collected: @unchecked Sendable {
    private var bytes: [UInt8] = []
    private let most: Int
    private(set) var tooLong = false

    init(most: Int) { self.most = most }

    /// False (the command stops) once the answer passed the bound.
    func take(_ buffer: ByteBuffer) -> Bool {
        guard bytes.count + buffer.readableBytes <= most else {
            tooLong = true
            return false
        }
        bytes += buffer.readableBytesView
        return true
    }

    /// A binary answer's fields (`size`, `type`) and its bytes (after `binary: N`); nil when
    /// there is none (a song without a picture).
    func binary() -> (fields: [(String, String)], bytes: [UInt8])? {
        guard let marker = bytes.firstRange(of: Array("binary: ".utf8)) else { return nil }
        let head = Collected(most: most)
        head.bytes = Array(bytes[..<marker.lowerBound])
        guard let newline = bytes[marker.upperBound...].firstIndex(of: UInt8(ascii: "\n")),
              let count = Int(String(decoding: bytes[marker.upperBound..<newline], as: UTF8.self)),
              count >= 0, newline + 1 + count <= bytes.count else { return nil }
        return (head.fields(), Array(bytes[(newline + 1)..<(newline + 1 + count)]))
    }

    /// The `key: value` lines (values are one line each: `MPDProtocol.fieldValue`).
    func fields() -> [(String, String)] {
        var fields: [(String, String)] = []
        bytes.withUnsafeBufferPointer { all in
            var start = 0
            while start < all.count {
                var end = start
                while end < all.count, all[end] != UInt8(ascii: "\n") { end += 1 }
                // The first ": " ends the key (`0:file: x` is the key `0:file`).
                var colon = start
                while colon + 1 < end, !(all[colon] == UInt8(ascii: ":") && all[colon + 1] == UInt8(ascii: " ")) { colon += 1 }
                if colon + 1 < end {
                    fields.append((String(decoding: UnsafeBufferPointer(rebasing: all[start..<colon]), as: UTF8.self),
                                   String(decoding: UnsafeBufferPointer(rebasing: all[(colon + 2)..<end]), as: UTF8.self)))
                }
                start = end + 1
            }
        }
        return fields
    }
}
