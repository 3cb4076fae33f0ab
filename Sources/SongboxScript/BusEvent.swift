import SongboxAudio
import SongboxPlayback
import Synchronization

/// An event on its way to the plugins: a player event from the bus, or one a plugin, a client
/// or a rescan posted (`alarm`, `message`, `library_updated`). A player event becomes a Lua
/// value once, by the first plugin that has a handler for it; the others share that value, and
/// a plugin without a handler for its `type` never gets it (`Plugin.deliver`).
public final class BusEvent: Sendable {
    /// Its `type`, as `songbox.on` names it.
    public let name: String
    private let source: PlaybackEvent?
    private let converted: Mutex<LuaValue?>

    public init(_ event: PlaybackEvent) {
        name = event.event.name
        source = event
        converted = Mutex(nil)
    }

    /// A posted event: a table with a `type`.
    public init(posted value: LuaValue) {
        if case .string(let type)? = value.tableValue?["type"] { name = type } else { name = "" }
        source = nil
        converted = Mutex(value)
    }

    /// The table handlers get.
    public var value: LuaValue {
        converted.withLock { value in
            if let value { return value }
            let made = source.map(PlayerAPI.event) ?? .nil
            value = made
            return made
        }
    }

    /// Only the newest of a kind matters (`PlayerEvent.valueEventNames`): a plugin that falls
    /// behind may lose the older ones.
    var coalescingKind: String? { PlayerEvent.valueEventNames.contains(name) ? name : nil }
}
