import Foundation
import SongboxLibrary

/// The autoplay plugin's settings as the web app's Plugins page and the `autoplaysettings` and
/// `autoplayset` commands see them. The plugin (`plugins/autoplay.lua`) owns the list: each
/// setting's kind and bounds, checked against the config's `plugin.autoplay.KEY`. It publishes
/// the list with the config's values when it starts (`settings` of its `songbox.state`); a
/// change is checked here against the same bounds, with the plugin's words, and kept where the
/// plugin reads it before the config's (`changed`), so it holds across restarts.
public enum AutoplaySettings {
    /// One setting: `kind` is `whole` (from `low` to `high`), `flag` (true or false) or `text`;
    /// `from` says where its value came from: `default`, `config` or `page`.
    public struct Setting: Sendable, Hashable {
        public let key: String
        public let kind: String
        public let value: String
        public let defaultValue: String
        public let low: Int?
        public let high: Int?
        public let from: String

        /// The setting as the command's record: `setting` NAME first.
        public var fields: [(String, String)] {
            var fields = [("setting", key), ("kind", kind), ("value", value), ("default", defaultValue)]
            if let low, let high { fields += [("low", String(low)), ("high", String(high))] }
            return fields + [("from", from)]
        }
    }

    /// The longest text setting (a playlist's name, a query).
    static let longestText = 1000

    /// The settings the plugin last published.
    public static func list(_ store: LibraryStore) throws(SongboxError) -> [Setting] {
        guard let data = try store.state.saved(AutoplayAPI.stateKey + "settings"),
              let published = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]] else {
            throw SongboxError(.notFound, "the autoplay plugin has not said its settings yet",
                               hint: "it does when it starts: is it in the daemon's plugins (`songbox plugin ls`)?")
        }
        // The page's change, else the config's value (as the plugin checked it), else the
        // default: a change the plugin has not read yet is already what it will use.
        let changed = try changes(store)
        return published.compactMap { entry in
            guard let key = entry["key"] as? String, let kind = entry["kind"] as? String else { return nil }
            let (value, from): (Any?, String) = if let page = changed[key] { (page, "page") }
                else if let config = entry["config"] { (config, "config") } else { (entry["default"], "default") }
            return Setting(key: key, kind: kind, value: text(value, kind: kind), defaultValue: text(entry["default"], kind: kind),
                           low: entry["low"] as? Int, high: entry["high"] as? Int, from: from)
        }
    }

    /// The values changed by `change`, by key.
    private static func changes(_ store: LibraryStore) throws(SongboxError) -> [String: Any] {
        guard let data = try store.state.saved(AutoplayAPI.stateKey + "changed") else { return [:] }
        return (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }

    /// Keeps `text` as the setting `key` (checked as the plugin checks the config's), or with an
    /// empty `text` forgets the page's value (the config's, else the default, is used again).
    /// Returns the value kept. The running plugin is told by the caller (`settings` on its channel).
    @discardableResult
    public static func change(_ key: String, to text: String, store: LibraryStore) throws(SongboxError) -> String {
        let settings = try list(store)
        guard let setting = settings.first(where: { $0.key == key }) else {
            throw SongboxError(.invalidArgument, "autoplay has no setting '\(key)'",
                               hint: "its settings: \(settings.map(\.key).joined(separator: ", "))")
        }
        var changed = try changes(store)
        if text.isEmpty {
            changed[key] = nil
        } else {
            changed[key] = try value(text, for: setting)
        }
        let data: Data
        do { data = try JSONSerialization.data(withJSONObject: changed, options: [.sortedKeys]) } catch {
            throw SongboxError(.invalidArgument, "autoplay's settings cannot be kept: \(error.localizedDescription)")
        }
        try store.state.save(data, as: AutoplayAPI.stateKey + "changed")
        return text
    }

    /// `text` as the JSON value the plugin reads for `setting`, or the plugin's words for why not.
    static func value(_ text: String, for setting: Setting) throws(SongboxError) -> Any {
        let name = "plugin.autoplay.\(setting.key)"
        switch setting.kind {
        case "whole":
            let low = setting.low ?? 0, high = setting.high ?? Int.max
            guard let number = Int(text), (low...high).contains(number) else {
                throw SongboxError(.invalidArgument, "\(name) must be a whole number from \(low) to \(high), got \(text)")
            }
            return number
        case "flag":
            guard text == "true" || text == "false" else { throw SongboxError(.invalidArgument, "\(name) must be true or false, got \(text)") }
            return text == "true"
        default:
            guard text.count <= longestText, !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw SongboxError(.invalidArgument, "\(name) is one line of at most \(longestText) characters")
            }
            // A query that does not parse is refused now, with the reason, not found out later.
            if setting.key == "query" { _ = try LibraryQuery.parse(text) }
            return text
        }
    }

    /// A published value as text, by its setting's kind: a number as written, true or false, ""
    /// for none.
    private static func text(_ value: Any?, kind: String) -> String {
        switch kind {
        case "whole": (value as? Int).map(String.init) ?? ""
        case "flag": (value as? Bool).map { $0 ? "true" : "false" } ?? ""
        default: value as? String ?? ""
        }
    }
}
