import Foundation
import SongboxFiles

/// The player's state machine: queue, modes, decoder, volume and output, driven one chunk at a
/// time. Synchronous and single-owner: `Player` runs it on its audio thread, and tests drive it
/// directly, so that a test decides exactly how much audio is rendered between two commands.
///
/// The clock is the audio rendered: every duration here (fades, the sleep timer, what counts as
/// a play) is measured in seconds of samples written to the output, never in wall time.
public final class PlayerEngine {
    public enum RenderResult: Sendable, Equatable {
        /// Frames written; call again.
        case rendered(frames: Int)
        /// Nothing to play (stopped or paused).
        case idle
        /// The output is missing or went away; retry later (the position is kept).
        case outputUnavailable(String)
        /// A network track's next bytes have not come yet; render again a little later.
        case waiting
    }

    /// Where the audio goes now: the output the engine was made with, or one of `outputs`
    /// that `useOutput` moved it to.
    public private(set) var output: any AudioOutput
    public var settings: PlayerSettings {
        didSet { outputs = Self.outputs(madeWith, settings) }
    }
    /// The outputs playback can move to, by spec: the one the engine was made with first, then
    /// the other configured ones (`settings.outputs`), in order. Kept, not made for every
    /// chunk's status.
    public private(set) var outputs: [String]
    /// The index in `outputs` of the one in use.
    public private(set) var outputIndex = 0
    private let madeWith: any AudioOutput

    public private(set) var queue = PlayQueue()
    public private(set) var modes = PlaybackModes()
    public private(set) var state = PlaybackState.stopped
    /// The queue item playing, paused, or to be played next by `play()`.
    public private(set) var currentID: Int?
    public private(set) var volume = 100.0
    public private(set) var highlights = false
    public private(set) var sleepTimer: SleepTimer?
    /// Seconds of audio rendered since the engine was made.
    public private(set) var clock = 0.0
    public private(set) var outputError: String?
    /// The last track that would not play, and why, until `clearError` (MPD's `error:`).
    public private(set) var playError: String?

    private var decoder: (any TrackDecoder)?
    /// What the playing stream last said it plays.
    public private(set) var streamTitle: StreamTitle?
    /// The last chunk found the network's bytes not there yet.
    public private(set) var buffering = false
    /// The ReplayGain of the track `decoder` plays (its queue item's, kept so that neither a
    /// chunk nor a status looks the item up again).
    private var openTrackGain: ReplayGain?
    /// Frames of the current track delivered to the output (seeks do not add to it).
    private var delivered = 0
    /// Where `play()` starts the current item when nothing is open (a restored position).
    private var resumeAt = 0.0
    private var fade: Fade?
    /// The current track's synchronised lyrics, when it has some: the next line to announce.
    private var lyrics: LyricCursor?
    /// A short fade-out that ends in a state change, or a fade-in after a resume.
    private var transition: Transition?
    private var sleepDeadline: Double?
    private var outputFormat: AudioFormat?
    /// Items already played while `random` is on, and the order they played in (for `previous`).
    private var randomHistory: [Int] = []
    private var failuresInARow = 0
    private var random: SeededRandom
    private let buffer: UnsafeMutableBufferPointer<Int16>
    private var events: [PlayerEvent] = []
    /// The track fading out under the current one, and the fade (docs/player.md#crossfade).
    private var crossfade: Crossfade?
    /// Whether a client or a script set the crossfade (kept in the saved state), rather than
    /// the config.
    private var crossfadeChosen = false
    /// The outgoing track's samples of a chunk, before they are mixed into `buffer`.
    private let mixBuffer: UnsafeMutableBufferPointer<Int16>
    /// Whether the current track's end was already looked at for a crossfade.
    private var endConsidered = false
    /// The rate a track starting under a crossfade is decoded at: the output's, so that the
    /// two are mixed at one rate whatever their own.
    private var joinRate: Int?
    /// The rate the current track was opened at to join a crossfade (nil: its own, or the
    /// output's fixed one): the next track of its album is opened at it too.
    private var joinedAt: Int?

    /// At most this many frames a chunk while a crossfade plays: the curves are applied as
    /// straight lines across a chunk, and 1024 frames (23 ms) keep them within a hair.
    static let crossfadeChunk = 1024

    private struct Crossfade {
        /// Nil once the outgoing track's audio is over (the fade-in goes on to `start + length`).
        var outgoing: Outgoing?
        var start: Double
        var length: Double
        var curve: CrossfadeCurve
        /// MixRamp: seconds into the fade that the outgoing track stays at full level (until
        /// its tail falls below the level); the incoming track is at full level throughout.
        var holdOut = 0.0

        var end: Double { start + length }

        /// The gains (outgoing, incoming) at `clock`.
        func gains(at clock: Double) -> (out: Double, in: Double) {
            guard curve == .mixRamp else { return curve.gains(at: length <= 0 ? 1 : (clock - start) / length) }
            let fading = length - holdOut
            return (curve.gains(at: fading <= 0 ? 1 : (clock - start - holdOut) / fading).out, 1)
        }
    }

    /// What comes after the current track, decided ahead: once its end is near (`planAhead`),
    /// or at its start when a plugin chooses transitions (`asksTransitions`). The next track is
    /// drawn once (a random one too); a plugin's choices for it are kept with it.
    private struct EndPlan {
        let from: Int
        let version: Int
        let modes: PlaybackModes
        /// The item after it; nil at the end of the queue.
        let to: Int?
        /// What a plugin chose for the natural end into `to`, and for a skip to it; nil: the
        /// settings' default.
        var natural: TransitionChoice?
        var skip: TransitionChoice?
    }

    /// Whether a plugin chooses transitions (`songbox.player.on_transition`): each track's
    /// successor is planned at its start and `transitionAhead` asked.
    public private(set) var asksTransitions = false

    /// A crossfade at a natural end: its length, curve and (MixRamp) how long the outgoing
    /// track holds its level.
    struct Join: Equatable {
        var overlap: Double
        var curve: CrossfadeCurve
        var holdOut = 0.0
    }

    private var endPlan: EndPlan?
    /// An alarm's music plays (started with the reason `alarm`, until playback stops): its
    /// transitions are asked with the reason `alarm`.
    private var alarmMusic = false

    /// An announcement asked for: a file or URL mixed over the music ducked by `duck` dB.
    public struct Announcement: Sendable, Hashable {
        public var source: String
        public var duck: Double
        /// A file songbox made for it (speech): removed once opened, or when it is dropped.
        public var temporary: Bool

        /// The ducks there are, in dB (0: the music stays as it is).
        public static let duckRange = -60.0...0.0

        public init(source: String, duck: Double = -15, temporary: Bool = false) {
            self.source = source
            self.duck = Self.duckRange.clamp(duck, else: -15)
            self.temporary = temporary
        }

        /// `text` said by espeak-ng (`Speech`), over the music ducked by `duck` dB.
        public static func spoken(_ text: String, duck: Double = -15) throws(SpeechError) -> Self {
            Self(source: try Speech.synthesize(text), duck: duck, temporary: true)
        }

        /// Done with: its file goes when songbox made it.
        public func discard() {
            if temporary { unlink(source) }
        }
    }

    /// The music under announcements: going down to an announcement's duck, held there while
    /// it plays (mixed on top), coming back up once none is left.
    private enum Ducking {
        case goingDown(from: Double, to: Double, start: Double)
        case playing(any TrackDecoder, level: Double)
        case goingUp(from: Double, start: Double)
    }

    static let duckDown = 0.3, duckUp = 0.5
    /// The announcements waiting, in order, and where the music is under them (nil: at its level).
    private var announcements: [Announcement] = []
    private var ducking: Ducking?
    /// An announcement's samples of a chunk, before they are added to `buffer`.
    private let announceBuffer: UnsafeMutableBufferPointer<Int16>

