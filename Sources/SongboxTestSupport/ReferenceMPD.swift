import Foundation

/// Debian's MPD (`/usr/bin/mpd`) on a free loopback port, serving `music` with a sticker
/// database: the oracle a test compares songbox's answers with (DESIGN rule 13). Its database
/// is built before `init` returns.
public final class ReferenceMPD: @unchecked Sendable {
    public let port: Int
    private let process = Process()

    /// `settings`: more lines of MPD's config (`password "..."`, `default_permissions "..."`).
    public init(music: String, folder: String, settings: String = "") throws {
        port = try freePort()
        // A playlist folder: without one MPD has no `listplaylists`, which clients look for.
        try FileManager.default.createDirectory(atPath: folder + "/playlists", withIntermediateDirectories: true)
        try """
            music_directory "\(music)"
            playlist_directory "\(folder)/playlists"
            db_file "\(folder)/database"
            state_file "\(folder)/state"
            sticker_file "\(folder)/sticker.sql"
            bind_to_address "127.0.0.1"
            port "\(port)"
            log_file "\(folder)/log"
            auto_update "no"
            \(settings)
            audio_output {
                type "null"
                name "null"
            }
            """.write(toFile: folder + "/mpd.conf", atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/mpd")
        process.arguments = ["--no-daemon", folder + "/mpd.conf"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let mpc = ["--host", "127.0.0.1", "--port", String(port)]
        try waitFor(timeout: 20, "MPD to answer") {
            guard process.isRunning else { throw FixtureError("MPD did not start (see \(folder)/log)") }
            return try SongboxRunner.run(executable: "/usr/bin/mpc", mpc + ["version"]).status == 0
        }
        _ = try SongboxRunner.run(executable: "/usr/bin/mpc", mpc + ["--wait", "update"])
    }

    deinit { stop() }

    public func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}
