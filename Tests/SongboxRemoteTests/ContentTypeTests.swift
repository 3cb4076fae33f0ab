import Testing
@testable import SongboxRemote

@Suite struct ContentTypeTests {
    @Test func audioAndUnlabelledBytesMayBeAudioAPageOrAnImageIsNot() {
        for type in ["audio/mpeg", "audio/mp3", "application/octet-stream", "audio/mpeg; charset=binary", "audio/aacp"] {
            #expect(HTTPAudioSource.mayBeAudio(type), "\(type)")
        }
        for type in ["text/html", "text/html; charset=utf-8", "application/json", "image/png", "application/xhtml+xml", "text/plain"] {
            #expect(!HTTPAudioSource.mayBeAudio(type), "\(type)")
        }
    }
}
