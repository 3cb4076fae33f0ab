import Foundation
import SongboxFiles
import Testing
@testable import SongboxRemote

/// Where songbox fetches from (issue 31, hole 1): addresses told by the system's resolver, no
/// request made.
struct FetchPolicyTests {
    func refusal(_ url: String, origin: String?, policy: FetchPolicy = FetchPolicy()) -> String? {
        do throws(HTTPAudioSource.Stop) {
            try policy.check(URL(string: url)!, origin: origin.flatMap(URL.init(string:)))
            return nil
        } catch {
            if case .failed(let message) = error { return message }
            return "\(error)"
        }
    }

    @Test func aStationElsewhereCannotLeadToThisMachine() {
        // 192.0.2.1 (TEST-NET-1, never routed) stands for a station on the internet.
        let station = "http://192.0.2.1/radio.pls"
        for local in ["http://127.0.0.1:8080/", "http://[::1]:8080/", "http://169.254.1.1/", "http://[fe80::1]/", "http://0.0.0.0:6600/", "http://localhost/x"] {
            let said = refusal(local, origin: station)
            #expect(said?.contains("http://192.0.2.1/radio.pls leads to a local address") == true, "\(local): \(said ?? "allowed")")
            #expect(said?.contains("allow_local_streams = yes") == true)
            #expect(refusal(local, origin: station, policy: FetchPolicy(allowLocalFromElsewhere: true)) == nil)
        }
        // Named by the user, or by a station on this machine: allowed.
        #expect(refusal("http://127.0.0.1:8080/", origin: nil) == nil)
        #expect(refusal("http://127.0.0.1:8080/", origin: "http://127.0.0.1:9000/list.m3u") == nil)
        // Elsewhere to elsewhere: allowed.
        #expect(refusal("http://192.0.2.2/stream", origin: station) == nil)
    }

    @Test func songboxsOwnPortsAreNeverFetchedFrom() {
        FetchPolicy.listening(on: [46_600])
        for own in ["http://127.0.0.1:46600/", "http://localhost:46600/%0Asetvol%207", "http://[::1]:46600/", "http://0.0.0.0:46600/"] {
            #expect(refusal(own, origin: nil)?.contains("songbox's own port") == true, "\(own)")
            #expect(refusal(own, origin: nil, policy: FetchPolicy(allowLocalFromElsewhere: true))?.contains("songbox's own port") == true)
        }
        // The same port on another machine is another server.
        #expect(refusal("http://192.0.2.1:46600/", origin: nil) == nil)
    }

    @Test func aURLsPasswordIsTakenOutOfWhatIsShown() {
        #expect(TrackLocation.shown("http://user:pa%40ss@host:8000/a@b?c=@") == "http://host:8000/a@b?c=@")
        #expect(TrackLocation.shown("https://host/x") == "https://host/x")
        #expect(TrackLocation.shown("/music/a@b.mp3") == "/music/a@b.mp3")
        #expect(TrackLocation.credentials("http://user:pa%40ss@host/")?.user == "user")
        #expect(TrackLocation.credentials("http://user:pa%40ss@host/")?.password == "pa@ss")
        #expect(TrackLocation.credentials("http://host/a@b") == nil)
        #expect(NetworkTracks.basicAuthorization("http://songbox:s3cret@h/") == "Basic c29uZ2JveDpzM2NyZXQ=")
    }
}
