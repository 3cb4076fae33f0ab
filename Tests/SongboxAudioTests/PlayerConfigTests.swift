import SongboxLibrary
import Testing
@testable import SongboxAudio
@testable import SongboxPlayback

@Suite struct PlayerConfigTests {
    @Test func everyKeyCommentsAndBlankLines() throws {
        let config = try PlayerConfig.parse("""
            # the player
            output = fifo:/tmp/snapfifo

            play_fraction = 0.75  # three quarters
            play_seconds = 120
            skip_after = 5
            fade = 0.25
            sleep_fade = 30
            """, path: "config")
        #expect(config.output == "fifo:/tmp/snapfifo")
        #expect(config.settings.countRules == PlayCountRules(playFraction: 0.75, playSeconds: 120, skipAfterSeconds: 5))
        #expect(config.settings.transitionFade == 0.25 && config.settings.sleepFade == 30)
    }

    @Test func noFileMeansTheDefaults() throws {
        #expect(try PlayerConfig.load(from: "/nonexistent/songbox/config") == PlayerConfig())
        #expect(PlayerConfig.defaultPath(environment: ["HOME": "/home/pi"]) == "/home/pi/.config/songbox/config")
        #expect(PlayerConfig.defaultPath(environment: ["HOME": "/home/pi", "XDG_CONFIG_HOME": "/etc/xdg"]) == "/etc/xdg/songbox/config")
        #expect(PlayerConfig.defaultPath(environment: ["SONGBOX_CONFIG": "/srv/songbox.conf"]) == "/srv/songbox.conf")
    }

    @Test(arguments: [
        ("fade 0.5", "config:1", "expected key = value"),
        ("\nloudness = 11", "config:2", "unknown setting 'loudness'"),
        ("skip_after = soon", "config:1", "skip_after must be a number"),
        ("play_fraction = 2", "config:1", "play_fraction is a share from 0 to 1"),
        ("fade = -1", "config:1", "must be a number of 0 or more"),
        ("output = pulse", "config:1", "unknown output"),
    ])
    func aBadLineNamesTheFileAndLine(text: String, place: String, message: String) {
        do {
            _ = try PlayerConfig.parse(text, path: "config")
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.location == place)
            #expect(error.message.contains(message), "\(error.message)")
        }
    }
}