    /// Seconds before a track's end that its join is planned: the longest crossfade, and time
    /// for what decides it ahead.
    static let planAhead = CrossfadeSettings.range.upperBound + 10

    /// A track fading out: what `endTrack` needs of it once its audio is over.
    private struct Outgoing {
        let decoder: any TrackDecoder
        let item: QueueItem
        let gain: ReplayGain?
        var delivered: Int
        /// Why it ends: `finished` at a natural end, `skipped` on a manual change.
        let reason: EndReason
    }

    private struct Transition {
        enum Action {
            case pause, stop, play(id: Int, reason: StartReason, endReason: EndReason), fadeIn
        }
        var action: Action
        var start: Double
        var length: Double

        /// The gain multiplier at `clock`: 1 down to 0 for a fade-out, 0 up to 1 for a fade-in.
        func gain(at clock: Double) -> Double {
            let done = length <= 0 ? 1 : max(0, min(1, (clock - start) / length))
            if case .fadeIn = action { return done }
            return 1 - done
        }
    }

    public init(output: any AudioOutput, settings: PlayerSettings = PlayerSettings(),
                seed: UInt64 = .random(in: .min ... .max)) {
        self.output = output
        madeWith = output
        self.settings = settings
        outputs = Self.outputs(output, settings)
        random = SeededRandom(seed: seed)
        buffer = .allocate(capacity: max(1, settings.chunkFrames) * AudioFormat.channels)
        mixBuffer = .allocate(capacity: max(1, settings.chunkFrames) * AudioFormat.channels)
        announceBuffer = .allocate(capacity: max(1, settings.chunkFrames) * AudioFormat.channels)
    }

    private static func outputs(_ madeWith: any AudioOutput, _ settings: PlayerSettings) -> [String] {
        [madeWith.spec] + settings.outputs.map(\.description).filter { $0 != madeWith.spec }
    }

    deinit {
        output.close()
        if output !== madeWith { madeWith.close() }
        buffer.deallocate()
        mixBuffer.deallocate()
        announceBuffer.deallocate()
        announcements.forEach { $0.discard() }
    }

    public var hasPendingEvents: Bool { !events.isEmpty }

    /// Events since the last call, oldest first.
    public func takeEvents() -> [PlayerEvent] {
        // Called for every chunk: with nothing pending, allocate nothing (emptying a buffer the
        // returned copy still shares would allocate a new one).
        guard !events.isEmpty else { return [] }
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }

    // MARK: What is playing

    public var currentItem: QueueItem? { currentID.flatMap(queue.item(id:)) }

    /// Seconds into the current track.
    public var elapsed: Double {
        guard let decoder else { return resumeAt }
        return Double(decoder.position) / Double(decoder.format.sampleRate)
    }

    /// Seconds of the current track, when known.
    public var duration: Double? {
        if let decoder, let length = decoder.length { return Double(length) / Double(decoder.format.sampleRate) }
        return currentItem?.track.duration
    }

    public var snapshot: PlayerSnapshot {
        PlayerSnapshot(queue: queue, current: currentID, elapsed: elapsed, state: state, modes: modes,
                       volume: fade?.to ?? volume, highlights: highlights,
                       crossfade: crossfadeChosen ? settings.crossfade.seconds : nil)
    }

    public var status: PlayerStatus {
        PlayerStatus(snapshot: snapshot, duration: duration, format: decoder?.format, currentVolume: currentVolume,
                     sleepTimer: sleepTimer, sleepLeft: sleepRemaining(at: clock).map { max(0, $0) },
                     clock: clock, outputError: outputError, playError: playError, heading: heading, headingID: headingID,
                     replayGain: replayGain, outputs: outputs, outputIndex: outputIndex,
                     streamTitle: streamTitle, buffering: buffering, source: (decoder as? FileDecoder)?.source,
                     crossfade: settings.crossfade.seconds, mixRampDB: settings.crossfade.mixRampDB,
                     mixRampDelay: settings.crossfade.curve == .mixRamp ? settings.crossfade.mixRampDelay : nil)
    }

    /// The ReplayGain mode (`settings.replayGain.mode`).
    public var replayGainMode: ReplayGainMode { settings.replayGain.mode }

    /// The ReplayGain applied to the open track as the settings and the random mode are now
    /// (only the mode when no track is open).
    public var replayGain: AppliedGain {
        guard decoder != nil else { return AppliedGain(idle: settings.replayGain.mode) }
        return AppliedGain(openTrackGain, settings: settings.replayGain, random: modes.random)
    }

    /// The item playback is going to: the next one already while the fade before a skip plays out.
    public var headingID: Int? {
        if case .play(let id, _, _)? = transition?.action { return id }
        return currentID
    }

    /// The state playback is going to: `paused` or `stopped` already while the fade before
    /// a pause or a stop plays out (what a remote control shows the moment it was pressed).
    public var heading: PlaybackState {
        switch transition?.action {
        case .pause?: .paused
        case .stop?: .stopped
        default: state
        }
    }

    /// Takes up a saved state. Playback does not start: `play()` continues where it was.
    public func restore(_ saved: PlayerSnapshot) {
        closeTrack()
        queue = saved.queue
        currentID = saved.current.flatMap { queue.item(id: $0) != nil ? $0 : nil }
        resumeAt = currentID == nil ? 0 : max(0, saved.elapsed)
        modes = saved.modes
        volume = max(Self.volumeRange.lowerBound, min(Self.volumeRange.upperBound, saved.volume))
        highlights = saved.highlights
        if let chosen = saved.crossfade {
            settings.crossfade.seconds = chosen  // bounded by the setting itself
            crossfadeChosen = true
        }
        state = .stopped
    }

    /// Stops (if playing) and makes `id` the current item at `seconds`, so that the next `play`
    /// starts there: a place put back without a sound (after an alarm).
    public func cue(id: Int, at seconds: Double) {
        guard queue.item(id: id) != nil, seconds.isFinite else { return }
        if state != .stopped { stop() }
        // At once: a stop still fading out would end at the place it was given.
        transition = nil
        closeTrack()
        currentID = id
        resumeAt = max(0, seconds)
        state = .stopped
    }

    // MARK: Playback commands

    /// Starts or resumes playback: the item `id` when given, else the current (or first) item.
    public func play(id: Int? = nil, reason: StartReason = .user) {
        if let id {
            guard queue.item(id: id) != nil else { return }
            skip(to: id, reason: reason)
            return
        }
        switch state {
        case .playing: callOffPendingPause()
        case .paused: resume()
        case .stopped:
            guard let first = currentID ?? queue.items.first?.id else { return }
            let at = currentID != nil ? resumeAt : 0
            start(first, reason: currentID != nil && at > 0 ? .restored : reason, at: at)
        }
    }

    public func pause() {
        guard state == .playing else { return }
        change(to: .pause)
    }

    public func resume() {
        if callOffPendingPause() { return }
        guard state == .paused, let item = currentItem else { return }
        state = .playing
        emit(.resumed(item: item, at: elapsed))
        if settings.transitionFade > 0 {
            transition = Transition(action: .fadeIn, start: clock, length: settings.transitionFade)
        }
    }

    /// A pause or stop still fading out is called off (play pressed again at once): the sound
    /// comes back up and playback goes on. False when none was pending.
    @discardableResult
    private func callOffPendingPause() -> Bool {
        guard state == .playing, let pending = transition else { return false }
        switch pending.action {
        case .pause, .stop:
            transition = settings.transitionFade > 0 ? Transition(action: .fadeIn, start: clock, length: settings.transitionFade) : nil
            return true
        default:
            return false
        }
    }

    public func stop() {
        guard state != .stopped else { return }
        change(to: .stop)
    }

