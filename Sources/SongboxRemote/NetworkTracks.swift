import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL
import SongboxAudio
import SongboxFiles
import SongboxMessages
import Synchronization

/// Opens the player's URLs (`http://`, `https://`): the player's `RemoteTrackOpener`. One HTTP
/// client for the process, TLS on and checked against the system's certificates (and, when
/// configured, one more file of them), redirects followed up to 5 (by `get`, which checks each
/// against the `FetchPolicy`), a connection given 10 seconds and a silent server 30.
public final class NetworkTracks: RemoteTrackOpener {
    let client: HTTPClient
    /// Where downloads for offline listening are: a track found there plays from its file.
    public let cache: OfflineCache?
    /// Where it may fetch from.
    let policy: FetchPolicy

    /// The waits before a dropped connection is made again (`HTTPAudioSource.retryWaits`).
    private let retryWaits: [Duration]

    /// `trusting`: a PEM file of more certificates to trust (a home server's own).
    public init(trusting certificates: String? = nil, cache: OfflineCache? = nil, policy: FetchPolicy = FetchPolicy(),
                retryWaits: [Duration] = HTTPAudioSource.retryWaits) {
        self.retryWaits = retryWaits
        self.cache = cache
        self.policy = policy
        var tls = TLSConfiguration.makeClientConfiguration()
        if let certificates { tls.additionalTrustRoots = [.file(certificates)] }
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls,
            // Followed by `get`, each one checked.
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(10), read: .seconds(30)))
        // A refusal is an answer: the client would ask again until the connection's 10 seconds
        // are up. Dropped connections are made again by the source, with its own waits.
        configuration.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    deinit {
        // The client must be shut down before it goes; its requests are already over.
        try? client.syncShutdown()
    }

    private static let made = Mutex<[String: NetworkTracks]>([:])

    /// The one for `certificates`, `cache` and `policy`, made on first use and kept for the
    /// process (each holds a client with its connections).
    public static func shared(trusting certificates: String?, cache: OfflineCache?, policy: FetchPolicy = FetchPolicy()) -> NetworkTracks {
        made.withLock { made in
            let key = (certificates ?? "") + "\u{0}" + (cache?.folder ?? "") + "\u{0}\(policy.allowLocalFromElsewhere)"
            if let known = made[key] { return known }
            let tracks = NetworkTracks(trusting: certificates, cache: cache, policy: policy)
            made[key] = tracks
            return tracks
        }
    }

    /// Why the PEM file at `path` cannot add certificates to trust (`tls_certificates`), or nil
    /// when it can: said when the config is read, not as a TLS error on every https:// URL.
    public static func certificateProblem(_ path: String) -> Message? {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return "there is no such file" }
        guard !isFolder.boolValue else { return "it is a folder, not a PEM file of certificates" }
        guard FileManager.default.isReadableFile(atPath: path) else { return "songbox may not read the file" }
        guard let certificates = try? NIOSSLCertificate.fromPEMFile(path), !certificates.isEmpty else {
            return "the file holds no certificate songbox can read (PEM expected)"
        }
        return nil
    }

    public func open(_ url: String, rate: Int?) throws(DecodeError) -> any TrackDecoder {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), ["http", "https"].contains(scheme),
              parsed.host?.isEmpty == false else {
            throw DecodeError(path: TrackLocation.shown(url), message: "not a URL songbox can play (http:// or https://)")
        }
        // Downloaded for offline listening: played from the file, network or not.
        if let file = cache?.completeFile(of: url) { return try AudioFile.decoder(path: file, rate: rate) }
        return try StreamDecoder(url: url, rate: rate ?? AudioFormat.streamRate,
                                 source: HTTPAudioSource(url: url, network: self, retryWaits: retryWaits))
    }
}

extension AudioFormat {
    /// The rate network tracks are decoded at when the output does not ask for one: fixed, so
    /// that the output is set up before the first byte arrives.
    public static let streamRate = 44_100
}
