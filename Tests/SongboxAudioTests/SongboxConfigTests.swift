import Foundation
import SongboxLibrary
import SongboxTestSupport
import Testing
@testable import SongboxAudio
@testable import SongboxPlayback
@testable import SongboxWiring

@Suite struct SongboxConfigTests {
    @Test func everyKeyCommentsAndBlankLines() throws {
        let config = try SongboxConfig.parse("""
            # the player
            output = fifo:/tmp/snapfifo

            play_fraction = 0.75  # three quarters
            play_seconds = 120
            skip_after = 5
            fade = 0.25
            sleep_fade = 30
            plugin.top10.limit = 20
            plugin.top10.name = "Top 20"
            plugin.alarm.time = 07:00
            """, path: "config")
        #expect(config.pluginOptions == ["top10": ["limit": "20", "name": "\"Top 20\""], "alarm": ["time": "07:00"]])
        #expect(config.output == "fifo:/tmp/snapfifo")
        #expect(config.settings.countRules == PlayCountRules(playFraction: 0.75, playSeconds: 120, skipAfterSeconds: 5))
        #expect(config.settings.transitionFade == 0.25 && config.settings.sleepFade == 30)
    }

    @Test func theCrossfadeSettingsAndTheirBounds() throws {
        let config = try SongboxConfig.parse("""
            crossfade = 6
            crossfade_manual = 2
            crossfade_min_track = 45
            crossfade_curve = linear
            """, path: "config")
        #expect(config.settings.crossfade == CrossfadeSettings(seconds: 6, manualSeconds: 2, minTrackSeconds: 45, curve: .linear))
        let defaults = try SongboxConfig.parse("crossfade = 4", path: "config").settings.crossfade
        #expect(defaults.length(manual: true) == 4 && defaults.minTrackSeconds == 20 && defaults.curve == .equalPower)
        for wrong in ["crossfade = 31", "crossfade = nan", "crossfade_manual = -1", "crossfade_min_track = 1e9", "crossfade_curve = log"] {
            #expect(throws: SongboxError.self, "\(wrong)") { try SongboxConfig.parse(wrong, path: "config") }
        }
    }

    @Test func noFileMeansTheDefaults() throws {
        // At the usual place only: a file named elsewhere must be there (issue 25).
        let home = ["HOME": "/nonexistent", "XDG_CONFIG_HOME": "/nonexistent/xdg"]
        #expect(try SongboxConfig.load(from: "/nonexistent/xdg/songbox/config", environment: home) == SongboxConfig())
        #expect(throws: SongboxError.self) { try SongboxConfig.load(from: "/nonexistent/songbox/config", environment: home) }
        #expect(SongboxConfig.defaultPath(environment: ["HOME": "/home/pi"]) == "/home/pi/.config/songbox/config")
        #expect(SongboxConfig.defaultPath(environment: ["HOME": "/home/pi", "XDG_CONFIG_HOME": "/etc/xdg"]) == "/etc/xdg/songbox/config")
        #expect(SongboxConfig.defaultPath(environment: ["SONGBOX_CONFIG": "/srv/songbox.conf"]) == "/srv/songbox.conf")
        // `--config /dev/null` is "no config" here too, as for other programs.
        #expect(try SongboxConfig.load(from: "/dev/null") == SongboxConfig())
    }

    @Test func aFileThatIsNoConfigIsAClearError() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let binary = folder + "/song.mp3", huge = folder + "/huge"
        try Data([0x49, 0x44, 0x33, 0xFF, 0xFE, 0x00]).write(to: URL(fileURLWithPath: binary))
        try Data(repeating: 0x23, count: SongboxConfig.maximumSize + 1).write(to: URL(fileURLWithPath: huge))
        for (path, message) in [(binary, "not UTF-8 text"), (huge, "larger than"), (folder, "the config file is a folder")] {
            do throws(SongboxError) {
                _ = try SongboxConfig.load(from: path)
                Issue.record("accepted \(path)")
            } catch {
                #expect(error.message.contains(message), "\(error.message)")
                #expect(error.location == path)
            }
        }
    }

    @Test(arguments: [
        ("fade 0.5", "config:1", "expected key = value"),
        ("\nloudness = 11", "config:2", "unknown setting 'loudness'"),
        ("outptu = null", "config:1", "unknown setting 'outptu' (did you mean 'output'?)"),
        ("skip_after = soon", "config:1", "skip_after is seconds from 0 to 86400, got 'soon'"),
        ("play_fraction = 2", "config:1", "play_fraction is a share from 0 to 1"),
        ("fade = -1", "config:1", "fade is seconds from 0 to 10, got '-1'"),
        ("output = pulse", "config:1", "unknown output"),
        ("plugin.top10 = 3", "config:1", "a plugin option is plugin.NAME.KEY"),
    ])
    func aBadLineNamesTheFileAndLine(text: String, place: String, message: String) {
        do {
            _ = try SongboxConfig.parse(text, path: "config")
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.location == place)
            #expect(error.message.contains(message), "\(error.message)")
        }
    }
}
