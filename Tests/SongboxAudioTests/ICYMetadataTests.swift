import Testing
@testable import SongboxAudio

/// The body of an Icecast/SHOUTcast stream with metadata: audio bytes out without the blocks,
/// each new title told once, whatever sizes the network gives the bytes in.
@Suite struct ICYMetadataTests {
    /// A body of `blocks` rounds of `interval` audio bytes (counting up) and a metadata block.
    static func body(interval: Int, titles: [String?]) -> (bytes: [UInt8], audio: [UInt8]) {
        var bytes: [UInt8] = [], audio: [UInt8] = []
        for (round, title) in titles.enumerated() {
            let chunk = (0..<interval).map { UInt8(truncatingIfNeeded: round * interval + $0) }
            bytes += chunk
            audio += chunk
            guard let title else { bytes.append(0); continue }
            var block = Array("StreamTitle='\(title)';StreamUrl='';".utf8)
            block += [UInt8](repeating: 0, count: (16 - block.count % 16) % 16)
            bytes.append(UInt8(block.count / 16))
            bytes += block
        }
        return (bytes, audio)
    }

    @Test(arguments: [1, 7, 100, 16_000, 1 << 20])
    func audioAndTitlesComeApartInPiecesOfAnySize(piece: Int) throws {
        let titles: [String?] = ["Radio One - Morning", nil, "Radio One - Morning", "נגה שחר - אהבה ראשונה", "It's 'quoted'", nil]
        let (bytes, expectedAudio) = Self.body(interval: 16_000, titles: titles)
        var reader = try #require(ICYMetadata(interval: 16_000))
        var audio: [UInt8] = [], told: [String] = []
        for start in stride(from: 0, to: bytes.count, by: piece) {
            let (some, titles) = reader.take(bytes[start..<min(start + piece, bytes.count)])
            audio += some
            told += titles
        }
        #expect(audio == expectedAudio)
        #expect(told == ["Radio One - Morning", "נגה שחר - אהבה ראשונה", "It's 'quoted'"], "a repeated title is not told again")
        #expect(reader.title == "It's 'quoted'")
    }

    @Test func latin1TitlesAndNonsenseIntervals() throws {
        var block = Array("StreamTitle='Caf".utf8) + [0xE9] + Array("';".utf8)
        block += [UInt8](repeating: 0, count: (16 - block.count % 16) % 16)
        var reader = try #require(ICYMetadata(interval: 4))
        let (audio, titles) = reader.take([1, 2, 3, 4, UInt8(block.count / 16)] + block + [5, 6])
        #expect(audio == [1, 2, 3, 4, 5, 6] && titles == ["Café"])
        #expect(ICYMetadata(interval: 0) == nil && ICYMetadata(interval: -16) == nil && ICYMetadata(interval: Int.max) == nil)
        #expect(ICYMetadata.streamTitle(in: Array("StreamUrl='x';".utf8)) == nil)
        #expect(ICYMetadata.streamTitle(in: Array("StreamTitle='';".utf8)) == nil)
    }
}
