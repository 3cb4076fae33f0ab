import SongboxLibrary

extension LibraryAPI.Functions {
    // MARK: songbox.lyrics, songbox.library.art

    /// `songbox.lyrics.get(track)`: `{text=, lines={{t=, text=}, ...}, source=}`, or nil.
    func lyrics(_ args: LuaArguments) throws -> [LuaValue] {
        let id = try trackID(args, 1)
        guard let lyrics = try store.tracks.lyrics(id: id) else { return [.nil] }
        return [LibraryAPI.table(lyrics)]
    }

    /// `songbox.library.art(track)`: the picture's facts, or nil.
    func art(_ args: LuaArguments) throws -> [LuaValue] {
        guard let facts = try artFacts(args) else { return [.nil] }
        return [LibraryAPI.table(facts)]
    }

    /// `songbox.library.art_bytes(track, offset, length)`: up to `length` bytes of the picture
    /// from `offset` (0-based, as MPD counts), at most `LibraryAPI.artBytesLimit`; "" at its end.
    func artBytes(_ args: LuaArguments) throws -> [LuaValue] {
        let offset = try args.integer(2)
        let length = try args.integer(3)
        guard offset >= 0 else { throw LuaFunctionError.argument(2, "offset must not be negative") }
        guard (0...LibraryAPI.artBytesLimit).contains(length) else {
            throw LuaFunctionError.argument(3, "length must be 0 to \(LibraryAPI.artBytesLimit)")
        }
        guard let facts = try artFacts(args) else { return [.nil, .string("songbox.library.art_bytes: the track has no picture")] }
        guard offset <= facts.size else {
            throw SongboxError(.invalidArgument, "offset \(offset) is past the end of the \(facts.size)-byte picture")
        }
        return [.bytes(try ArtLocator.read(facts, offset: offset, length: length))]
    }

    private func artFacts(_ args: LuaArguments) throws -> ArtFacts? {
        let id = try trackID(args, 1)
        guard let track = try store.tracks.track(id: id) else { throw SongboxError(.notFound, "no track \(id)") }
        return try ArtLocator.find(track.path).facts
    }
}

extension LibraryAPI {
    /// The most `songbox.library.art_bytes` returns at once.
    static let artBytesLimit = 1 << 20

    static func table(_ lyrics: Lyrics) -> LuaValue {
        .table([
            "text": .string(lyrics.text), "source": .string(lyrics.source.rawValue),
            "lines": .array(lyrics.lines.map { .table(["t": .number($0.seconds), "text": .string($0.text)]) }),
        ])
    }

    static func table(_ facts: ArtFacts) -> LuaValue {
        var table: [String: LuaValue] = [
            "source": .string(facts.source.rawValue), "mime": .string(facts.mime), "size": .integer(facts.size),
            "path": .string(facts.path),
        ]
        if let type = facts.pictureType { table["type"] = .integer(type) }
        if let name = facts.pictureTypeName { table["type_name"] = .string(name) }
        if let width = facts.width { table["width"] = .integer(width) }
        if let height = facts.height { table["height"] = .integer(height) }
        if let description = facts.description { table["description"] = .string(description) }
        return .table(table)
    }
}