    /// The next item, as the user asks it (single mode does not stop here).
    public func next() {
        guard let id = following(currentID) else {
            if state != .stopped { change(to: .stop) }
            return
        }
        skip(to: id, reason: .user)
    }

    /// The previous item, or the start of this one when more than a few seconds were played.
    public func previous() {
        guard let current = currentID, state != .stopped else { return }
        if elapsed > settings.previousRestartsAfter || preceding(current) == nil {
            seek(to: currentItem?.track.highlight?.start ?? 0)
            return
        }
        if modes.random, !randomHistory.isEmpty { randomHistory.removeLast() }
        skip(to: preceding(current)!, reason: .user)
    }

    /// Moves within the current track (seconds, clamped to the track). A skip, pause or stop
    /// still fading out is done first: the seek is in the track playback is going to.
    public func seek(to seconds: Double) {
        if let pending = transition {
            if case .fadeIn = pending.action {} else {
                transition = nil
                carryOut(pending.action)
            }
        }
        // A live stream has nowhere to move to.
        guard let decoder, let item = currentItem, decoder.seekable else { return }
        let from = elapsed
        let rate = Double(decoder.format.sampleRate)
        let last = decoder.length.map { max(0, $0 - 1) } ?? Int.max
        do {
            try decoder.seek(toFrame: min(last, Self.frameCount(seconds, rate: rate)))
        } catch {
            emit(.decodeError(item: item, message: error.description))
            return
        }
        // Its end is looked at again for a crossfade (a seek back from its last seconds).
        endConsidered = false
        emit(.seeked(item: item, from: from, to: elapsed))
        if let lines = lyrics?.jumped(to: decoder.position) { announce(lines, of: item) }
    }

    public func seek(by seconds: Double) {
        seek(to: elapsed + seconds)
    }

    // MARK: Crossfade

    /// Sets the crossfade at a track's end (seconds, bounded to `CrossfadeSettings.range`;
    /// 0: off); a manual change's follows it unless `crossfade_manual` was set. A fade already
    /// playing goes on.
    public func setCrossfade(_ seconds: Double) {
        let before = settings.crossfade
        settings.crossfade.seconds = seconds
        crossfadeChosen = true
        if settings.crossfade != before { emitOptions() }
    }

    /// Sets MixRamp's level (dB, `mixrampdb`) and its delay (seconds, `mixrampdelay`) when
    /// given: a delay turns the `mixramp` curve on, NaN turns it off (back to equal-power), as
    /// in MPD. The next join is planned again.
    public func setMixRamp(level: Double? = nil, delay: Double? = nil) {
        let before = settings.crossfade
        if let level { settings.crossfade.mixRampDB = level }
        if let delay {
            if delay.isNaN {
                if settings.crossfade.curve == .mixRamp { settings.crossfade.curve = .equalPower }
            } else {
                settings.crossfade.mixRampDelay = delay
                settings.crossfade.curve = .mixRamp
            }
        }
        guard settings.crossfade != before else { return }
        endPlan = nil
        emitOptions()
    }

    /// From now on, each track's successor is planned at its start and a transition hook is
    /// asked about it (`transitionAhead`).
    public func askTransitions() {
        guard !asksTransitions else { return }
        asksTransitions = true
        endPlan = nil
    }

    /// A plugin's answer to `transitionAhead`: kept with the plan while `to` is still what
    /// follows `from`. One that comes after the end's crossfade was placed is too late: the
    /// default stands (the audio never waits for a plugin).
    public func chooseTransition(from: Int, to: Int, reason: TransitionReason, _ choice: TransitionChoice) {
        guard var plan = endPlan, plan.from == from, plan.to == to, currentID == from else { return }
        if reason == .skip {
            plan.skip = choice
        } else {
            guard !endConsidered else { return }
            plan.natural = choice
        }
        endPlan = plan
    }

    /// A change of track asked for (`next`, `previous`, `play N`): crossfaded over
    /// `crossfade_manual` (or what a plugin chose for a skip to `id`) where the two tracks take
    /// one, else the short `transitionFade`.
    private func skip(to id: Int, reason: StartReason) {
        let chosen = endPlan.flatMap { $0.from == currentID && $0.to == id ? $0.skip : nil }
        let seconds = chosen?.seconds ?? settings.crossfade.length(manual: true)
        let curve = chosen?.curve ?? settings.crossfade.curve
        guard seconds > 0, state == .playing, !buffering, !highlights, !fadingOut,
              let item = currentItem, let next = queue.item(id: id),
              chosen != nil ? joinable(item, next) : crossfades(from: item, lasting: duration ?? 0, to: next) else {
            return change(to: .play(id: id, reason: reason, endReason: .skipped))
        }
        crossfadeInto(over: seconds, curve: curve == .mixRamp ? .equalPower : curve, ending: .skipped) { start(id, reason: reason) }
    }

    /// A pause, stop or skip is fading out (a fade-in after a resume is not one).
    private var fadingOut: Bool {
        guard let transition else { return false }
        if case .fadeIn = transition.action { return false }
        return true
    }

    /// Frames of the current track to play before its natural-end crossfade starts (0: now),
    /// or before its end is planned; nil when none is to be looked at.
    private func framesBeforeCrossfade(_ decoder: any TrackDecoder, of item: QueueItem) -> Int? {
        guard !highlights, let length = decoder.length else { return nil }
        // Asked at its start, also while it fades in.
        if asksTransitions { _ = plan(for: item) }
        guard !endConsidered, crossfade == nil, settings.crossfade.seconds > 0 || asksTransitions else { return nil }
        let rate = Double(decoder.format.sampleRate)
        let left = max(0, length - decoder.position)
        let ahead = Self.frameCount(Self.planAhead, rate: rate)
        guard left <= ahead || asksTransitions else { return left - ahead }
        guard let join = join(of: plan(for: item), from: item, lasting: Double(length) / rate), join.overlap > 0 else { return nil }
        return max(0, left - Self.frameCount(join.overlap, rate: rate))
    }

    /// The plan of `item`'s end: kept while the queue and the modes stay as they were, else
    /// made again (a plugin's choices kept while the next item is the same). A new next item
    /// is asked about (`transitionAhead`) when a plugin chooses transitions.
    private func plan(for item: QueueItem) -> EndPlan {
        if let endPlan, endPlan.from == item.id, endPlan.version == queue.version, endPlan.modes == modes { return endPlan }
        let to = modes.single.isOn ? nil : following(item.id)
        var made = EndPlan(from: item.id, version: queue.version, modes: modes, to: to)
        if let old = endPlan, old.from == item.id, old.to == to {
            made.natural = old.natural
            made.skip = old.skip
        } else if asksTransitions, let to, to != item.id, let next = queue.item(id: to) {
            let crossfade = settings.crossfade
            emit(.transitionAhead(from: item, to: next, reason: alarmMusic ? .alarm : next.lane == .autoplay ? .autoplay : .natural,
                                  crossfade: crossfade.seconds, curve: crossfade.curve))
            emit(.transitionAhead(from: item, to: next, reason: .skip, crossfade: crossfade.length(manual: true),
                                  curve: crossfade.curve == .mixRamp ? .equalPower : crossfade.curve))
        }
        endPlan = made
        return made
    }

    /// The crossfade `plan` gives the natural end of `item` (`seconds` long): a plugin's
    /// choice, else the settings'; nil for none.
    private func join(of plan: EndPlan, from item: QueueItem, lasting seconds: Double) -> Join? {
        guard let to = plan.to, to != item.id, let next = queue.item(id: to) else { return nil }
        guard let chosen = plan.natural else { return naturalJoin(from: item, lasting: seconds, to: next) }
        guard chosen.seconds > 0, joinable(item, next) else { return nil }
        if chosen.curve == .mixRamp, let placed = mixRampJoin(from: item, lasting: seconds, to: next) { return placed }
        return Join(overlap: min(chosen.seconds, seconds), curve: chosen.curve == .mixRamp ? .equalPower : chosen.curve)
    }

