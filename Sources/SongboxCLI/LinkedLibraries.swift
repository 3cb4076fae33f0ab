internal import CALSA
internal import CLua
internal import CMPG123
import GRDB

/// Versions of the C libraries songbox runs on, as linked at run time.
enum LinkedLibraries {
    static var versions: [(String, String)] {
        let sqlite = (try? DatabaseQueue().read { db in try String.fetchOne(db, sql: "SELECT sqlite_version()") }) ?? nil
        return [
            ("SQLite", sqlite ?? "unknown"),
            // libmpg123 before 1.32 has no run-time version call; this is the API it was built against.
            ("libmpg123", "API \(MPG123_API_VERSION)"),
            ("ALSA", String(cString: snd_asoundlib_version())),
            ("Lua", String(String(cString: songbox_lua_release()).dropFirst("Lua ".count))),
        ]
    }
}
