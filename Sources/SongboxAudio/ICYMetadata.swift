import Foundation

/// Takes apart the body of a SHOUTcast/Icecast stream that was asked for its metadata
/// (`Icy-MetaData: 1`, answered with `icy-metaint: N`): after every N bytes of audio comes one
/// length byte L, then 16 × L bytes of metadata (`StreamTitle='Artist - Title';StreamUrl='';`,
/// padded with NULs). Bytes go in as the network gives them, in pieces of any size; the audio
/// comes out without the metadata, and each new title is told once. `HTTPAudioSource` reads
/// every station through it.
public struct ICYMetadata: Sendable {
    /// Audio bytes between two metadata blocks (the stream's `icy-metaint`).
    public let interval: Int
    private var audioLeft: Int
    private var metadataLeft: Int?
    private var metadata: [UInt8] = []
    /// The title the stream says now.
    public private(set) var title: String?

    /// Nil for an interval that is no length (0, negative, or beyond what any server sends).
    public init?(interval: Int) {
        guard interval > 0, interval <= 1 << 20 else { return nil }
        self.interval = interval
        audioLeft = interval
    }

    /// Splits `bytes`: the audio in them, and each title a metadata block in them changed to, in order.
    public mutating func take(_ bytes: some Collection<UInt8>) -> (audio: [UInt8], newTitles: [String]) {
        var audio: [UInt8] = []
        audio.reserveCapacity(bytes.count)
        var newTitles: [String] = []
        var index = bytes.startIndex
        while index != bytes.endIndex {
            if let left = metadataLeft {
                let count = min(left, bytes.distance(from: index, to: bytes.endIndex))
                let end = bytes.index(index, offsetBy: count)
                metadata += bytes[index..<end]
                index = end
                metadataLeft = left - count
                if metadataLeft == 0 {
                    if let said = Self.streamTitle(in: metadata), said != title {
                        title = said
                        newTitles.append(said)
                    }
                    metadata.removeAll(keepingCapacity: true)
                    metadataLeft = nil
                    audioLeft = interval
                }
            } else if audioLeft == 0 {
                // The length byte: 0 is no metadata this time.
                let length = Int(bytes[index]) * 16
                index = bytes.index(after: index)
                if length == 0 { audioLeft = interval } else { metadataLeft = length }
            } else {
                let count = min(audioLeft, bytes.distance(from: index, to: bytes.endIndex))
                let end = bytes.index(index, offsetBy: count)
                audio += bytes[index..<end]
                index = end
                audioLeft -= count
            }
        }
        return (audio, newTitles)
    }

    /// The `StreamTitle` of a metadata block: UTF-8 when it is that, else Latin-1 (as older
    /// servers send it); nil when the block has none.
    static func streamTitle(in block: [UInt8]) -> String? {
        let key = Array("StreamTitle='".utf8)
        guard let start = block.firstRange(of: key)?.upperBound else { return nil }
        // The value ends at the quote before `;`; a title may hold quotes of its own.
        let rest = block[start...]
        let end = rest.firstRange(of: Array("';".utf8))?.lowerBound
            ?? rest.lastIndex(of: UInt8(ascii: "'")) ?? rest.firstIndex(of: 0) ?? rest.endIndex
        let value = Array(rest[..<end].prefix { $0 != 0 })
        let text = String(validating: value, as: UTF8.self) ?? String(value.map { Character(Unicode.Scalar($0)) })
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty ? nil : trimmed
    }
}
