/// When a track that ended counts as a play or a skip. Decided from the seconds actually
/// delivered to the output, so a file that fails at once is never a play.
public struct PlayCountRules: Sendable, Hashable, Codable {
    /// A play needs this share of the track heard ...
    public var playFraction = 0.5
    /// ... or this many seconds, whichever comes first (as Last.fm scrobbling does).
    public var playSeconds = 240.0
    /// Moving on after at least this many seconds is a skip; before, it is nothing.
    public var skipAfterSeconds = 10.0

    public init(playFraction: Double = 0.5, playSeconds: Double = 240, skipAfterSeconds: Double = 10) {
        self.playFraction = playFraction
        self.playSeconds = playSeconds
        self.skipAfterSeconds = skipAfterSeconds
    }

    public func count(reason: EndReason, played: Double, duration: Double) -> PlayVerdict? {
        if reason != .error, played > 0, played >= min(duration * playFraction, playSeconds) { return .play }
        let movedOn = reason == .skipped || reason == .replaced
        return movedOn && played >= skipAfterSeconds ? .skip : nil
    }
}
