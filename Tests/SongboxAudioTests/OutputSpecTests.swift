import Testing
@testable import SongboxAudio

@Suite struct OutputSpecTests {
    @Test(arguments: [("null", OutputSpec.null), ("alsa", .alsa(device: "default")),
                      ("alsa:hw:1,0", .alsa(device: "hw:1,0")), ("wav:/tmp/a.wav", .wav(path: "/tmp/a.wav")),
                      ("fifo:/tmp/snapfifo", .fifo(path: "/tmp/snapfifo"))])
    func parsesEveryForm(text: String, spec: OutputSpec) throws {
        #expect(try OutputSpec(parsing: text) == spec)
        #expect(spec.description == (text == "alsa" ? "alsa:default" : text))
    }

    @Test(arguments: ["", "wav:", "fifo", "pulse:x", "null:x"])
    func rejectsWhatIsNotASpec(text: String) {
        #expect(throws: AudioOutputError.self) { try OutputSpec(parsing: text) }
    }
}
