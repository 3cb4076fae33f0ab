/// Where a track's `path` says it is: a file here, or a URL on the network.
public enum TrackLocation {
    /// Whether `path` names a track on the network (`http://`, `https://`, any case) rather than
    /// a file. The one test of it: the player, the library and every front end ask here.
    public static func isURL(_ path: String) -> Bool {
        let head = path.prefix(8).lowercased()
        return head.hasPrefix("http://") || head.hasPrefix("https://")
    }
}
