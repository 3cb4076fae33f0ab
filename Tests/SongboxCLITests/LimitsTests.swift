import Foundation
import SongboxServer
import SongboxTestSupport
import Testing

/// What songbox refuses to grow without bound, through the real binary (issue 31): a queue
/// past `max_queue_length` from an MPD client, a plugin or `songbox play`, a daemon that ends
/// promptly while a plugin floods the queue, config numbers without sense, a read-only library,
/// a query of 10,000 `OR` terms.
@Suite(.serialized) struct LimitsTests: TestLibrarySuite {
    let library: TestLibrary

    init() throws {
        library = try TestLibrary()
        try library.scanExamples()
    }

    /// A daemon on this library with `config`, these plugins, the null output and a free TCP port.
    func startDaemon(config: String, plugins: [String: String] = [:]) throws -> (DaemonProcess, port: Int) {
        let pluginFolder = folder + "/plugins"
        try FileManager.default.createDirectory(atPath: pluginFolder, withIntermediateDirectories: true)
        for (name, source) in plugins { try source.write(toFile: pluginFolder + "/" + name + ".lua", atomically: true, encoding: .utf8) }
        try config.write(toFile: folder + "/config", atomically: true, encoding: .utf8)
        let port = try freePort()
        let daemon = try DaemonProcess(database: songbox.database, folder: folder, arguments: [
            "--plugins", pluginFolder, "--output", "null", "--config", folder + "/config", "--bind", "127.0.0.1:\(port)",
        ])
        return (daemon, port)
    }

    // MARK: Config numbers

    /// Runs a command that reads the config (`cache stats`) on a config of `lines`.
    func withConfig(_ lines: String) throws -> SongboxRunner.Output {
        try lines.write(toFile: folder + "/config", atomically: true, encoding: .utf8)
        return try songbox.run(["cache", "stats"], environment: ["SONGBOX_CONFIG": folder + "/config"])
    }

    @Test(arguments: [
        ("fade = 100000", "fade is seconds from 0 to 10, got '100000'"),
        ("fade = 1e308", "fade is seconds from 0 to 10, got '1e308'"),
        ("fade = -1", "fade is seconds from 0 to 10, got '-1'"),
        ("plugin_restart_pause = 1e308", "plugin_restart_pause is seconds from 0 to 600, got '1e308'"),
        ("sleep_fade = nan", "sleep_fade is seconds from 0 to 600, got 'nan'"),
        ("play_seconds = inf", "play_seconds is seconds from 0 to 86400, got 'inf'"),
        ("skip_after = soon", "skip_after is seconds from 0 to 86400, got 'soon'"),
        ("play_fraction = 1.5", "play_fraction is a share from 0 to 1, got '1.5'"),
        ("rescan_minutes = 1e9", "rescan_minutes is minutes from 0 to 525600, got '1e9'"),
        ("missing_days = 36501", "missing_days is days from 0 to 36500, got '36501'"),
        ("replay_gain_preamp = 16", "replay_gain_preamp is dB from -15 to 15, got '16'"),
        ("plugin_failures = 0", "plugin_failures is a whole number from 1 to 1000, got '0'"),
        ("max_connections = 2.5", "max_connections is a whole number from 1 to 10000, got '2.5'"),
        ("max_queue_length = 1e12", "max_queue_length is a whole number from 1 to 100000, got '1e12'"),
    ])
    func aNumberOutOfItsRangeIsRefusedWithItsKeyValueRangeAndLine(line: String, message: String) throws {
        let refused = try withConfig("# songbox\n\(line)\n")
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("\(folder)/config:2: \(message)"), "\(refused.stderr)")
    }

    @Test func eachRangesEndsAreAccepted() throws {
        let accepted = try withConfig("""
            fade = 10
            sleep_fade = 0
            plugin_restart_pause = 600
            play_seconds = 86400
            rescan_minutes = 525600
            max_queue_length = 100000
            max_connections = 1
            replay_gain_missing_preamp = -15
            """)
        #expect(accepted.status == 0, "\(accepted.stderr)")
    }

    @Test func theDaemonRefusesAFadeBeyondSense() throws {
        do {
            _ = try startDaemon(config: "fade = 100000\n")
            Issue.record("the daemon started")
        } catch {
            #expect("\(error)".contains("config:1: fade is seconds from 0 to 10, got '100000'"), "\(error)")
        }
    }

    @Test func aMissingCertificateFileOrAFolderForAConfigIsSaidAtOnce() throws {
        let missing = try withConfig("tls_certificates = \(folder)/nowhere.pem\n")
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("config:1: cannot trust tls_certificates = \(folder)/nowhere.pem: there is no such file"), "\(missing.stderr)")
        try "not a certificate\n".write(toFile: folder + "/junk.pem", atomically: true, encoding: .utf8)
        let junk = try withConfig("tls_certificates = \(folder)/junk.pem\n")
        #expect(junk.stderr.contains("holds no certificate"), "\(junk.stderr)")
        let aFolder = try withConfig("tls_certificates = \(folder)\n")
        #expect(aFolder.stderr.contains("it is a folder"), "\(aFolder.stderr)")

        let folderConfig = try songbox.run(["cache", "stats"], environment: ["SONGBOX_CONFIG": folder])
        #expect(folderConfig.status != 0)
        #expect(folderConfig.stderr.contains("\(folder): the config file is a folder, not a file"), "\(folderConfig.stderr)")
        #expect(!folderConfig.stderr.contains("code"), "\(folderConfig.stderr)")
    }
}
