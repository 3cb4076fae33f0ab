internal import CALSA
import Foundation

/// Plays through an ALSA PCM device (`default`, `plughw:1,0`, `hw:0`, `dmix`...).
///
/// `write` blocks until ALSA takes the frames, so the device keeps real time. Each track opens
/// the device at its own rate; through `default` or `plughw:` ALSA converts what the card cannot
/// play. Underruns and suspends are recovered inside `write` without losing frames; a device
/// that disappears (USB DAC unplugged) closes the output and throws `.unavailable`.
public final class ALSAOutput: AudioOutput {
    public let device: String
    /// The size of ALSA's ring buffer and of its periods, in microseconds (ALSA picks the nearest).
    public let bufferTime: Int
    public let periodTime: Int
    public var spec: String { OutputSpec.alsa(device: device).description }
    public let pacesItself = true
    public let requiredFormat: AudioFormat? = nil

    private enum State {
        case closed
        case open(pcm: OpaquePointer, format: AudioFormat)
    }

    private var state = State.closed

    /// The format the device is open at, nil when closed.
    var format: AudioFormat? {
        if case .open(_, let format) = state { format } else { nil }
    }

    /// alsa-lib prints its own errors on stderr; ours say more. Installed once per process.
    private static let libraryErrorsSilenced: Void = songbox_alsa_silence_errors()

    /// Makes the output; the device is opened by `open`, so this never fails.
    public init(device: String = "default", bufferTime: Int = 500_000, periodTime: Int = 100_000) {
        self.device = device
        self.bufferTime = bufferTime
        self.periodTime = periodTime
    }

    deinit { close() }

    /// Whether the last open failed (the device was missing).
    private var openFailed = false

    public func open(_ format: AudioFormat) throws(AudioOutputError) {
        if case .open(_, let current) = state {
            if current == format { return }
            // ALSA cannot change the rate of an open PCM: play out the old track, start anew.
            drain()
            close()
        }
        _ = Self.libraryErrorsSilenced
        // After a failed open, forget ALSA's parsed configuration so the retry reads it again:
        // alsa-lib does not notice a new or edited ~/.asoundrc by itself.
        if openFailed { snd_config_update_free_global() }
        var opened: OpaquePointer?
        let status = snd_pcm_open(&opened, device, SND_PCM_STREAM_PLAYBACK, 0)
        guard status == 0, let pcm = opened else {
            openFailed = true
            throw .unavailable("cannot open ALSA device \"\(device)\": \(Self.message(status))\(Self.openHint(status))")
        }
        openFailed = false
        do throws(AudioOutputError) {
            try configure(pcm, format)
        } catch {
            snd_pcm_close(pcm)
            throw error
        }
        state = .open(pcm: pcm, format: format)
    }

    public func write(_ samples: UnsafeBufferPointer<Int16>) throws(AudioOutputError) {
        guard case .open(let pcm, _) = state else {
            throw .failed("ALSA device \"\(device)\" written before it was opened")
        }
        let frames = samples.count / AudioFormat.channels
        var done = 0
        var failedRecoveries = 0
        while done < frames {
            let count = snd_pcm_writei(pcm, samples.baseAddress! + done * AudioFormat.channels, UInt(frames - done))
            if count >= 0 {
                // A short write (a signal, a recovered xrun) continues with the rest.
                done += count
                failedRecoveries = 0
                continue
            }
            let code = Int32(count)
            // -EPIPE (underrun), -ESTRPIPE (suspended), -EINTR: prepare or resume, then retry the
            // frames not yet taken. A device that keeps failing right after recovery is given up.
            failedRecoveries += 1
            if failedRecoveries <= 3, snd_pcm_recover(pcm, code, 1) == 0 { continue }
            close()
            switch -code {
            case ENODEV, EBADFD, EIO, ENXIO:
                throw .unavailable("ALSA device \"\(device)\" went away: \(Self.message(code))")
            default:
                throw .failed("ALSA device \"\(device)\" failed while playing: \(Self.message(code))")
            }
        }
    }

