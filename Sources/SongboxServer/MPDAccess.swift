import Foundation

/// MPD's permissions: what a client may do.
public struct MPDPermissions: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let read = MPDPermissions(rawValue: 1 << 0)
    public static let add = MPDPermissions(rawValue: 1 << 1)
    public static let player = MPDPermissions(rawValue: 1 << 2)
    public static let control = MPDPermissions(rawValue: 1 << 3)
    public static let admin = MPDPermissions(rawValue: 1 << 4)
    public static let all: MPDPermissions = [.read, .add, .player, .control, .admin]

    static let names: [(String, MPDPermissions)] = [("read", .read), ("add", .add), ("player", .player), ("control", .control), ("admin", .admin)]

    /// `read,add,player` (MPD's config syntax).
    public init(parsing text: String) throws(MPDProtocol.Failure) {
        var permissions: MPDPermissions = []
        for word in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) where !word.isEmpty {
            guard let found = Self.names.first(where: { $0.0 == word }) else {
                throw MPDProtocol.Failure(.argument, "unknown permission '\(word)' (read, add, player, control, admin)")
            }
            permissions.insert(found.1)
            // As MPD (0.23 split `player` from `control`): a `control` password still plays.
            if found.1 == .control { permissions.insert(.player) }
        }
        self = permissions
    }
}

/// Who may do what: the passwords (each with its permissions) and what a client has before it
/// sends one. Clients on the Unix socket have every permission: the socket's folder decides who
/// reaches it (MPD's `local_permissions`).
public struct MPDAccess: Sendable, Equatable {
    public var passwords: [String: MPDPermissions]
    public var defaultPermissions: MPDPermissions

    /// With no password, everyone may do everything, as MPD.
    public init(passwords: [String: MPDPermissions] = [:], defaultPermissions: MPDPermissions = .all) {
        self.passwords = passwords
        self.defaultPermissions = defaultPermissions
    }

    /// `SECRET@read,add,player` (MPD's `password` setting).
    public static func password(parsing text: String) throws(MPDProtocol.Failure) -> (String, MPDPermissions) {
        guard let at = text.lastIndex(of: "@"), at != text.startIndex else {
            throw MPDProtocol.Failure(.argument, "a password is SECRET@PERMISSIONS, e.g. secret@read,add,player,control,admin")
        }
        return (String(text[..<at]), try MPDPermissions(parsing: String(text[text.index(after: at)...])))
    }
}
