import GRDB
@_exported import SongboxMessages  // a SongboxError is made of Messages: whoever throws one can name the type

/// An error a user can act on: a stable code, what went wrong, where, and how to fix it.
public struct SongboxError: Error, CustomStringConvertible, Sendable {
    public enum Code: String, Sendable {
        case databaseUnavailable = "database-unavailable"
        case databaseFailed = "database-failed"
        case invalidQuery = "invalid-query"
        case notFound = "not-found"
        case invalidArgument = "invalid-argument"
        case unreadableFile = "unreadable-file"
        case folderUnavailable = "folder-unavailable"
        /// The script function of a smart playlist failed or gave something that is not tracks.
        case scriptFailed = "script-failed"
    }

    public let code: Code
    /// What went wrong, in English for programs (`message`) and in the reader's language.
    public let text: Message
    /// A path, a query position, a track id: where it happened.
    public let location: String?
    /// How to fix it, when there is something to say.
    public let hintText: Message?
    public let cause: String?

    public init(_ code: Code, _ message: Message, at location: String? = nil, hint: Message? = nil,
                cause: (any Error)? = nil) {
        self.code = code
        self.text = message
        self.location = location
        self.hintText = hint
        self.cause = cause.map { String(describing: $0) }
    }

    /// In English: what a script, a log and an MPD client read.
    public var message: String { text.description }
    public var hint: String? { hintText?.description }

    public var description: String { render(localized: false) }

    /// What the CLI prints: the message and the hint in the reader's language (see `Catalog`).
    public var localized: String { render(localized: true) }

    private func render(localized: Bool) -> String {
        let say = { (message: Message) in localized ? message.localized : message.description }
        var text = location.map { "\($0): " } ?? ""
        text += say(self.text)
        if let cause { text += " (\(cause))" }
        if let hintText { text += "\n  " + say("hint: \(hintText)") }
        return text
    }

    /// A failed database operation, named by its SQLite cause (a script's `pcall` sees the
    /// message, not only the description).
    static func database(_ error: any Error, at path: String) -> SongboxError {
        if let error = error as? SongboxError { return error }
        guard let sqlite = error as? DatabaseError else {
            return SongboxError(.databaseFailed, "database operation failed", at: path, cause: error)
        }
        if LibraryStore.isBusy(sqlite) {
            return SongboxError(.databaseFailed, "the library database stayed locked by another process: \(sqlite.message ?? "database is locked")",
                                at: path, hint: "another songbox (or sqlite3) is writing to it; try again when it is done")
        }
        return SongboxError(.databaseFailed, "database operation failed: \(sqlite.message ?? sqlite.resultCode.description)", at: path)
    }
}