    /// Whether a plugin's crossfade may join `item` to `next`: never within an album in order,
    /// nor into a track of unknown length (a station). (The length bounds are the plugin's call.)
    private func joinable(_ item: QueueItem, _ next: QueueItem) -> Bool {
        next.track.duration > 0 && !Self.isAlbumJoin(item, next)
    }

    /// The item the plan of `item`'s end chose, while it holds.
    private func plannedSuccessor(of item: QueueItem) -> Int? {
        guard let endPlan, endPlan.from == item.id, endPlan.version == queue.version, endPlan.modes == modes,
              !modes.single.isOn else { return nil }
        return endPlan.to
    }

    /// The crossfade at the natural end of `item` (`seconds` long) into `next` by the settings;
    /// nil for none.
    private func naturalJoin(from item: QueueItem, lasting seconds: Double, to next: QueueItem) -> Join? {
        let settings = settings.crossfade
        guard settings.seconds > 0, item.id != next.id, crossfades(from: item, lasting: seconds, to: next) else { return nil }
        guard settings.curve == .mixRamp else { return Join(overlap: settings.seconds, curve: settings.curve) }
        return mixRampJoin(from: item, lasting: seconds, to: next) ?? Join(overlap: settings.seconds, curve: .equalPower)
    }

    /// MixRamp's join of `item` into `next`, as MPD places it: they overlap by the time the
    /// incoming track takes to reach `mixRampDB` plus the time the outgoing one is under it at
    /// its end, less `mixRampDelay` (each level taken after the track's ReplayGain). Nil when
    /// either lacks its points or never reaches the level; an overlap of 0 when the delay is
    /// longer (they join gapless).
    private func mixRampJoin(from item: QueueItem, lasting seconds: Double, to next: QueueItem) -> Join? {
        let settings = settings.crossfade
        guard let end = item.track.mixRamp?.end, let start = next.track.mixRamp?.start,
              let tail = end.seconds(at: settings.mixRampDB - gainDecibels(of: item)),
              let lead = start.seconds(at: settings.mixRampDB - gainDecibels(of: next)) else { return nil }
        let overlap = max(0, min(lead + tail - settings.mixRampDelay, seconds, CrossfadeSettings.range.upperBound))
        return Join(overlap: overlap, curve: .mixRamp, holdOut: max(0, overlap - tail))
    }

    /// The ReplayGain `item` plays at, in dB.
    private func gainDecibels(of item: QueueItem) -> Double {
        let scale = AppliedGain(item.track.replayGain, settings: settings.replayGain, random: modes.random).scale
        return scale > 0 ? 20 * log10(scale) : 0
    }

    /// The current track is `crossfade` seconds from its end: the next one starts under it
    /// when the modes, the sleep timer and the two tracks allow, else it plays to its end.
    private func crossfadeAtEnd(of item: QueueItem, _ decoder: any TrackDecoder) {
        endConsidered = true
        let rate = Double(decoder.format.sampleRate)
        guard !fadingOut, !modes.single.isOn, let length = decoder.length else { return }
        switch sleepTimer {
        case .endOfTrack?: return
        case .endOfQueue? where isLast(item.id): return
        default: break
        }
        guard let plan = endPlan, plan.from == item.id, let successor = plan.to,
              let join = join(of: plan, from: item, lasting: Double(length) / rate) else { return }
        crossfadeInto(over: Double(max(0, length - decoder.position)) / rate, curve: join.curve, holdOut: join.holdOut,
                      ending: .finished) {
            advanceAtEnd(of: item, to: successor)
        }
    }

    /// Whether `item` (`seconds` long) crossfades into `next`: both at least
    /// `crossfade_min_track` long, and not the next track of the same album.
    private func crossfades(from item: QueueItem, lasting seconds: Double, to next: QueueItem) -> Bool {
        let minimum = settings.crossfade.minTrackSeconds
        guard seconds >= minimum, next.track.duration > 0, next.track.duration >= minimum else { return false }
        return !Self.isAlbumJoin(item, next)
    }

    /// Whether `next` is the track after `item` on the same album.
    private static func isAlbumJoin(_ item: QueueItem, _ next: QueueItem) -> Bool {
        guard let album = item.track.album, let nextAlbum = next.track.album else { return false }
        return album.isFollowed(by: nextAlbum)
    }

    /// The rate to open the track after `item` at: `joinedAt` when `item` came in by a
    /// crossfade at another rate than its own and the next is its album's next track, so that
    /// the album's joins stay gapless on an output that follows the rate (not reopened).
    private func albumJoinRate(after item: QueueItem) -> Int? {
        guard let rate = joinedAt, !modes.random, let id = following(item.id), let next = queue.item(id: id),
              Self.isAlbumJoin(item, next) else { return nil }
        return rate
    }

    /// Keeps the current track playing as the outgoing side of a crossfade of `seconds` and
    /// starts the next one through `startNext`, at the output's rate.
    private func crossfadeInto(over seconds: Double, curve: CrossfadeCurve, holdOut: Double = 0, ending reason: EndReason,
                               startNext: () -> Void) {
        guard let decoder, let item = currentItem else { return startNext() }
        let outgoing = Outgoing(decoder: decoder, item: item, gain: openTrackGain, delivered: delivered, reason: reason)
        joinRate = outputFormat?.sampleRate
        defer { joinRate = nil }
        startNext()
        guard self.decoder != nil, state == .playing else {
            // Nothing came in (every next track failed): the outgoing one ends here.
            return endTrack(outgoing.item, outgoing.decoder, delivered: outgoing.delivered, reason: .stopped)
        }
        crossfade = Crossfade(outgoing: outgoing, start: clock, length: seconds, curve: curve, holdOut: holdOut)
    }

    /// Decodes as many frames of the outgoing track as `samples` holds (`seconds` of them) into
    /// `mixBuffer` and adds them, along its fade-out, its ReplayGain and the volume (`volume` at
    /// the chunk's start and end), to `samples`. Returns how many frames it had and whether its
    /// audio is over (its end, or the fade's); an outgoing track that fails or stalls is over.
    private func mixOutgoing(into samples: UnsafeMutableBufferPointer<Int16>, volume: (Double, Double),
                             seconds: Double) -> (frames: Int, ended: Bool)? {
        guard let fading = crossfade, let outgoing = fading.outgoing else { return nil }
        let wanted = samples.count / AudioFormat.channels
        var filled = 0
        var ended = false
        while filled < wanted, !ended {
            let room = UnsafeMutableBufferPointer(rebasing: mixBuffer[filled * AudioFormat.channels..<wanted * AudioFormat.channels])
            switch (try? outgoing.decoder.decode(into: room)) ?? .ended {
            case .frames(let count): filled += count
            case .ended, .waiting: ended = true
            }
        }
        let scale = AppliedGain(outgoing.gain, settings: settings.replayGain, random: modes.random).scale
        let share = Double(filled) / Double(max(1, wanted))
        let to = volume.0 + (volume.1 - volume.0) * share
        Gain.add(UnsafeBufferPointer(rebasing: mixBuffer[0..<filled * AudioFormat.channels]), into: samples,
                 from: volume.0 * fading.gains(at: clock).out * scale, to: to * fading.gains(at: clock + seconds * share).out * scale)
        return (filled, ended || clock + seconds >= fading.end - 1e-9)
    }

    /// The outgoing track's frames of a chunk written: counted, and its end when it is over.
    private func outgoingWritten(_ mixed: (frames: Int, ended: Bool)?) {
        guard let mixed else { return }
        crossfade?.outgoing?.delivered += mixed.frames
        if mixed.ended { endOutgoing() }
    }