    public func drain() {
        guard case .open(let pcm, _) = state else { return }
        snd_pcm_drain(pcm)
        // A drained PCM is stopped (SETUP): writing to it would fail with -EBADFD.
        snd_pcm_prepare(pcm)
    }

    public func discard() {
        guard case .open(let pcm, _) = state else { return }
        snd_pcm_drop(pcm)
        snd_pcm_prepare(pcm)
    }

    /// Releases the device at once; what is still buffered is dropped (call `drain` first to hear it).
    public func close() {
        guard case .open(let pcm, _) = state else { return }
        snd_pcm_close(pcm)
        state = .closed
    }

    /// Interleaved native-endian 16-bit stereo at exactly `format`'s rate, ALSA's resampler
    /// allowed; playback starts once the buffer is full, so the first period does not underrun.
    private func configure(_ pcm: OpaquePointer, _ format: AudioFormat) throws(AudioOutputError) {
        var hardware: OpaquePointer?
        guard snd_pcm_hw_params_malloc(&hardware) == 0, let hardware else { throw .failed("out of memory") }
        defer { snd_pcm_hw_params_free(hardware) }
        try check(snd_pcm_hw_params_any(pcm, hardware), "read the device's capabilities")
        try check(snd_pcm_hw_params_set_rate_resample(pcm, hardware, 1), "allow resampling")
        try check(snd_pcm_hw_params_set_access(pcm, hardware, SND_PCM_ACCESS_RW_INTERLEAVED), "take interleaved audio")
        try check(snd_pcm_hw_params_set_format(pcm, hardware, SND_PCM_FORMAT_S16), "play 16-bit samples")
        try check(snd_pcm_hw_params_set_channels(pcm, hardware, UInt32(AudioFormat.channels)), "play stereo")
        let rate = UInt32(format.sampleRate)
        try check(snd_pcm_hw_params_set_rate(pcm, hardware, rate, 0), "play at \(rate) Hz")
        var time = UInt32(bufferTime)
        var direction: Int32 = 0
        try check(snd_pcm_hw_params_set_buffer_time_near(pcm, hardware, &time, &direction), "use a \(time) µs buffer")
        time = UInt32(periodTime)
        try check(snd_pcm_hw_params_set_period_time_near(pcm, hardware, &time, &direction), "use \(time) µs periods")
        try check(snd_pcm_hw_params(pcm, hardware), "apply \(format)")
        var bufferSize: snd_pcm_uframes_t = 0
        var periodSize: snd_pcm_uframes_t = 0
        snd_pcm_hw_params_get_buffer_size(hardware, &bufferSize)
        snd_pcm_hw_params_get_period_size(hardware, &periodSize, &direction)

        var software: OpaquePointer?
        guard snd_pcm_sw_params_malloc(&software) == 0, let software else { throw .failed("out of memory") }
        defer { snd_pcm_sw_params_free(software) }
        try check(snd_pcm_sw_params_current(pcm, software), "read its software parameters")
        try check(snd_pcm_sw_params_set_start_threshold(pcm, software, bufferSize), "set the start threshold")
        try check(snd_pcm_sw_params_set_avail_min(pcm, software, periodSize), "set the wake-up size")
        try check(snd_pcm_sw_params(pcm, software), "apply its software parameters")
    }

    private func check(_ status: Int32, _ what: String) throws(AudioOutputError) {
        guard status < 0 else { return }
        throw .failed("""
            ALSA device "\(device)" cannot \(what): \(Self.message(status)) \
            (a plughw: device or "default" converts what the card cannot play)
            """)
    }

    private static func message(_ status: Int32) -> String {
        String(cString: snd_strerror(status))
    }

    /// How to fix a failed `snd_pcm_open`, from its error code.
    private static func openHint(_ status: Int32) -> String {
        switch -status {
        case EBUSY: " (another program is using it: stop it, or play through \"default\" or a dmix device)"
        case EACCES, EPERM: " (is the user in the \"audio\" group?)"
        default: " (list the devices with `aplay -L`)"
        }
    }
}
