import Foundation
import SongboxRemote
import SongboxScript
import Testing

/// `songbox.hash.md5` in every state; `songbox.http` only in one given a network grant
/// (lua/hash_http.lua). The requests themselves are tested end to end (ScrobbleTests).
@Suite struct HTTPGrantTests {
    @Test func md5IsEverywhereAndHTTPOnlyWhereGranted() throws {
        let plain = try TestRuntime()
        #expect(try plain.run("hash_http.lua", [.boolean(false)]) == [.string("ok")])

        let granted = try TestRuntime()
        let grant = NetworkGrant(hosts: [try #require(NetworkGrant.Host("example.org"))])
        try granted.runtime.grantNetwork(grant, client: GrantedHTTP.shared(trusting: nil))
        #expect(try granted.run("hash_http.lua", [.boolean(true)]) == [.string("ok")])
    }

    @Test func aGrantEntryIsAHostWithItsSchemeAndPort() throws {
        #expect(NetworkGrant.Host("api.listenbrainz.org")?.description == "api.listenbrainz.org")
        #expect(NetworkGrant.Host("API.ListenBrainz.org")?.host == "api.listenbrainz.org")
        #expect(NetworkGrant.Host("host:8443").map { ($0.scheme, $0.port) } ?? ("", 0) == ("https", 8443))
        #expect(NetworkGrant.Host("http://127.0.0.1:8080").map { ($0.scheme, $0.host, $0.port) } ?? ("", "", 0) == ("http", "127.0.0.1", 8080))
        #expect(NetworkGrant.Host("http://[::1]:9")?.host == "::1")
        for bad in ["", "a b", "https://h.org/path", "https://u:p@h.org", "ftp://h.org", "h.org?x=1"] {
            #expect(NetworkGrant.Host(bad) == nil, "\(bad)")
            #expect(NetworkGrant.Host.problem(bad) != nil, "\(bad)")
        }
    }

    @Test func md5OfLongInputsMatchesTheReference() {
        // Across the 55/56/64-byte padding edges, against python3's hashlib (the reference).
        for length in [55, 56, 63, 64, 65, 1000] {
            let text = String(repeating: "x", count: length)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = ["-c", "import hashlib,sys; print(hashlib.md5(b'x' * \(length)).hexdigest(), end='')"]
            let pipe = Pipe()
            process.standardOutput = pipe
            try? process.run()
            process.waitUntilExit()
            let reference = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(MD5.hex(Array(text.utf8)) == reference, "\(length) bytes")
        }
    }
}