    /// Ends the track fading out, if any: its `track_ended`, with what of it was heard, for its
    /// own reason or `reason`.
    private func endOutgoing(_ reason: EndReason? = nil) {
        guard let outgoing = crossfade?.outgoing else { return }
        crossfade?.outgoing = nil
        endTrack(outgoing.item, outgoing.decoder, delivered: outgoing.delivered, reason: reason ?? outgoing.reason)
    }

    // MARK: Announcements

    /// Queues announcements, in order (docs/player.md#announcements): once those before it are
    /// over, the music goes down by each one's duck over `duckDown` seconds, it plays mixed on
    /// top at the output's rate, and the music comes back over `duckUp` after the last one. The
    /// queue, the place and the counts are untouched. False when nothing plays to duck (none is
    /// kept).
    @discardableResult
    public func announce(_ asked: [Announcement]) -> Bool {
        guard state == .playing else {
            asked.forEach { $0.discard() }
            return false
        }
        announcements += asked
        return true
    }

    /// Announcements waiting or playing.
    public var announcementsPending: Int {
        if case .playing? = ducking { return announcements.count + 1 }
        return announcements.count
    }

    /// The music's gain under the announcements at `time` (1: as it is).
    private func duckGain(at time: Double) -> Double {
        switch ducking {
        case nil: 1
        case .goingDown(let from, let to, let start)?: from + (to - from) * max(0, min(1, (time - start) / Self.duckDown))
        case .playing(_, let level)?: level
        case .goingUp(let from, let start)?: from + (1 - from) * max(0, min(1, (time - start) / Self.duckUp))
        }
    }

    /// When the music's gain next stops moving (the end of a ramp), if it is moving.
    private var duckRampEnd: Double? {
        switch ducking {
        case .goingDown(_, _, let start)?: start + Self.duckDown
        case .goingUp(_, let start)?: start + Self.duckUp
        default: nil
        }
    }

    /// Moves the ducking on at `clock`: an announcement waiting takes the music down, the
    /// music down plays it, the music back up ends the ducking.
    private func stepDucking() {
        switch ducking {
        case nil, .goingUp?:
            guard let next = announcements.first else {
                if let end = duckRampEnd, clock >= end - 1e-9 { ducking = nil }
                return
            }
            ducking = .goingDown(from: duckGain(at: clock), to: pow(10, next.duck / 20), start: clock)
        case .goingDown(_, let level, let start)?:
            guard clock >= start + Self.duckDown - 1e-9 else { return }
            startAnnouncement(from: level)
        case .playing?:
            break
        }
    }

    /// The music is down at `level`: the next announcement plays, opened at the output's rate.
    /// One that cannot be opened is reported, and the next is tried; none left, the music
    /// comes back.
    private func startAnnouncement(from level: Double) {
        while !announcements.isEmpty {
            let next = announcements.removeFirst()
            // An open file plays on once its name is gone.
            defer { next.discard() }
            do throws(DecodeError) {
                let opened = try openDecoder(for: PlayableTrack(trackID: PlayableTrack.notInLibrary, path: next.source, duration: 0),
                                             rate: outputFormat?.sampleRate)
                ducking = .playing(opened, level: level)
                return
            } catch {
                emit(.announcementFailed(source: next.source, message: error.message))
            }
        }
        ducking = .goingUp(from: level, start: clock)
    }

    /// Adds the playing announcement's next frames (as many as `samples` holds), at `volume`
    /// (at the chunk's start and end); once it is over, the next one goes on at its duck, or
    /// the music comes back.
    private func mixAnnouncement(into samples: UnsafeMutableBufferPointer<Int16>, volume: (Double, Double)) {
        guard case .playing(let decoder, let level)? = ducking else { return }
        let wanted = samples.count / AudioFormat.channels
        var filled = 0
        var ended = false
        while filled < wanted, !ended {
            let room = UnsafeMutableBufferPointer(rebasing: announceBuffer[filled * AudioFormat.channels..<wanted * AudioFormat.channels])
            switch (try? decoder.decode(into: room)) ?? .ended {
            case .frames(let count): filled += count
            case .ended, .waiting: ended = true
            }
        }
        Gain.add(UnsafeBufferPointer(rebasing: announceBuffer[0..<filled * AudioFormat.channels]), into: samples,
                 from: volume.0, to: volume.1)
        guard ended else { return }
        // From its last frame: the next one at once (its duck reached), or the music back up.
        let end = clock + Double(filled) / frameRate
        if let next = announcements.first {
            ducking = .goingDown(from: level, to: pow(10, next.duck / 20), start: end - Self.duckDown)
        } else {
            ducking = .goingUp(from: level, start: end)
        }
    }

    // MARK: Volume, modes, timers

    /// The volumes there are: 0 (silent) to 100 (the samples as decoded). The one bound of
    /// MPD's `setvol`, Lua's `player.volume` and `player.fade`, and the engine's own.
    public static let volumeRange = 0.0...100.0

    /// Sets the volume at once (0–100), ending any fade.
    public func setVolume(_ newVolume: Double) {
        fade = nil
        volume = max(Self.volumeRange.lowerBound, min(Self.volumeRange.upperBound, newVolume))
        emit(.volumeChanged(volume: volume))
    }

    /// Moves the volume to `target` over `seconds` of playback along `curve`.
    public func fade(to target: Double, over seconds: Double, curve: FadeCurve = .linear) {
        let to = max(0, min(100, target))
        guard seconds > 0 else { return setVolume(to) }
        fade = Fade(from: currentVolume, to: to, start: clock, length: seconds, curve: curve)
    }

    /// Sets the ReplayGain mode; the playing track's gain changes with the next chunk.
    public func setReplayGain(_ mode: ReplayGainMode) {
        guard mode != settings.replayGain.mode else { return }
        settings.replayGain.mode = mode
        emitOptions()
    }

    public func setModes(_ newModes: PlaybackModes) {
        guard newModes != modes else { return }
        if newModes.random != modes.random { randomHistory = currentID.map { [$0] } ?? [] }
        modes = newModes
        emitOptions()
    }

    /// Plays only each track's highlight range, one after another; tracks without one are passed over.
    public func setHighlights(_ on: Bool) {
        guard on != highlights else { return }
        highlights = on
        emitOptions()
    }

    /// Sets (or with nil cancels) the sleep timer.
    public func setSleepTimer(_ timer: SleepTimer?) {
        sleepTimer = timer
        if case .after(let seconds) = timer { sleepDeadline = clock + max(0, seconds) } else { sleepDeadline = nil }
        emitOptions()
    }

    // MARK: Queue commands

    /// How many more items the queue takes (`settings.maxQueueLength`).
    public var queueRoom: Int { max(0, settings.maxQueueLength - queue.count) }

    /// Adds tracks and returns their ids: the first `queueRoom` of them, as MPD adds until its
    /// queue is full (the caller says that the rest was refused).
    @discardableResult
    public func add(_ tracks: [PlayableTrack], placement: PlayQueue.Placement = .end,
                    lane: QueueItem.Lane = .user) -> [Int] {
        let ids = queue.add(Array(tracks.prefix(queueRoom)), placement: placement, lane: lane, current: currentID)
        if !ids.isEmpty { emit(.queueChanged(version: queue.version)) }
        return ids
    }

    /// Removes items; removing the playing one moves on to what took its place.
    public func remove(ids: Set<Int>) {
        guard let current = currentID, ids.contains(current) else {
            if queue.remove(ids: ids) > 0 { emit(.queueChanged(version: queue.version)) }
            return
        }
        let position = queue.position(of: current) ?? 0
        let wasPlaying = state == .playing
        endTrack(.replaced)
        queue.remove(ids: ids)
        emit(.queueChanged(version: queue.version))
        let successor = queue.items.indices.first { $0 >= position }.map { queue.items[$0].id }
        currentID = successor
        if wasPlaying, let successor {
            start(successor, reason: .next)
        } else if state != .stopped {
            stopPlayback()
        }
    }

