import ArgumentParser
import Foundation
import SongboxAudio
import SongboxFiles
import SongboxServer

/// Where the client commands connect, as mpc reads it.
struct ServerOptions: ParsableArguments {
    @Option(help: ArgumentHelp(tr("The MPD server: a host or a socket path (default: $MPD_HOST, else the songbox daemon's socket)."), valueName: "host"))
    var host: String?

    @Option(help: ArgumentHelp(tr("Its TCP port (default: $MPD_PORT, else 6600)."), valueName: "port"))
    var port: Int?

    /// The library whose daemon is meant when no server is named.
    @OptionGroup var library: LibraryOptions

    func client() throws -> ControlClient { try ControlClient.reach(host: host, port: port, database: library.path) }
}

/// The remote-control commands: the songbox daemon's player (or an MPD server's) over MPD's
/// protocol, named as mpc names them. Each prints the state after it, as mpc does.
enum ClientCommands {
    static let all: [any ParsableCommand.Type] = [
        Status.self, Toggle.self, Pause.self, Stop.self, Next.self, Previous.self, Seek.self, Volume.self,
        Queue.self, Add.self, Clear.self, Shuffle.self, Sleep.self, Crossfade.self, Announce.self, Search.self,
    ]

    /// `Artist - Title`, `[playing] #2/3   0:01/0:05 (20%)`, the options line.
    static func printStatus(_ client: ControlClient) throws {
        let status = Dictionary(try client.send("status")) { first, _ in first }
        let song = Dictionary(try client.send("currentsong")) { first, _ in first }
        if let file = song["file"] {
            print(TerminalText.name(song["Artist"], song["Title"]) ?? TerminalText.line(file))
        }
        if let state = status["state"], state != "stop", let position = status["song"].flatMap(Int.init) {
            let elapsed = status["elapsed"].flatMap(Double.init) ?? 0, duration = status["duration"].flatMap(Double.init) ?? 0
            let percent = duration > 0 ? Int((elapsed / duration * 100).rounded(.down)) : 0
            print("[\(state == "play" ? "playing" : "paused")] #\(position + 1)/\(status["playlistlength"] ?? "0")   "
                  + "\(clock(elapsed))/\(clock(duration)) (\(percent)%)")
        }
        func flag(_ key: String) -> String {
            switch status[key] { case "1"?: "on "; case "oneshot"?: "once"; default: "off" }
        }
        print("volume:\(status["volume"].map { String(repeating: " ", count: max(0, 3 - $0.count)) + $0 + "%" } ?? "n/a")   "
              + "repeat: \(flag("repeat"))   random: \(flag("random"))   single: \(flag("single"))   consume: \(flag("consume"))")
        // As mpc shows it: what would not play, until `clearerror`.
        if let error = status["error"] { print("ERROR: " + TerminalText.line(error)) }
    }

    static func clock(_ seconds: Double) -> String {
        let whole = Int(seconds.isFinite ? max(0, seconds) : 0)
        return "\(whole / 60):" + String(format: "%02d", whole % 60)
    }

