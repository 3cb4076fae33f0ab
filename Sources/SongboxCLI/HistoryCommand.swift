import ArgumentParser
import Foundation
import SongboxLibrary

/// `songbox history`: the latest plays and skips.
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: tr("Show the latest plays and skips, newest first."),
        discussion: tr("With --top, the most played tracks instead (with --since DAYS, within that many days)."))

    @OptionGroup var library: LibraryOptions

    @Option(help: ArgumentHelp(tr("How many rows.")))
    var limit = 20

    @Flag(help: ArgumentHelp(tr("The most played tracks instead of the latest plays.")))
    var top = false

    @Option(help: ArgumentHelp(tr("With --top: only plays in the last DAYS days."), valueName: "days"))
    var since: Int?

    @Flag(help: ArgumentHelp(tr("Print a JSON array.")))
    var json = false

    func validate() throws {
        if limit < 0 { throw ValidationError(tr("--limit must be 0 or more")) }
        if since != nil, !top { throw ValidationError(tr("--since goes with --top")) }
        if let since, since <= 0 { throw ValidationError(tr("--since must be a number of days above 0")) }
    }

    func run() throws {
        let store = try library.openStore()
        if top {
            let window = since.map { Date().addingTimeInterval(-Double($0) * 86_400) }
            let tracks = try store.history.topTracks(since: window, limit: limit)
            if json {
                printJSON(.array(tracks.map { top in
                    .object([("plays_in_window", JSONValue(top.plays)), ("last_played_in_window", JSONValue(date: top.lastPlayed))]
                            + TrackJSON.listing(top.track))
                }))
                return
            }
            guard !tracks.isEmpty else { return }
            let rows = tracks.map { top in
                [String(top.plays), String(top.track.id), top.track.artist ?? "",
                 top.track.title ?? fileName(top.track.path), Self.time(top.lastPlayed)]
            }
            print(TerminalText.table(header: [tr("PLAYS"), tr("ID"), tr("ARTIST"), tr("TITLE"), tr("LAST PLAYED")], rows: rows,
                                     rightAligned: [0, 1]))
            return
        }
        let entries = try store.history.recent(limit: limit)
        if json {
            printJSON(.array(entries.map { entry in
                .object([
                    ("id", .integer(entry.id)), ("track_id", entry.trackID.map { .integer($0) } ?? .null),
                    ("path", .string(entry.path)), ("artist", JSONValue(entry.artist)), ("title", JSONValue(entry.title)),
                    ("kind", .string(entry.kind.rawValue)), ("reason", .string(entry.reason)),
                    ("played", .number(FieldValue.duration(entry.played))), ("at", JSONValue(date: entry.at)),
                ])
            }))
            return
        }
        guard !entries.isEmpty else { return }
        let rows = entries.map { entry in
            [Self.time(entry.at), Self.said(kind: entry.kind.rawValue), Self.said(reason: entry.reason), TerminalText.duration(entry.played),
             entry.track?.artist ?? entry.artist ?? "", entry.track?.title ?? entry.title ?? fileName(entry.path)]
        }
        print(TerminalText.table(header: [tr("WHEN"), tr("KIND"), tr("REASON"), tr("HEARD"), tr("ARTIST"), tr("TITLE")], rows: rows,
                                 rightAligned: [3]))
    }

    /// A history row's kind in the reader's language (`--json` keeps the word the library keeps).
    static func said(kind: String) -> String {
        switch kind {
        case "play": tr("play")
        case "skip": tr("skip")
        default: kind
        }
    }

    /// Why a track ended, in the reader's language; a reason this songbox does not know, as kept.
    static func said(reason: String) -> String {
        switch reason {
        case "finished": tr("finished")
        case "skipped": tr("skipped")
        case "stopped": tr("stopped")
        case "error": tr("error")
        case "replaced": tr("replaced")
        default: reason
        }
    }

    /// Local time, to the minute: as the environment's `LC_TIME` writes dates, else ISO 8601.
    static func time(_ seconds: Int64) -> String {
        if let local = Catalog.minute(seconds) { return local }
        let parts = Calendar.current.dateComponents([.year, .month, .day, .hour, .minute],
                                                    from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        return String(format: "%04d-%02d-%02d %02d:%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0,
                      parts.hour ?? 0, parts.minute ?? 0)
    }
}