    public func move(id: Int, to position: Int) {
        if queue.move(id: id, to: position) { emit(.queueChanged(version: queue.version)) }
    }

    public func clear() {
        if currentID != nil { endTrack(.replaced) }
        currentID = nil
        resumeAt = 0
        queue.clear()
        randomHistory = []
        emit(.queueChanged(version: queue.version))
        if state != .stopped { finishPlayback() }
    }

    public func shuffle() {
        queue.shuffle(current: currentID, using: &random)
        emit(.queueChanged(version: queue.version))
    }

    // MARK: Rendering

    /// Decodes and writes the next chunk of audio, at most `maxFrames` of it.
    public func render(maxFrames: Int = .max) -> RenderResult {
        guard state == .playing else { return .idle }
        guard let decoder, let item = currentItem else {
            finishPlayback()
            return .idle
        }
        do throws(AudioOutputError) {
            try openOutput(for: decoder.format)
        } catch {
            return outputFailed(error)
        }
        stepDucking()
        let rate = frameRate
        var wanted = min(settings.chunkFrames, max(1, maxFrames))
        if ducking != nil {
            // Short chunks under an announcement: the music's ramps are drawn in them (one ends
            // a chunk), and the music comes back within one of the announcement's end.
            wanted = min(wanted, Self.crossfadeChunk)
            if let end = duckRampEnd, end > clock { wanted = min(wanted, frames(in: end - clock)) }
        }
        if let lead = framesBeforeCrossfade(decoder, of: item) {
            guard lead > 0 else {
                crossfadeAtEnd(of: item, decoder)
                return .rendered(frames: 0)
            }
            wanted = min(wanted, lead)
        }
        if let crossfade {
            wanted = min(wanted, Self.crossfadeChunk)
            // The fade's last frame ends a chunk: the outgoing track delivers nothing past it.
            if crossfade.end > clock { wanted = min(wanted, frames(in: crossfade.end - clock)) }
        }
        if let end = item.track.highlight?.end, highlights {
            wanted = min(wanted, max(0, Self.frameCount(end, rate: rate) - decoder.position))
        }
        if let deadline = sleepDeadline {
            // Stop on the sleep timer's frame, not at the end of a chunk.
            wanted = min(wanted, frames(in: deadline - clock))
        }
        if let transition, case .fadeIn = transition.action {} else if let transition {
            // End a fade-out exactly on its last frame.
            wanted = min(wanted, frames(in: transition.start + transition.length - clock))
        }
        if let line = lyrics?.nextFrame {
            // End the chunk where the next lyric line starts: its event is at its sample.
            wanted = min(wanted, max(1, line - decoder.position))
        }
        let startFrame = decoder.position
        let frames: Int
        do throws(DecodeError) {
            switch wanted == 0 ? .ended : try decoder.decode(into: UnsafeMutableBufferPointer(rebasing: buffer[0..<wanted * 2])) {
            case .frames(let count): frames = count
            case .ended: frames = 0
            case .waiting:
                buffering = true
                // A pause, stop or skip fading out a stream that went quiet: nothing more can
                // be heard of it, so it is done now, not when (or if) the network comes back.
                if let pending = transition {
                    if case .fadeIn = pending.action {} else {
                        transition = nil
                        carryOut(pending.action)
                        return .rendered(frames: 0)
                    }
                }
                return .waiting
            }
        } catch {
            emit(.decodeError(item: item, message: error.message))
            // A track that failed before a sound of it was heard (a station that is down) is one
            // that would not play: counted as such, so a queue of them on repeat stops.
            let heardNothing = delivered == 0
            endTrack(.error)
            if heardNothing { skipOver(item, reason: .next) } else { advance(after: item.id, reason: .next) }
            return .rendered(frames: 0)
        }
        buffering = false
        if let title = decoder.takeStreamTitle() {
            streamTitle = title
            emit(.streamTitle(item: item, title: title))
        }
        guard frames > 0 else {
            trackReachedItsEnd(item)
            return .rendered(frames: 0)
        }
        let seconds = Double(frames) / rate
        let samples = UnsafeMutableBufferPointer(rebasing: buffer[0..<frames * 2])
        // The track's ReplayGain multiplies the volume. A chunk never spans two tracks, so the
        // next track's gain applies from its first sample.
        // In a crossfade, each track's gain and fade apply to it, the volume to the mix.
        let replayGainScale = replayGain.scale
        // An announcement is heard at the volume; the music (both sides of a crossfade) under it
        // at its duck too.
        let plain = (gain(at: clock), gain(at: clock + seconds))
        let volume = (plain.0 * duckGain(at: clock), plain.1 * duckGain(at: clock + seconds))
        let fadeIn = crossfade.map { ($0.gains(at: clock).in, $0.gains(at: clock + seconds).in) } ?? (1, 1)
        Gain.apply(samples, from: volume.0 * fadeIn.0 * replayGainScale, to: volume.1 * fadeIn.1 * replayGainScale)
        let outgoingStart = crossfade?.outgoing?.decoder.position
        let mixed = mixOutgoing(into: samples, volume: volume, seconds: seconds)
        mixAnnouncement(into: samples, volume: plain)
        do throws(AudioOutputError) {
            try output.write(UnsafeBufferPointer(samples))
        } catch {
            // Keep the place: the chunk is decoded again once the output is back.
            try? decoder.seek(toFrame: startFrame)
            if let outgoingStart { try? crossfade?.outgoing?.decoder.seek(toFrame: outgoingStart) }
            return outputFailed(error)
        }
        outgoingWritten(mixed)
        outputError = nil
        failuresInARow = 0
        delivered += frames
        clock += seconds
        afterWriting(item)
        if self.decoder === decoder, let lines = lyrics?.played(to: decoder.position) {
            // Still the same track (not ended, stopped or skipped on this frame).
            announce(lines, of: item)
        }
        return .rendered(frames: frames)
    }

    /// Frames a second of the current track (44.1 kHz when none is open).
    public var frameRate: Double { Double(decoder?.format.sampleRate ?? 44_100) }

