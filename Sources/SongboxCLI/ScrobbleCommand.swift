import ArgumentParser
import Foundation
import SongboxLibrary
import SongboxWiring

/// `songbox scrobble login lastfm` and `songbox scrobble status`: the bundled scrobbler
/// (plugins/scrobble.lua, docs/scrobbling.md) needs a Last.fm session once, and shows what waits.
struct ScrobbleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scrobble",
        abstract: tr("Send what you play to ListenBrainz and Last.fm: log in to Last.fm, see what waits (see docs/scrobbling.md)."),
        subcommands: [Login.self, Status.self],
        defaultSubcommand: Status.self)

    struct Login: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: tr("Get a Last.fm session for songbox, once: allow songbox at the address it prints."))

        enum Service: String, ExpressibleByArgument, CaseIterable { case lastfm }

        @OptionGroup var library: LibraryOptions
        @Argument(help: ArgumentHelp(tr("The service: lastfm."))) var service: Service
        @Option(help: ArgumentHelp(tr("Seconds to wait for you to allow songbox (default 600)."), valueName: "seconds"))
        var wait: Double = 600

        func run() throws {
            guard wait.isFinite, wait >= 0, wait <= 3600 else {
                throw SongboxError(.invalidArgument, "--wait is seconds from 0 to 3600")
            }
            let config = try Wiring.load().config
            let login = try LastFMLogin(config: config)
            let store = try LibraryOptions.openStore(library.db)
            let token = try login.token()
            print(tr("Open this address, and allow songbox to use your Last.fm account:"))
            print(login.authorizationURL(token: token))
            print(tr("Waiting for Last.fm to say yes (Ctrl-C to give up)..."))
            fflush(nil)
            let deadline = Date(timeIntervalSinceNow: wait)
            while true {
                if let session = try login.session(token: token) {
                    try Scrobbling(config: config, store: store).keepLastFMSession(key: session.key, user: session.user)
                    print(tr("Logged in to Last.fm as \(VisibleText.escaped(session.user)); the scrobble plugin sends your listens there."))
                    // A running daemon's plugin sends what waited at once.
                    _ = try? PluginMessage(plugin: "scrobble", unheard: "nothing is sent").send("flush", library)
                    return
                }
                guard Date() < deadline else {
                    throw SongboxError(.networkFailed, "Last.fm did not say yes within \(Int(wait)) s",
                                       hint: "run `songbox scrobble login lastfm` again, and allow songbox at the address it prints")
                }
                Thread.sleep(forTimeInterval: 2)
            }
        }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: tr("Show the listens waiting for each service."))

        @OptionGroup var library: LibraryOptions

        func run() throws {
            let store = try LibraryOptions.openStore(library.db)
            let scrobbling = Scrobbling(config: try Wiring.load().config, store: store)
            let configured = scrobbling.configured
            guard !configured.isEmpty else {
                print(tr("Scrobbling is off: set plugin.scrobble.listenbrainz_token, or plugin.scrobble.lastfm_key and lastfm_secret, in the config (see docs/scrobbling.md)."))
                return
            }
            for service in configured {
                let waiting = try scrobbling.waiting(service)
                let name = service == "lastfm" ? "Last.fm" : "ListenBrainz"
                print(tr(tr(count: waiting, "\(name): \(waiting) listen waiting", "\(name): \(waiting) listens waiting")))
                if service == "lastfm", try scrobbling.lastFMUser() == nil {
                    print(tr("  not logged in: run `songbox scrobble login lastfm`"))
                }
            }
            if !scrobbling.granted {
                print(tr("The config grants the plugin no hosts, so nothing is sent: add net.scrobble = api.listenbrainz.org, ws.audioscrobbler.com"))
            }
        }
    }
}