    /// Sends one command, then shows the state.
    static func run(_ options: ServerOptions, _ command: String, _ arguments: [String] = []) throws {
        let client = try options.client()
        _ = try client.send(command, arguments)
        try printStatus(client)
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: tr("Show what plays, where, and the options (the daemon, or an MPD server)."))
        @OptionGroup var server: ServerOptions
        func run() throws { try printStatus(try server.client()) }
    }

    struct Toggle: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: tr("Pause if playing, else play."))
        @OptionGroup var server: ServerOptions
        func run() throws {
            let client = try server.client()
            let state = try client.send("status").first { $0.0 == "state" }?.1
            _ = try client.send(state == "play" ? "pause" : "play")
            try printStatus(client)
        }
    }

    struct Pause: Button {
        static let configuration = CommandConfiguration(abstract: tr("Pause playback."))
        static let request: (String, [String]) = ("pause", ["1"])
        @OptionGroup var server: ServerOptions
    }

    struct Stop: Button {
        static let configuration = CommandConfiguration(abstract: tr("Stop playback (the place is kept)."))
        static let request: (String, [String]) = ("stop", [])
        @OptionGroup var server: ServerOptions
    }

    struct Next: Button {
        static let configuration = CommandConfiguration(abstract: tr("Skip to the next song."))
        static let request: (String, [String]) = ("next", [])
        @OptionGroup var server: ServerOptions
    }

    struct Previous: Button {
        static let configuration = CommandConfiguration(commandName: "prev", abstract: tr("Go back to the previous song."))
        static let request: (String, [String]) = ("previous", [])
        @OptionGroup var server: ServerOptions
    }

    struct Seek: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: tr("Seek in the playing song: SECONDS, M:SS, +N/-N seconds, or N%."))
        @OptionGroup var server: ServerOptions
        // `-10` is a position, not an option.
        @Argument(parsing: .allUnrecognized, help: ArgumentHelp(tr("Where to go."), valueName: "position")) var positions: [String]

        func validate() throws {
            guard positions.count == 1 else { throw ValidationError(tr("seek takes one position: SECONDS, M:SS, +N, -N or N%")) }
        }

        func run() throws {
            let position = positions[0]
            let client = try server.client()
            var target = position
            if position.hasSuffix("%") {
                guard let percent = Double(position.dropLast()), (0...100).contains(percent) else {
                    throw ValidationError(tr("a percentage is 0% to 100%, got \(position)"))
                }
                let duration = try client.send("status").first { $0.0 == "duration" }.flatMap { Double($0.1) } ?? 0
                target = String(format: "%.3f", duration * percent / 100)
            } else if position.contains(":") {
                let parts = position.split(separator: ":")
                guard parts.count == 2, let minutes = Int(parts[0]), let seconds = Int(parts[1]) else {
                    throw ValidationError(tr("a time is M:SS, got \(position)"))
                }
                target = String(minutes * 60 + seconds)
            } else if Double(position) == nil {
                throw ValidationError(tr("seek to SECONDS, M:SS, +N, -N or N%, got \(position)"))
            }
            _ = try client.send("seekcur", [target])
            try printStatus(client)
        }
    }

    struct Volume: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "vol", abstract: tr("Set the volume: N (0 to 100), or +N / -N."),
                                                        aliases: ["volume"])
        @OptionGroup var server: ServerOptions
        // `-10` is a change, not an option.
        @Argument(parsing: .allUnrecognized, help: ArgumentHelp(tr("The volume."), valueName: "volume")) var volumes: [String]

        func validate() throws {
            guard volumes.count == 1 else { throw ValidationError(tr("vol takes one value: N (0 to 100), +N or -N")) }
        }

        func run() throws {
            let volume = volumes[0]
            guard let value = Int(volume) else { throw ValidationError(tr("the volume is a number, or +N / -N, got \(volume)")) }
            let relative = volume.hasPrefix("+") || volume.hasPrefix("-")
            try ClientCommands.run(server, relative ? "volume" : "setvol", [String(value)])
        }
    }

    struct Queue: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: tr("List the queue; the playing song is marked with '>'."))
        @OptionGroup var server: ServerOptions
        func run() throws {
            let client = try server.client()
            let current = try client.send("status").first { $0.0 == "song" }?.1
            var song: [String: String] = [:]
            func show() {
                guard let position = song["Pos"].flatMap(Int.init) else { return }
                let name = TerminalText.name(song["Artist"], song["Title"]) ?? TerminalText.line(song["file"] ?? "")
                let length = song["duration"].flatMap(Double.init).map { " (\(clock($0)))" } ?? ""
                print("\(song["Pos"] == current ? ">" : " ")\(position + 1). \(name)\(length)")
            }
            for (key, value) in try client.send("playlistinfo") {
                if key == "file" { show(); song = [:] }
                song[key] = value
            }
            show()
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: tr("Add songs or folders (as `songbox queue` and MPD name them) to the queue."))
        @OptionGroup var server: ServerOptions
        @Argument(help: ArgumentHelp(tr("A song or folder inside the music folder."), valueName: "uri")) var uris: [String]
        func run() throws {
            let client = try server.client()
            for uri in uris { _ = try client.send("add", [uri]) }
        }
    }

    struct Clear: Button {
        static let configuration = CommandConfiguration(abstract: tr("Empty the queue."))
        static let request: (String, [String]) = ("clear", [])
        @OptionGroup var server: ServerOptions
    }

    struct Shuffle: Button {
        static let configuration = CommandConfiguration(abstract: tr("Shuffle the queue."))
        static let request: (String, [String]) = ("shuffle", [])
        @OptionGroup var server: ServerOptions
    }

    struct Sleep: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: tr("Stop after MINUTES, at the end of the song (track) or of the queue, or off (songbox's daemon only)."))
        @OptionGroup var server: ServerOptions
        @Argument(help: ArgumentHelp(tr("Minutes, track, queue or off; without it, what the timer is."), valueName: "when")) var when: String?
        func run() throws {
            guard let when else {
                let fields = Dictionary(try server.client().send("sleep", []), uniquingKeysWith: { first, _ in first })
                let left = fields["sleepleft"].flatMap(Double.init).map { Int(($0 / 60).rounded(.up)) }
                switch fields["sleep"] {
                case "off"?, nil: print(tr("The sleep timer is off."))
                case "track"?: print(tr("Playback stops at the end of the track."))
                case "queue"?: print(tr("Playback stops at the end of the queue."))
                case let minutes?:
                    print(left.map { tr("Playback stops in \($0) minutes.") } ?? tr("Playback stops in \(minutes) minutes."))
                }
                return
            }
            _ = try server.client().send("sleep", [when])
            print(tr(when == "off" ? "The sleep timer is off."
                     : Double(when) != nil ? "Playback stops in \(when) minutes." : when == "queue" ? "Playback stops at the end of the queue."
                     : "Playback stops at the end of the track."))
        }
    }

    struct Crossfade: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: tr("Show the crossfade between songs, or set it: N seconds (0 to 30; 0: off)."))
        @OptionGroup var server: ServerOptions
        @Argument(help: ArgumentHelp(tr("Seconds."), valueName: "seconds")) var seconds: String?

        func validate() throws {
            guard let seconds else { return }
            guard let value = Double(seconds), value == value.rounded(), CrossfadeSettings.range.contains(value) else {
                throw ValidationError(tr("the crossfade is whole seconds from 0 to 30, got \(seconds)"))
            }
        }

        func run() throws {
            let client = try server.client()
            if let seconds { _ = try client.send("crossfade", [seconds]) }
            // As mpc prints it; MPD leaves `xfade` out when it is off.
            print("crossfade: " + (try client.send("status").first { $0.0 == "xfade" }?.1 ?? "0"))
        }
    }

    struct Announce: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: tr("Play a file or URL, or say a text, over the music, which goes down meanwhile (songbox's daemon only)."))
        @OptionGroup var server: ServerOptions
        @Argument(help: ArgumentHelp(tr("A sound file or a URL."), valueName: "source")) var source: String?
        @Option(name: .long, help: ArgumentHelp(tr("Say this text instead (needs espeak-ng; a Hebrew voice for Hebrew text)."), valueName: "text"))
        var say: String?
        @Option(name: .long, parsing: .unconditional, help: ArgumentHelp(tr("Decibels the music goes down by (-60 to 0)."), valueName: "dB"))
        var duck = "-15"
        @Flag(name: .long, help: ArgumentHelp(tr("The bundled chime first."))) var chime = false

        func validate() throws {
            guard let value = Double(duck), PlayerEngine.Announcement.duckRange.contains(value) else {
                throw ValidationError(tr("the duck is decibels from -60 to 0, got \(duck)"))
            }
            guard (source == nil) != (say == nil) else { throw ValidationError(tr("announce takes a file or URL, or --say TEXT: one of them")) }
            if let say, let problem = Speech.problem(with: say) { throw ValidationError(tr(problem)) }
        }

        func run() throws {
            let flag = chime ? "1" : "0"
            if let say {
                _ = try server.client().send("say", [say, duck, flag])
            } else if let source {
                // The daemon opens a file from where it runs: the path made absolute here.
                let file = source.hasPrefix("/") || TrackLocation.isURL(source)
                    ? source : FileManager.default.currentDirectoryPath + "/" + source
                _ = try server.client().send("announce", [file, duck, flag])
            }
            print(tr("Announced over the music."))
        }
    }

    struct Search: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: tr("Search the server's database: TAG VALUE pairs (as mpc: `search artist grey title river`), or words anywhere."))
        @OptionGroup var server: ServerOptions
        @Argument(help: ArgumentHelp(tr("TAG VALUE pairs, or words."), valueName: "terms")) var terms: [String]
        func run() throws {
            let tags: Set<String> = ["any", "artist", "album", "albumartist", "title", "genre", "date", "track", "file", "comment"]
            let pairs = terms.count % 2 == 0 && stride(from: 0, to: terms.count, by: 2).allSatisfy { tags.contains(terms[$0].lowercased()) }
            let request = pairs ? terms : ["any", terms.joined(separator: " ")]
            let files = try server.client().send("search", request).filter { $0.0 == "file" }.map(\.1)
            for file in files { print(file) }
            if files.isEmpty { throw ExitCode(1) }
        }
    }
}

/// A remote's button: one request, then the state.
protocol Button: ParsableCommand {
    static var request: (String, [String]) { get }
    var server: ServerOptions { get }
}

extension Button {
    func run() throws { try ClientCommands.run(server, Self.request.0, Self.request.1) }
}

extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}