    /// `seconds` as a count of frames at `rate`, rounded, clamped to 0 ... 2^62: a time from a
    /// script or a file (NaN, infinite, 1e300) never traps the conversion to Int.
    static func frameCount(_ seconds: Double, rate: Double, rounding: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> Int {
        let frames = (seconds * rate).rounded(rounding)
        guard frames > 0 else { return 0 }  // negative, zero or NaN
        return frames < 0x1p62 ? Int(frames) : 1 << 62
    }

    /// The frames `seconds` take at `frameRate`, rounded up, at least 1. A time a hair past a
    /// frame boundary (the clock is a sum of chunk lengths) does not cost a frame more.
    public func frames(in seconds: Double) -> Int {
        max(1, Self.frameCount(seconds - 1e-6 / frameRate, rate: frameRate, rounding: .up))
    }

    /// Renders exactly `seconds` more audio (to the frame), or until nothing plays. For tests.
    @discardableResult
    public func run(seconds: Double = .infinity) -> RenderResult {
        var left = seconds
        while left > 0 {
            let frames = Self.frameCount(left, rate: frameRate)
            guard frames > 0 else { break }
            let before = clock
            let result = render(maxFrames: frames)
            guard case .rendered = result else { return result }
            left -= clock - before
        }
        return .rendered(frames: 0)
    }

    // MARK: Internals

    /// The volume heard now: `volume` moved along a fade in progress (whose target `snapshot` saves).
    public var currentVolume: Double { fade?.volume(at: clock) ?? volume }

    /// The gain applied at `time`: volume, transition fade and sleep fade together.
    private func gain(at time: Double) -> Double {
        var gain = Gain.of(volume: fade?.volume(at: time) ?? volume)
        if let transition { gain *= transition.gain(at: time) }
        if let remaining = sleepRemaining(at: time), settings.sleepFade > 0 {
            gain *= max(0, min(1, remaining / settings.sleepFade))
        }
        return gain
    }

    /// Seconds until the sleep timer stops playback, once that time is known.
    private func sleepRemaining(at time: Double) -> Double? {
        switch sleepTimer {
        case .after?: return sleepDeadline.map { $0 - time }
        case .endOfTrack?: return remainingInTrack(at: time)
        case .endOfQueue?:
            guard let current = currentID, isLast(current) else { return nil }
            return remainingInTrack(at: time)
        case nil: return nil
        }
    }

    private func remainingInTrack(at time: Double) -> Double? {
        guard let decoder else { return nil }
        let rate = Double(decoder.format.sampleRate)
        let end = highlights ? currentItem?.track.highlight.map { $0.end * rate } : nil
        guard let last = end ?? decoder.length.map(Double.init) else { return nil }
        return (last - Double(decoder.position)) / rate - (time - clock)
    }

    private func afterWriting(_ item: QueueItem) {
        if let crossfade, crossfade.outgoing == nil, crossfade.end <= clock + 1e-9 { self.crossfade = nil }
        if let fade, fade.isDone(at: clock) {
            self.fade = nil
            volume = fade.to
            emit(.volumeChanged(volume: volume))
        }
        if let transition, transition.start + transition.length <= clock + 1e-9 {
            self.transition = nil
            carryOut(transition.action)
        }
        if let deadline = sleepDeadline, clock >= deadline - 1e-9 {
            sleepTimer = nil
            sleepDeadline = nil
            endTrack(.stopped)
            stopPlayback()
            return
        }
        if highlights, let end = item.track.highlight?.end, let decoder,
           decoder.position >= Self.frameCount(end, rate: Double(decoder.format.sampleRate)) {
            trackReachedItsEnd(item)
        }
    }

    private func trackReachedItsEnd(_ item: QueueItem) {
        // A pause, stop or skip asked for in the track's last moments, its fade cut short by
        // the end: it still happens, at the start of what comes next.
        let pending = transition?.action
        let albumRate = albumJoinRate(after: item)
        let planned = plannedSuccessor(of: item)
        endTrack(.finished)
        switch pending {
        case .stop?:
            stopPlayback()
            return
        case .play(let id, let reason, _)? where queue.item(id: id) != nil:
            start(id, reason: reason)
            return
        default: break
        }
        defer {
            if case .pause? = pending, state == .playing {
                transition = nil
                carryOut(.pause)
            }
        }
        switch sleepTimer {
        case .endOfTrack?:
            sleepTimer = nil
            stopPlayback()
            return
        case .endOfQueue? where isLast(item.id):
            sleepTimer = nil
            stopPlayback()
            return
        default: break
        }
        joinRate = albumRate
        advanceAtEnd(of: item, to: planned)
        joinRate = nil
    }

    /// What comes after `item` ended by itself (or started to fade out): the next item, or
    /// `successor` when already chosen; a oneshot mode is then turned off.
    private func advanceAtEnd(of item: QueueItem, to successor: Int? = nil) {
        let oneshot = modes.single == .oneshot || modes.consume == .oneshot
        advance(after: item.id, reason: .next, to: successor)
        if oneshot {
            // A oneshot mode applies to the one track that just ended, then turns itself off.
            if modes.single == .oneshot { modes.single = .off }
            if modes.consume == .oneshot { modes.consume = .off }
            emitOptions()
        }
    }

    /// After `id` ended by itself: the next item by the modes, consuming `id` when asked. In
    /// single mode it plays `id` again with repeat, else the next item waits paused at its
    /// start, as in MPD (the place in the queue is kept; `play` or `pause 0` goes on).
    private func advance(after id: Int, reason: StartReason, to chosen: Int? = nil) {
        let single = modes.single.isOn && reason == .next
        let successor = chosen ?? (single && modes.repeat ? id : following(id))
        if modes.consume.isOn, successor != id {
            queue.remove(ids: [id])
            emit(.queueChanged(version: queue.version))
        }
        guard let successor, queue.item(id: successor) != nil else {
            // At the end, as in MPD: the next `play()` starts from the top.
            currentID = nil
            finishPlayback()
            return
        }
        start(successor, reason: reason)
        if single, successor != id { carryOut(.pause) }
    }

    /// The item after `id`, as `repeat` and `random` choose; nil at the end.
    private func following(_ id: Int?) -> Int? {
        guard !queue.isEmpty else { return nil }
        guard let id, let position = queue.position(of: id) else { return queue.items.first?.id }
        if modes.random {
            let played = Set(randomHistory)
            var unplayed = queue.items.filter { !played.contains($0.id) && $0.id != id }
            if unplayed.isEmpty, modes.repeat {
                unplayed = queue.items.filter { $0.id != id }
                if unplayed.isEmpty { return id }
            }
            return unplayed.randomElement(using: &random)?.id
        }
        if position + 1 < queue.count { return queue.items[position + 1].id }
        return modes.repeat ? queue.items.first?.id : nil
    }

    /// Whether `id` is the end of the queue: its last item, or the last unplayed one in random order.
    private func isLast(_ id: Int) -> Bool {
        if modes.random { return queue.items.allSatisfy { randomHistory.contains($0.id) } }
        return queue.position(of: id) == queue.count - 1
    }

    private func preceding(_ id: Int) -> Int? {
        if modes.random { return randomHistory.dropLast().last }
        guard let position = queue.position(of: id) else { return nil }
        if position > 0 { return queue.items[position - 1].id }
        return modes.repeat ? queue.items.last?.id : nil
    }

    /// Starts `id` at `seconds`. A file that cannot be opened is reported and passed over.
    private func start(_ id: Int, reason: StartReason, at seconds: Double = 0) {
        closeTrack()
        guard let item = queue.item(id: id) else { return stopPlayback() }
        currentID = id
        if highlights, item.track.highlight == nil {
            // Not a highlight: go on as if it had been played, without counting anything.
            return skipOver(item, reason: reason)
        }
        let opened: any TrackDecoder
        do throws(DecodeError) {
            opened = try openDecoder(for: item.track, rate: output.requiredFormat?.sampleRate ?? joinRate)
        } catch {
            emit(.decodeError(item: item, message: error.message))
            return skipOver(item, reason: reason)
        }
        decoder = opened
        joinedAt = joinRate.flatMap { $0 == output.requiredFormat?.sampleRate ? nil : $0 }
        openTrackGain = item.track.replayGain
        state = .playing
        let from = highlights ? (item.track.highlight?.start ?? 0) : seconds
        if from > 0, opened.seekable { try? opened.seek(toFrame: Self.frameCount(from, rate: Double(opened.format.sampleRate))) }
        if modes.random, randomHistory.last != id { randomHistory.append(id) }
        if reason == .alarm { alarmMusic = true }
        // The queue went on into what autoplay added: autoplay's track.
        let told = reason == .next && item.lane == .autoplay ? StartReason.autoplay : reason
        emit(.trackStarted(item: item, position: queue.position(of: id) ?? 0, reason: told))
        lyrics = item.track.lyricTimes.map { LyricCursor(times: $0, rate: opened.format.sampleRate) }
        if let lines = lyrics?.jumped(to: opened.position) { announce(lines, of: item) }
    }

    /// A decoder for `track`: its file, or through `settings.remote` a URL.
    private func openDecoder(for track: PlayableTrack, rate: Int?) throws(DecodeError) -> any TrackDecoder {
        guard track.isRemote else { return try AudioFile.decoder(path: track.path, rate: rate) }
        guard let remote = settings.remote else {
            throw DecodeError(path: track.path, message: "this player does not play tracks from the network")
        }
        return try remote.opener.open(track.path, rate: rate)
    }

    /// The events of lyric lines `lines` of `item`'s track.
    private func announce(_ lines: Range<Int>, of item: QueueItem) {
        guard let times = lyrics?.times else { return }
        for index in lines {
            emit(.lyric(item: item, index: index, milliseconds: Int(times.milliseconds[index])))
        }
    }

    /// Moves past an item that will not play, stopping once every item has failed in a row.
    private func skipOver(_ item: QueueItem, reason: StartReason) {
        failuresInARow += 1
        guard failuresInARow < queue.count, let successor = following(item.id),
              successor != item.id else {
            failuresInARow = 0
            // Every path out of playback ends with `stopped`, also when nothing could start
            // (a play from stopped whose every track fails): whoever waits for it is told.
            return stopPlayback()
        }
        start(successor, reason: reason)
    }

    /// Ends the current track with `reason`: the event with what was heard and what it counts as.
    private func endTrack(_ reason: EndReason) {
        guard let decoder, let item = currentItem else { return }
        // A track fading out under it ends first: stopped too when playback stops (a stop, the
        // sleep timer, a failed output), else for its own reason.
        endOutgoing(reason == .stopped ? .stopped : nil)
        endTrack(item, decoder, delivered: delivered, reason: reason)
        closeTrack()
    }

    /// The `track_ended` of `item`, played by `decoder`, of which `delivered` frames were heard.
    private func endTrack(_ item: QueueItem, _ decoder: any TrackDecoder, delivered: Int, reason: EndReason) {
        let rate = Double(decoder.format.sampleRate)
        let played = Double(delivered) / rate
        let duration = highlights
            ? (item.track.highlight.map { $0.end - $0.start } ?? 0)
            : (decoder.length.map { Double($0) / rate } ?? item.track.duration)
        let counted = highlights || item.track.trackID == PlayableTrack.notInLibrary ? nil
            : settings.countRules.count(reason: reason, played: played, duration: duration)
        emit(.trackEnded(item: item, reason: reason, played: played, duration: duration, counted: counted))
    }

    /// Lets the current track go; a track still fading out under it ends with it.
    private func closeTrack() {
        endOutgoing()
        crossfade = nil
        endConsidered = false
        endPlan = nil
        joinedAt = nil
        decoder = nil
        streamTitle = nil
        buffering = false
        openTrackGain = nil
        lyrics = nil
        delivered = 0
        resumeAt = 0
        transition = nil
    }

    /// A state change that fades out first when something is audible (not while a network
    /// track waits for its bytes).
    private func change(to action: Transition.Action) {
        if state == .playing, settings.transitionFade > 0, decoder != nil, !buffering {
            transition = Transition(action: action, start: clock, length: settings.transitionFade)
        } else {
            carryOut(action)
        }
    }

    private func carryOut(_ action: Transition.Action) {
        switch action {
        case .fadeIn:
            break
        case .pause:
            guard state == .playing, let item = currentItem else { return }
            state = .paused
            output.drain()
            emit(.paused(item: item, at: elapsed))
        case .stop:
            endTrack(.stopped)
            stopPlayback()
        case .play(let id, let reason, let endReason):
            if decoder != nil { endTrack(endReason) }
            start(id, reason: reason)
        }
    }

    /// Stops with the current item kept, so `play()` starts it again.
    private func stopPlayback() {
        // Announcements duck the music: with none playing, they are over.
        announcements.forEach { $0.discard() }
        announcements = []
        ducking = nil
        alarmMusic = false
        endOutgoing(.stopped)
        closeTrack()
        state = .stopped
        output.drain()
        output.close()
        outputFormat = nil
        emit(.stopped)
    }

    /// The queue ran out.
    private func finishPlayback() {
        guard state != .stopped || decoder != nil else { return }
        stopPlayback()
    }

    private func openOutput(for format: AudioFormat) throws(AudioOutputError) {
        guard outputFormat != format else { return }
        if outputFormat != nil { output.drain() }
        outputFormat = nil
        try output.open(format)
        outputFormat = format
    }

    /// Moves playback to `outputs[index]` at the same place: what a listener does when a sound
    /// card fails or another room should hear it. The output left is closed; a missing file
    /// output's folder is an error and nothing changes.
    public func useOutput(_ index: Int) throws(AudioOutputError) {
        let specs = outputs
        guard specs.indices.contains(index) else {
            throw .failed("there is no output \(index + 1): \(specs.count) configured (\(specs.joined(separator: ", ")))")
        }
        guard index != outputIndex else { return }
        let next: any AudioOutput
        if index == 0 {
            next = madeWith
        } else {
            let spec = try OutputSpec(parsing: specs[index])
            try spec.checkDestination()
            next = spec.makeOutput()
        }
        // The track fading out is at the old output's rate: it ends here.
        endOutgoing()
        output.close()
        outputFormat = nil
        output = next
        outputIndex = index
        outputError = nil
        if let rate = next.requiredFormat?.sampleRate { decodeAt(rate: rate) }
        emit(.outputChanged(index: index, spec: next.spec))
    }

    /// The current track decoded at `rate` from the same place (an output that takes one rate
    /// only, as a Snapcast FIFO): what was delivered and the lyric cursor follow the new rate.
    private func decodeAt(rate: Int) {
        guard let old = decoder, old.format.sampleRate != rate, let item = currentItem,
              let reopened = try? openDecoder(for: item.track, rate: rate) else { return }
        let scale = Double(rate) / Double(old.format.sampleRate)
        // A live stream starts again from now.
        if reopened.seekable { try? reopened.seek(toFrame: Int((Double(old.position) * scale).rounded())) }
        delivered = Int((Double(delivered) * scale).rounded())
        decoder = reopened
        lyrics = item.track.lyricTimes.map { LyricCursor(times: $0, rate: rate) }
        // The lines up to here were announced at the old rate.
        _ = lyrics?.jumped(to: reopened.position)
    }

    private func outputFailed(_ error: AudioOutputError) -> RenderResult {
        output.close()
        outputFormat = nil
        let message = "\(output.spec): \(error.description)"
        if outputError != message { emit(.outputError(message: message, paused: false)) }
        outputError = message
        if case .failed = error {
            // Not worth retrying (a WAV file that cannot be written): stop, keeping the place.
            let at = elapsed
            endTrack(.stopped)
            stopPlayback()
            resumeAt = at
            return .idle
        }
        return .outputUnavailable(message)
    }

    private func emit(_ event: PlayerEvent) {
        if case .decodeError(let item, let message) = event {
            playError = "cannot play \(TrackLocation.shown(item.track.path)): \(message)"
        }
        events.append(event)
    }

    /// The output stayed unavailable for as long as the player waits for it: playback pauses at
    /// its place with the error kept (MPD's `error:`), so nothing claims to play what is not
    /// heard; `play` tries the output again.
    public func pauseForMissingOutput() {
        guard state == .playing, let item = currentItem, let message = outputError else { return }
        transition = nil
        state = .paused
        emit(.outputError(message: message, paused: true))
        emit(.paused(item: item, at: elapsed))
    }

    /// Forgets the last track that would not play (MPD's `clearerror`).
    public func clearError() {
        playError = nil
        // Said again at the next try if the output is still not there.
        outputError = nil
    }

    /// `options_changed`, with the modes and the ReplayGain mode as they are now.
    private func emitOptions() {
        emit(.optionsChanged(modes, replayGain: settings.replayGain.mode))
    }
}

/// A small, seedable generator (SplitMix64), so a test can replay a shuffle.
struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
