// swift-tools-version:6.1
import PackageDescription

/// Settings shared by every songbox target.
let strictSettings: [SwiftSetting] = [
    // Swift 6 language mode: complete strict concurrency checking.
    .swiftLanguageMode(.v6),
    // `any` spelled out for existentials, as Swift 7 will require.
    .enableUpcomingFeature("ExistentialAny"),
    // Warnings fail the build in CI and `make test` (`-Xswiftc -warnings-as-errors`), not
    // here: a newer compiler's new warning must not stop a user's build.
]

let package = Package(
    name: "songbox",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "songbox", targets: ["songbox"]),
        .library(name: "SongboxLibrary", targets: ["SongboxLibrary"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // Remote tracks and radio: HTTP with TLS (BoringSSL inside: no system TLS library to match).
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // Already built for async-http-client's certificates: its `Insecure.MD5` signs Last.fm's calls.
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        // The web app and its JSON API (`http = ...`): an HTTP/1.1 server over the same SwiftNIO.
        // Its default traits (swift-configuration, full Foundation) are not needed.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        // Its request and response types (HTTP field names), which Hummingbird uses.
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        // C libraries, found with pkg-config. Each exposes a shim header only.
        .systemLibrary(name: "CMPG123", pkgConfig: "libmpg123", providers: [.apt(["libmpg123-dev"])]),
        .systemLibrary(name: "CLua", pkgConfig: "lua5.4", providers: [.apt(["liblua5.4-dev"])]),
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        // The formats beyond MP3, with the libraries MPD's Debian build uses (docs/architecture.md).
        .systemLibrary(name: "CFLAC", pkgConfig: "flac", providers: [.apt(["libflac-dev"])]),
        .systemLibrary(name: "CVorbisFile", pkgConfig: "vorbisfile", providers: [.apt(["libvorbis-dev"])]),
        .systemLibrary(name: "COpusFile", pkgConfig: "opusfile", providers: [.apt(["libopusfile-dev"])]),
        // libogg, libvorbis and libopus themselves: streams decoded as their bytes arrive.
        .systemLibrary(name: "COggCodecs", pkgConfig: "vorbis", providers: [.apt(["libvorbis-dev", "libopus-dev", "libogg-dev"])]),
        // AAC in MP4 (ALAC is decoded in Swift). Debian's libfaad-dev has no pkg-config file.
        .systemLibrary(name: "CFAAD", providers: [.apt(["libfaad-dev"])]),
        // glibc's gettext (<libintl.h>), which Swift's Glibc module does not export. Nothing to link.
        .systemLibrary(name: "CIntl"),

        // What a person reads: `Message` (English for programs, the catalog's language for people)
        // and `Catalog` (gettext catalogs compiled from po/*.po; see docs/translations.md).
        .target(name: "SongboxMessages", dependencies: ["CIntl"]),

        // File names as bytes: paths that are not UTF-8 kept exactly, opened and shown.
        .target(name: "SongboxFiles"),
        .target(
            name: "SongboxLibrary",
            dependencies: [
                "CMPG123",
                "SongboxFiles",
                "SongboxMessages",
                // Stores its features and sums album loudness from their histograms.
                "SongboxAnalysis",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API, for the statement runner's fast paths (the raw row reader, the one-shot read).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Audio features (tempo, key, loudness, moods) from decoded PCM: pure Swift, its own FFT.
        .target(name: "SongboxAnalysis"),
        // Decoding, outputs and the player engine. Knows nothing of SQLite or Lua.
        .target(name: "SongboxAudio", dependencies: ["CMPG123", "CFLAC", "CVorbisFile", "COpusFile", "COggCodecs", "CFAAD", "CALSA",
                                                     "SongboxFiles", "SongboxMessages"]),
        // Tracks from the network: HTTP(S) files and Icecast/SHOUTcast streams read ahead into a
        // bounded buffer on their own task, decoded as they arrive (`RemoteTracks` opens them for
        // the engine), and the offline cache's files.
        .target(
            name: "SongboxRemote",
            dependencies: [
                "SongboxAudio",
                "SongboxFiles",
                "SongboxMessages",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The player wired to the library: history, saved state, tracks to play.
        .target(name: "SongboxPlayback", dependencies: ["SongboxAudio", "SongboxLibrary"]),
        // The C half of the Lua bridge: allocator, hooks, sandbox wrappers, trampolines.
        .target(
            name: "CLuaShim",
            // The C code is held to the same standard: its files turn -Wall and -Wextra into errors
            // with a pragma (no unsafe flags).
            dependencies: ["CLua"]
        ),
        // The Lua host. It sees the player through `ScriptPlayer`, which the wiring hands it, and
        // its events as the bus carries them (SongboxPlayback's `PlaybackEvent`, one type from
        // the engine to every subscriber); how playback is recorded stays the wiring's.
        .target(
            name: "SongboxScript",
            dependencies: [
                "CLuaShim",
                "SongboxLibrary",
                "SongboxAudio",
                "SongboxPlayback",
                "SongboxMessages",
                // `songbox.http` for a plugin with a network grant: the one fetch path, and MD5.
                "SongboxRemote",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // MPD's protocol: the server (SwiftNIO: Unix sockets and TCP, command lists, idle,
        // messages) and the command table over the library and the player.
        .target(
            name: "SongboxServer",
            dependencies: [
                "SongboxMessages",
                "SongboxFiles",
                "SongboxLibrary",
                "SongboxAudio",
                "SongboxPlayback",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The web app and its JSON API: one more adapter over the command table and the event
        // bus (Hummingbird), and the page's files from web/, compiled in (`BundleFiles`).
        .target(
            name: "SongboxWeb",
            dependencies: [
                "SongboxMessages",
                "SongboxServer",
                "SongboxAudio",
                "SongboxLibrary",
                "SongboxPlayback",
                // The events as plugins get them (`BusEvent`), written as JSON.
                "SongboxScript",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                // HTTP/1's parser errors, left to Hummingbird's channel to answer.
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            plugins: ["BundleFiles"]
        ),
        // The wiring: builds the library, the player and the plugin host from the config (for
        // `songbox daemon`, `play` and `run` alike), the daemon's services, and the local
        // control socket its clients (the CLI) speak to. Nothing imports it but the CLI.
        .target(
            name: "SongboxWiring",
            dependencies: [
                "SongboxAnalysis",
                "SongboxServer",
                "SongboxLibrary",
                "SongboxScript",
                "SongboxAudio",
                "SongboxPlayback",
                "SongboxRemote",
                "SongboxWeb",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            // The bundled plugins and the alarm tone, compiled in: a copied binary is complete.
            plugins: ["BundleFiles"]
        ),
        // plugins/ (for SongboxWiring) and web/ (for SongboxWeb) into Swift source, at build time.
        .executableTarget(name: "bundle-files"),
        .plugin(name: "BundleFiles", capability: .buildTool(), dependencies: ["bundle-files"]),
        .target(
            name: "SongboxCLI",
            dependencies: [
                "SongboxWiring",
                "SongboxServer",
                "SongboxRemote",
                "SongboxFiles",
                "SongboxMessages",
                "SongboxLibrary",
                "SongboxScript",
                "SongboxAudio",
                "SongboxPlayback",
                "SongboxAnalysis",
                "CLua",
                "CALSA",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(name: "songbox", dependencies: ["SongboxCLI"]),
        // The decoders alone, file to PCM, for bench/decoders-run (not installed).
        .executableTarget(name: "songbox-decode", dependencies: ["SongboxAudio"]),
        .target(name: "SongboxTestSupport", dependencies: ["SongboxLibrary", "SongboxMessages"],
                // The tests' Icecast source client (python3, from Debian).
                exclude: ["icecast_source.py", "shoutcast_v1.py", "hostile_http.py", "loopback.py", "scrobble_server.py"]),

        .testTarget(
            name: "SongboxLibraryTests",
            dependencies: ["SongboxLibrary", "SongboxFiles", "SongboxAudio", "SongboxTestSupport"]
        ),
        .testTarget(name: "SongboxAnalysisTests", dependencies: ["SongboxAnalysis"]),
        .testTarget(name: "SongboxRemoteTests", dependencies: ["SongboxRemote", "SongboxAudio", "SongboxFiles", "SongboxTestSupport"]),
        .testTarget(
            name: "SongboxAudioTests",
            dependencies: ["SongboxAudio", "SongboxPlayback", "SongboxLibrary", "SongboxScript", "SongboxWiring", "SongboxTestSupport",
                           .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(
            name: "SongboxScriptTests",
            dependencies: ["SongboxScript", "SongboxLibrary", "SongboxAudio", "SongboxPlayback", "SongboxWiring", "SongboxRemote", "SongboxTestSupport"],
            exclude: ["lua", "sandbox-globals.txt"]
        ),
        .testTarget(
            name: "SongboxCLITests",
            dependencies: ["SongboxCLI", "SongboxWiring", "SongboxServer", "SongboxWeb", "SongboxRemote", "SongboxFiles", "SongboxMessages", "SongboxLibrary", "SongboxAudio", "SongboxTestSupport"],
            exclude: ["mpd", "web"]
        ),
    ]
)

// Swift settings for every Swift target (CLuaShim is C: its flags are above).
for target in package.targets where target.type != .system && target.type != .plugin && target.name != "CLuaShim" {
    target.swiftSettings = (target.swiftSettings ?? []) + strictSettings
}
