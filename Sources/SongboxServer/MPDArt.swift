import Foundation
import SongboxLibrary

/// `albumart` (the picture file beside a song: `cover`, `folder`, `front`, `album` as `.jpg`,
/// `.jpeg` or `.png`, any case) and `readpicture` (the picture embedded in the song, front cover
/// first), sent in pieces of the client's `binarylimit` from an offset, found and read by
/// `ArtLocator`: by offset, never whole.
extension MPDCommands {
    func albumArt(_ args: Arguments, client: MPDClient, out: MPDResponse) throws(Failure) {
        let (path, offset) = try pictureArguments(args)
        guard let facts = ArtLocator.beside(path) else { throw Failure(.noExist, "No file exists") }
        try send(facts, from: offset, client: client, out: out, withType: false)
    }

    /// MPD answers a song without an embedded picture with an empty, successful response.
    func readPicture(_ args: Arguments, client: MPDClient, out: MPDResponse) throws(Failure) {
        let (path, offset) = try pictureArguments(args)
        let lookup: ArtLookup
        do throws(SongboxError) { lookup = try ArtLocator.find(path, in: .embedded) } catch {
            throw Failure(.system, error.message)
        }
        guard let facts = lookup.facts else { return }
        try send(facts, from: offset, client: client, out: out, withType: true)
    }

    /// The song's file and the offset asked for.
    private func pictureArguments(_ args: Arguments) throws(Failure) -> (String, Int) {
        let uri = try args.string(0), offset = try args.integer(1)
        guard offset >= 0 else { throw Failure(.argument, "Bad offset") }
        guard let path = roots().path(uri), try library({ () throws(SongboxError) in try store.tracks.track(path: path) }) != nil else {
            throw Failure(.noExist, "No such song")
        }
        return (path, offset)
    }

    private func send(_ facts: ArtFacts, from offset: Int, client: MPDClient, out: MPDResponse, withType: Bool) throws(Failure) {
        guard offset <= facts.size else { throw Failure(.argument, "Bad file offset") }
        let chunk: [UInt8]
        do throws(SongboxError) { chunk = try ArtLocator.read(facts, offset: offset, length: client.binaryLimit) } catch {
            throw Failure(.system, error.message)
        }
        out.field("size", String(facts.size))
        if withType { out.field("type", facts.mime) }
        out.binary(chunk)
    }
}
