import Foundation
import Testing
@testable import SongboxAudio

/// Which gain a mode takes, the peak limit and the preamps, and the numbers that are refused:
/// the arithmetic the rendering tests (SongboxCLITests/ReplayGainTests) hear in the samples.
@Suite struct ReplayGainArithmeticTests {
    func settings(_ mode: ReplayGainMode, preamp: Double = 0, missing: Double = 0) -> ReplayGainSettings {
        var settings = ReplayGainSettings()
        settings.mode = mode
        settings.preamp = preamp
        settings.missingPreamp = missing
        return settings
    }

    let both = ReplayGain.choose(tags: .init(trackGain: -6, trackPeak: 0.5, albumGain: -9, albumPeak: 0.7), analysis: .init())

    @Test func eachModeTakesItsGainAndFallsBackToTheOther() throws {
        let both = try #require(self.both)
        #expect(both.source == .tags)
        #expect(AppliedGain(both, settings: settings(.track), random: false).decibels == -6)
        #expect(AppliedGain(both, settings: settings(.album), random: true).decibels == -9)
        #expect(AppliedGain(both, settings: settings(.auto), random: false).used == .album)
        #expect(AppliedGain(both, settings: settings(.auto), random: true).used == .track)
        let off = AppliedGain(both, settings: settings(.off, preamp: 5, missing: 5), random: false)
        #expect(off.scale == 1 && off.used == nil)

        let trackOnly = try #require(ReplayGain.choose(tags: .init(trackGain: -3), analysis: .init()))
        #expect(AppliedGain(trackOnly, settings: settings(.album), random: false).used == .track)
        let albumOnly = try #require(ReplayGain.choose(tags: .init(albumGain: -4), analysis: .init()))
        #expect(AppliedGain(albumOnly, settings: settings(.track), random: false).used == .album)
    }

    @Test func thePeakCapsTheGainAndThePreampsAdd() throws {
        let loud = try #require(ReplayGain.choose(tags: .init(trackGain: 10, trackPeak: 0.9), analysis: .init()))
        let limited = AppliedGain(loud, settings: settings(.track), random: false)
        #expect(limited.limited && abs(limited.scale - 1 / 0.9) < 1e-12)
        let preamped = AppliedGain(both, settings: settings(.track, preamp: 2), random: false)
        #expect(abs(preamped.decibels - -4) < 1e-9 && !preamped.limited)
        // No peak known: not limited (as MPD).
        let unknownPeak = try #require(ReplayGain.choose(tags: .init(trackGain: 10, trackPeak: 0), analysis: .init()))
        #expect(abs(AppliedGain(unknownPeak, settings: settings(.track), random: false).decibels - 10) < 1e-9)
        // Nothing to go by: the missing preamp.
        let none = AppliedGain(nil, settings: settings(.album, missing: -3), random: false)
        #expect(abs(none.decibels - -3) < 1e-9 && none.used == nil && none.source == nil)
    }

    @Test func theTagsWinAndTheAnalysisFillsIn() throws {
        let analysis = ReplayGain.Readings(trackGain: -7, trackPeak: 0.8, albumGain: -5, albumPeak: 0.9)
        #expect(ReplayGain.choose(tags: .init(trackGain: -1), analysis: analysis)?.source == .tags)
        let analyzed = try #require(ReplayGain.choose(tags: .init(trackPeak: 0.9), analysis: analysis))
        #expect(analyzed.source == .analysis && analyzed.album?.gain == -5 && analyzed.track?.peak == 0.8)
        #expect(ReplayGain.choose(tags: .init(), analysis: .init()) == nil)
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity, 1e300, -61, 61])
    func aGainNoFileCouldHoldIsIgnoredWithItsReason(_ gain: Double) throws {
        let chosen = try #require(ReplayGain.choose(tags: .init(trackGain: gain, albumGain: gain), analysis: .init(trackGain: gain)))
        #expect(chosen.track == nil && chosen.album == nil)
        #expect(chosen.ignored.count == 3, "\(chosen.ignored)")
        #expect(chosen.ignored.allSatisfy { $0.contains("ignored: not a finite number") || $0.contains("ignored: beyond ±60 dB") })
        let applied = AppliedGain(chosen, settings: settings(.track, missing: -2), random: false)
        #expect(abs(applied.decibels - -2) < 1e-9 && applied.scale.isFinite)
    }

    @Test(arguments: [Double.nan, .infinity, 1e300, -0.5, 11])
    func aPeakNoFileCouldHoldIsIgnored(_ peak: Double) throws {
        let chosen = try #require(ReplayGain.choose(tags: .init(trackGain: 20, trackPeak: peak), analysis: .init()))
        #expect(chosen.track == ReplayGain.Value(gain: 20, peak: nil))
        #expect(chosen.ignored.count == 1 && chosen.ignored[0].hasPrefix("replaygain_track_peak"), "\(chosen.ignored)")
        #expect(abs(AppliedGain(chosen, settings: settings(.track), random: false).decibels - 20) < 1e-9)
    }
}
