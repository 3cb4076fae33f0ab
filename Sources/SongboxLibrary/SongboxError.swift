import Foundation
import GRDB
import GRDBSQLite
@_exported import SongboxMessages  // a SongboxError is made of Messages: whoever throws one can name the type

/// An error a user can act on: a stable code, what went wrong, where, and how to fix it.
public struct SongboxError: Error, CustomStringConvertible, Sendable {
    public enum Code: String, Sendable {
        case databaseUnavailable = "database-unavailable"
        case databaseFailed = "database-failed"
        /// Another process held the database's lock longer than songbox waits.
        case databaseLocked = "database-locked"
        /// A command that writes met a database it may only read.
        case databaseReadOnly = "database-read-only"
        case diskFull = "disk-full"
        /// The file is not an SQLite database, or another program's.
        case notALibrary = "not-a-library"
        /// `PRAGMA integrity_check` (or SQLite on the way) found damage.
        case databaseDamaged = "database-damaged"
        /// Another `songbox scan` of the same library is running.
        case scanRunning = "scan-running"
        case invalidQuery = "invalid-query"
        case notFound = "not-found"
        case invalidArgument = "invalid-argument"
        case unreadableFile = "unreadable-file"
        case folderUnavailable = "folder-unavailable"
        /// The script function of a smart playlist failed or gave something that is not tracks.
        case scriptFailed = "script-failed"
        /// A service on the network could not be reached, or refused (Last.fm's login).
        case networkFailed = "network-failed"
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
        self.cause = cause.map(words(for:))
    }

    /// The same error said at `path` when it names no place of its own.
    func located(at path: String) -> SongboxError {
        guard location == nil else { return self }
        return SongboxError(code, text, at: path, hint: hintText, cause: cause.map(CauseText.init))
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

    /// A failed database operation, said in words: the one place an SQLite error becomes what a
    /// person reads (no SQLite message or SQL text reaches them).
    static func database(_ error: any Error, at path: String) -> SongboxError {
        if let error = error as? SongboxError { return error }
        guard let sqlite = error as? DatabaseError else {
            return SongboxError(.databaseFailed, "database operation failed", at: path, cause: error)
        }
        switch sqlite.resultCode.primaryResultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            let holders = DatabaseHolders.describe(path)
            return SongboxError(.databaseLocked, "the library database stayed locked by another process\(Message(verbatim: holders))",
                                at: path, hint: "another songbox (or sqlite3) is writing to it; try again when it is done")
        case .SQLITE_READONLY where DatabaseHolders.diskIsFull(path):  // opened read-only for want of room
            return diskFull(at: path)
        case .SQLITE_READONLY:
            return readOnly(at: path)
        case .SQLITE_FULL:
            return diskFull(at: path)
        case .SQLITE_NOTADB:
            return notALibrary(at: path)
        case .SQLITE_CORRUPT:
            return damaged(at: path)
        case .SQLITE_TOOBIG:
            return queryTooLarge()
        case .SQLITE_IOERR where DatabaseHolders.diskIsFull(path):
            return diskFull(at: path)
        case .SQLITE_IOERR:
            return SongboxError(.databaseFailed, "the library database could not be read or written (a disk error)", at: path,
                                hint: "check the disk (dmesg shows its errors); if the file is damaged, restore it from a backup")
        case .SQLITE_CANTOPEN:
            return SongboxError(.databaseUnavailable, "cannot open the library database", at: path,
                                hint: "check that the file and its folder exist and can be read, or pass --db PATH")
        case .SQLITE_ERROR where tooLargeMessages.contains { sqlite.message?.contains($0) == true }:
            return queryTooLarge()
        default:
            return SongboxError(.databaseFailed, "database operation failed (SQLite error \(Message(verbatim: String(sqlite.resultCode.rawValue))))", at: path)
        }
    }

    /// What SQLite says when a statement is beyond its limits (a query of thousands of terms).
    private static let tooLargeMessages = ["too large", "too many", "stack overflow", "string or blob too big"]

    static func queryTooLarge() -> SongboxError {
        SongboxError(.invalidQuery, "the query is too large for the database",
                     hint: "use fewer terms, or a range (year:1960..1970) instead of many values")
    }

    static func readOnly(at path: String?) -> SongboxError {
        SongboxError(.databaseReadOnly, "the library database is read-only: this command changes it", at: path,
                     hint: "reading commands (ls, show, stats, history) work; to change the library, make the file and its folder writable")
    }

    static func diskFull(at path: String?) -> SongboxError {
        SongboxError(.diskFull, "the disk holding the library database is full: nothing was changed", at: path,
                     hint: "free some space on it (df shows how much is left); reading commands still work")
    }

    static func notALibrary(at path: String?) -> SongboxError {
        SongboxError(.notALibrary, "this file is not a songbox library", at: path,
                     hint: "check the path given with --db or SONGBOX_DB; if it was your library, it is damaged: restore it from a backup")
    }

    public static func damaged(at path: String?) -> SongboxError {
        SongboxError(.databaseDamaged, "the library database is damaged", at: path,
                     hint: "restore it from a backup, or move it away and scan again (play history would be lost)")
    }
}

/// A cause already in words.
struct CauseText: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A cause said in words: a Foundation error as what happened (`permission denied`), not its
/// `Error Domain=... UserInfo={...}` dump; an SQLite error without its SQL.
public func words(for error: any Error) -> String {
    switch error {
    case let error as CauseText: return error.description
    case let error as SongboxError: return error.description
    case let error as DatabaseError: return String(cString: sqlite3_errstr(error.resultCode.rawValue))
    case let error as POSIXError: return String(cString: strerror(error.code.rawValue))
    case let error as CocoaError:
        if let underlying = error.underlying as? POSIXError { return String(cString: strerror(underlying.code.rawValue)) }
        switch error.code {
        case .fileWriteNoPermission, .fileReadNoPermission: return String(cString: strerror(EACCES))
        case .fileNoSuchFile, .fileReadNoSuchFile: return String(cString: strerror(ENOENT))
        case .fileWriteOutOfSpace: return String(cString: strerror(ENOSPC))
        case .fileWriteVolumeReadOnly: return String(cString: strerror(EROFS))
        case .fileWriteFileExists: return String(cString: strerror(EEXIST))
        default: return "file operation failed (code \(error.code.rawValue))"
        }
    case let error as any CustomStringConvertible where !(type(of: error) is NSError.Type):
        return error.description  // a Swift error of ours, with words of its own
    default:
        let error = error as NSError
        if error.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(error.code))) }
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? any Error { return words(for: underlying) }
        if error.domain == NSCocoaErrorDomain { return words(for: CocoaError(CocoaError.Code(rawValue: error.code))) }
        return String(describing: error)
    }
}
