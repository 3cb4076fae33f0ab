/// A value bound to a `?` placeholder.
enum QueryValue: Sendable, Equatable {
    case integer(Int64)
    case real(Double)
    case text(String)
}

/// One end of a range: `year >= 1960` is `QueryBound(.integer(1960), inclusive: true)`.
struct QueryBound: Sendable, Equatable {
    var value: QueryValue
    var inclusive: Bool
}

/// What a query keeps: a tree of conditions on the rows of the `library` view.
indirect enum QueryCondition: Sendable, Equatable {
    /// Every one holds (`a b`, `a AND b`).
    case all([QueryCondition])
    /// At least one holds (`a, b`, `a OR b`).
    case any([QueryCondition])
    /// `-a`, `NOT a`. A condition on a missing value (NULL) counts as false, so its negation holds.
    case not(QueryCondition)
    /// A free word or quoted phrase, folded: a substring of the title, artist, album or album artist.
    case words(String)
    /// A folded value in a text field's key.
    case text(QueryField, TextMatch)
    /// A number, date or duration within the bounds (at least one is set).
    case range(QueryField, lower: QueryBound?, upper: QueryBound?)
    /// Membership in the playlist of that name.
    case playlist(String)

    enum TextMatch: Sendable, Equatable {
        /// The folded value occurs anywhere in the key (`title:love`).
        case contains(String)
        /// The key is the folded value (`title:=love`).
        case equals(String)
        /// The field is missing or empty (`title:=""`).
        case isEmpty
        /// A regular expression matches the field's value as tagged, ignoring case (`title:~"^love"`).
        case matches(String)
    }
}

/// One `sort:` key.
struct QuerySortKey: Sendable, Equatable {
    var field: QueryField
    var descending: Bool
}

/// How many rows `limit:` keeps.
enum QueryLimit: Sendable, Equatable {
    /// `limit:10`: that many rows.
    case count(Int)
    /// `limit:45m`: rows in order while the duration of the rows before stays under these seconds.
    case duration(Int)
}
