/// Where a track's `path` says it is: a file here, or a URL on the network.
public enum TrackLocation {
    /// Whether `path` names a track on the network (`http://`, `https://`, any case) rather than
    /// a file. The one test of it: the player, the library and every front end ask here.
    public static func isURL(_ path: String) -> Bool {
        // A file's path starts with "/": most calls (every song of a listing) end here.
        guard path.utf8.first != UInt8(ascii: "/") else { return false }
        let head = path.prefix(8).lowercased()
        return head.hasPrefix("http://") || head.hasPrefix("https://")
    }

    /// `path` as it may be shown (listings, MPD clients, logs): a URL without the
    /// `user:password@` it may hold, which is sent to its server and to no one else.
    public static func shown(_ path: String) -> String {
        guard let (scheme, userInfo, rest) = split(path), userInfo != nil else { return path }
        return String(scheme) + rest
    }

    /// A URL's `user:password@`, percent-decoded; nil when it has none.
    public static func credentials(_ path: String) -> (user: String, password: String)? {
        guard let info = split(path)?.userInfo else { return nil }
        let parts = info.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let decode = { (part: Substring) in part.removingPercentEncoding ?? String(part) }
        return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
    }

    /// `scheme://`, the user info before the host's `@` (when there is one), and the rest.
    private static func split(_ path: String) -> (scheme: Substring, userInfo: Substring?, rest: Substring)? {
        guard isURL(path), let separator = path.range(of: "://") else { return nil }
        let rest = path[separator.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@") else { return (path[..<separator.upperBound], nil, rest) }
        return (path[..<separator.upperBound], rest[..<at], rest[rest.index(after: at)...])
    }
}
