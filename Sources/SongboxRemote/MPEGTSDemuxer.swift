/// Takes the audio out of an MPEG transport stream (the pieces of most HLS stations): 188-byte
/// packets, whose program tables (PAT, PMT) say which packet id carries which stream, and whose
/// audio packets carry PES packets holding ADTS (AAC) or MPEG audio frames. What comes out is
/// the audio's own bytes, as a station would send them over HTTP, for the fed decoders; video
/// and timed metadata are passed over. Bytes may come in pieces of any size.
struct MPEGTSDemuxer {
    static let packetSize = 188
    static let sync: UInt8 = 0x47

    enum Audio: Equatable {
        case adts
        case mpeg
    }

    /// The audio stream's kind, once the program table said.
    private(set) var audio: Audio?
    private var programTable: Int?
    private var audioPID: Int?
    /// Bytes of a packet cut by the end of a piece.
    private var partial: [UInt8] = []
    /// Whether the audio's PES packet in hand had its header taken off.
    private var inPES = false

    /// The audio's bytes in `bytes` (the continuation of what came before).
    mutating func take(_ bytes: [UInt8]) throws(HTTPAudioSource.Stop) -> [UInt8] {
        var input = partial + bytes
        partial = []
        var output: [UInt8] = []
        var offset = 0
        while input.count - offset >= Self.packetSize {
            guard input[offset] == Self.sync else {
                // Lost step (a cut or garbage): on to the next byte that starts two packets.
                offset += 1
                while offset < input.count, input[offset] != Self.sync
                    || (offset + Self.packetSize < input.count && input[offset + Self.packetSize] != Self.sync) {
                    offset += 1
                }
                continue
            }
            try packet(input[offset..<offset + Self.packetSize], into: &output)
            offset += Self.packetSize
        }
        input.removeFirst(offset)
        partial = input
        return output
    }

    /// A new stream follows (an HLS discontinuity): its tables are read again.
    mutating func reset() {
        self = MPEGTSDemuxer()
    }

    private mutating func packet(_ packet: ArraySlice<UInt8>, into output: inout [UInt8]) throws(HTTPAudioSource.Stop) {
        let start = packet.startIndex
        let unitStart = packet[start + 1] & 0x40 != 0
        let pid = Int(packet[start + 1] & 0x1F) << 8 | Int(packet[start + 2])
        let control = (packet[start + 3] >> 4) & 0x3
        guard control & 0x1 != 0 else { return }  // no payload
        var payload = start + 4
        if control & 0x2 != 0 { payload += 1 + Int(packet[start + 4]) }
        guard payload < packet.endIndex else { return }
        let body = packet[payload...]
        if pid == 0, unitStart {
            programTable = Self.section(body).flatMap(Self.firstProgramPID)
        } else if pid == programTable, unitStart, audioPID == nil, let section = Self.section(body) {
            try readProgram(section)
        } else if pid == audioPID {
            if unitStart {
                guard let data = Self.pesPayload(body) else { inPES = false; return }
                inPES = true
                output += data
            } else if inPES {
                output += body
            }
        }
    }

    /// A PSI section starting in a packet's payload (after its pointer field), as far as the
    /// packet holds it.
    private static func section(_ body: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        guard let pointer = body.first else { return nil }
        let start = body.startIndex + 1 + Int(pointer)
        guard start + 3 <= body.endIndex else { return nil }
        let length = Int(body[start + 1] & 0x0F) << 8 | Int(body[start + 2])
        return body[start..<min(body.endIndex, start + 3 + length)]
    }

    /// The PMT's packet id of the PAT's first program.
    private static func firstProgramPID(_ section: ArraySlice<UInt8>) -> Int? {
        guard section.first == 0x00 else { return nil }
        var entry = section.startIndex + 8
        while entry + 4 <= section.endIndex - 4 {
            let program = Int(section[entry]) << 8 | Int(section[entry + 1])
            if program != 0 { return Int(section[entry + 2] & 0x1F) << 8 | Int(section[entry + 3]) }
            entry += 4
        }
        return nil
    }

    /// The PMT: the first audio stream songbox plays is the one taken out.
    private mutating func readProgram(_ section: ArraySlice<UInt8>) throws(HTTPAudioSource.Stop) {
        guard section.first == 0x02, section.count >= 12 else { return }
        let start = section.startIndex
        let infoLength = Int(section[start + 10] & 0x0F) << 8 | Int(section[start + 11])
        var entry = start + 12 + infoLength
        var unplayable: [String] = []
        while entry + 5 <= section.endIndex - 4 {
            let type = section[entry]
            let pid = Int(section[entry + 1] & 0x1F) << 8 | Int(section[entry + 2])
            let infoLength = Int(section[entry + 3] & 0x0F) << 8 | Int(section[entry + 4])
            switch type {
            case 0x0F: (audio, audioPID) = (.adts, pid)
            case 0x03, 0x04: (audio, audioPID) = (.mpeg, pid)
            case 0x11: unplayable.append("AAC in LATM")
            case 0x81, 0x87: unplayable.append("AC-3")
            default: break
            }
            if audioPID != nil { return }
            entry += 5 + infoLength
        }
        throw .failed(unplayable.isEmpty ? "an HLS piece with no audio in it"
                                         : "an HLS piece whose audio is \(unplayable[0]), which songbox does not play")
    }

    /// A PES packet's data, after its header.
    private static func pesPayload(_ body: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        let start = body.startIndex
        guard body.count >= 9, body[start] == 0, body[start + 1] == 0, body[start + 2] == 1 else { return nil }
        let data = start + 9 + Int(body[start + 8])
        return data <= body.endIndex ? body[data...] : nil
    }
}
