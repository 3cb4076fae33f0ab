/// Where a channel of a file is meant to play, as far as a stereo mix cares.
enum Speaker: Sendable {
    case left, right, center, lowFrequency, surroundLeft, surroundRight, backCenter, other

    /// Its share of the left and right outputs before normalising: front channels as they are,
    /// the centre and the surrounds at -3 dB (ITU-R BS.775's downmix), the back centre to both
    /// at -3 dB each side, the LFE left out (as ffmpeg and opusfile do: bass management is the
    /// speakers' business), an unknown channel to both at half.
    var weights: (left: Float, right: Float) {
        let half: Float = 0.707_106_77
        return switch self {
        case .left: (1, 0)
        case .right: (0, 1)
        case .center: (half, half)
        case .lowFrequency: (0, 0)
        case .surroundLeft: (half, 0)
        case .surroundRight: (0, half)
        case .backCenter: (half * half, half * half)
        case .other: (0.5, 0.5)
        }
    }
}

/// How the channels of a file become two: mono to both sides unchanged, stereo as it is, more
/// channels by their `Speaker` weights, scaled so that no output can clip more than the loudest
/// input channel could.
struct StereoMix: Sendable {
    enum Kind: Sendable { case mono, stereo, matrix }
    let kind: Kind
    let channels: Int
    /// Per channel, its gain into the left and the right output (for `matrix`).
    let left: [Float]
    let right: [Float]

    init(_ speakers: [Speaker]) {
        channels = speakers.count
        switch speakers.count {
        case 1: kind = .mono
        case 2: kind = .stereo
        default: kind = .matrix
        }
        let weights = speakers.map(\.weights)
        let scale = 1 / max(weights.reduce(0) { $0 + $1.left }, weights.reduce(0) { $0 + $1.right }, 1)
        left = weights.map { $0.left * scale }
        right = weights.map { $0.right * scale }
    }

    /// Mixes `frames` frames into interleaved stereo at `destination`; `sample(channel, frame)`
    /// gives an input sample already at 16-bit scale.
    @inline(__always)
    func mix(frames: Int, into destination: UnsafeMutablePointer<Float>, _ sample: (Int, Int) -> Float) {
        switch kind {
        case .mono:
            for frame in 0..<frames {
                let value = sample(0, frame)
                destination[2 * frame] = value
                destination[2 * frame + 1] = value
            }
        case .stereo:
            for frame in 0..<frames {
                destination[2 * frame] = sample(0, frame)
                destination[2 * frame + 1] = sample(1, frame)
            }
        case .matrix:
            left.withUnsafeBufferPointer { left in
                right.withUnsafeBufferPointer { right in
                    for frame in 0..<frames {
                        var l: Float = 0, r: Float = 0
                        for channel in 0..<channels {
                            let value = sample(channel, frame)
                            l += value * left[channel]
                            r += value * right[channel]
                        }
                        destination[2 * frame] = l
                        destination[2 * frame + 1] = r
                    }
                }
            }
        }
    }

    /// FLAC's channel order (and WAV's without a channel mask, the same for these counts).
    static func flac(channels: Int) -> StereoMix {
        let layouts: [Int: [Speaker]] = [
            1: [.center], 2: [.left, .right], 3: [.left, .right, .center],
            4: [.left, .right, .surroundLeft, .surroundRight],
            5: [.left, .right, .center, .surroundLeft, .surroundRight],
            6: [.left, .right, .center, .lowFrequency, .surroundLeft, .surroundRight],
            7: [.left, .right, .center, .lowFrequency, .backCenter, .surroundLeft, .surroundRight],
            8: [.left, .right, .center, .lowFrequency, .surroundLeft, .surroundRight, .surroundLeft, .surroundRight],
        ]
        return StereoMix(layouts[channels] ?? waveMaskOrder(channels))
    }

    /// Vorbis's channel order (Ogg Vorbis, and Opus's mapping family 1).
    static func vorbis(channels: Int) -> StereoMix {
        let layouts: [Int: [Speaker]] = [
            1: [.center], 2: [.left, .right], 3: [.left, .center, .right],
            4: [.left, .right, .surroundLeft, .surroundRight],
            5: [.left, .center, .right, .surroundLeft, .surroundRight],
            6: [.left, .center, .right, .surroundLeft, .surroundRight, .lowFrequency],
            7: [.left, .center, .right, .surroundLeft, .surroundRight, .backCenter, .lowFrequency],
            8: [.left, .center, .right, .surroundLeft, .surroundRight, .surroundLeft, .surroundRight, .lowFrequency],
        ]
        return StereoMix(layouts[channels] ?? Array(repeating: .other, count: channels))
    }

    /// AIFF's orders (its specification: 3 is left, right, centre; 4 quadraphonic; 6 left,
    /// left centre, centre, right, right centre, surround), else WAV's.
    static func aiff(channels: Int) -> StereoMix {
        switch channels {
        case 3: StereoMix([.left, .right, .center])
        case 4: StereoMix([.left, .right, .surroundLeft, .surroundRight])
        case 6: StereoMix([.left, .left, .center, .right, .right, .backCenter])
        default: flac(channels: channels)
        }
    }

    /// A WAVE_FORMAT_EXTENSIBLE channel mask: each channel takes the next speaker bit set, in
    /// the bits' order; a mask of 0, or one with fewer bits than channels, leaves the rest
    /// `other` (a mask of 0 means the default order: `flac(channels:)`).
    static func wave(channels: Int, mask: UInt32) -> StereoMix {
        guard mask != 0 else { return flac(channels: channels) }
        return StereoMix(waveMaskOrder(channels, mask: mask))
    }

    /// The speakers of WAVE's mask bits 0 to 10 (front left, front right, front centre, LFE, back
    /// left, back right, front left and right of centre, back centre, side left, side right);
    /// the top speakers and beyond are `other`.
    private static func waveMaskOrder(_ channels: Int, mask: UInt32 = 0x3FF) -> [Speaker] {
        let bits: [Speaker] = [.left, .right, .center, .lowFrequency, .surroundLeft, .surroundRight, .left, .right,
                               .backCenter, .surroundLeft, .surroundRight]
        var speakers: [Speaker] = []
        for bit in 0..<32 where mask & (1 << UInt32(bit)) != 0 && speakers.count < channels {
            speakers.append(bit < bits.count ? bits[bit] : .other)
        }
        return speakers + Array(repeating: .other, count: channels - speakers.count)
    }
}
