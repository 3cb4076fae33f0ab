"""Writes the generated test signals of bench/analysis-run as 44.1 kHz stereo 16-bit WAVs.

usage: make-signals.py OUT_DIR          -> the tempo set (OUT_DIR/tempo/*.wav) and a listing
       make-signals.py --long OUT.wav   -> a 10-minute drum loop with noise (the speed file)

Each tempo file is named <kind>-<bpm>.wav; kinds: clicks (-6 dBFS), quiet (clicks at -30 dBFS),
noisy (clicks at -6 dBFS under noise at -20 dBFS RMS), drums (kick 1 and 3, snare 2 and 4,
hi-hat eighths), syncopated (an extra kick on the "and" of 2, hi-hat off-beats only).
The same signals as Tests/SongboxAnalysisTests/Signals.swift, with a fixed seed.
"""
import sys, wave
import numpy as np

RATE = 44100
rng = np.random.default_rng(12)


def write(path, mono):
    data = np.clip(np.round(mono * 32767), -32768, 32767).astype('<i2')
    stereo = np.repeat(data, 2)
    with wave.open(path, 'wb') as w:
        w.setnchannels(2)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(stereo.tobytes())


def clicks(bpm, seconds, db=-6.0, noise_db=None):
    n = int(seconds * RATE)
    out = np.zeros(n)
    amp = 10 ** (db / 20)
    length = int(0.03 * RATE)
    t = np.arange(length) / RATE
    burst = np.exp(-t / 0.005) * (0.6 * np.sin(2 * np.pi * 2000 * t) + 0.4 * rng.uniform(-1, 1, length))
    beat = 0.0
    while int(beat) < n:
        s = int(beat)
        e = min(n, s + length)
        out[s:e] += amp * burst[:e - s]
        beat += 60 / bpm * RATE
    if noise_db is not None:
        out += 10 ** (noise_db / 20) * np.sqrt(3) * rng.uniform(-1, 1, n)
    return out


def drums(bpm, seconds, db=-6.0, syncopated=False, noise_db=None):
    n = int(seconds * RATE)
    out = np.zeros(n)
    amp = 10 ** (db / 20)
    eighth = 60 / bpm / 2 * RATE
    kl = int(0.25 * RATE)
    kt = np.arange(kl) / RATE
    kick = np.exp(-kt * 12) * np.sin(np.cumsum(2 * np.pi * (50 + 100 * np.exp(-kt * 30)) / RATE))

    def burst(decay):
        length = int(decay * 4 * RATE)
        return np.exp(-np.arange(length) / (decay * RATE)) * rng.uniform(-1, 1, length)

    def add(start, sound, gain):
        e = min(n, start + len(sound))
        out[start:e] += gain * sound[:e - start]

    step = 0
    while int(step * eighth) < n:
        s = int(step * eighth)
        pos = step % 8
        if pos in (0, 4) or (syncopated and pos == 3):
            add(s, kick, amp * 0.9)
        if pos in (2, 6):
            add(s, burst(0.08), amp * 0.7)
        if not syncopated or pos % 2 == 1:
            add(s, burst(0.015), amp * 0.25)
        step += 1
    if noise_db is not None:
        out += 10 ** (noise_db / 20) * np.sqrt(3) * rng.uniform(-1, 1, n)
    return out


if __name__ == '__main__':
    if sys.argv[1] == '--long':
        write(sys.argv[2], drums(120, 600, noise_db=-30))
        sys.exit(0)
    out = sys.argv[1]
    for bpm in (60, 75, 90, 105, 120, 135, 150, 165, 180):
        write(f'{out}/clicks-{bpm}.wav', clicks(bpm, 30))
        write(f'{out}/quiet-{bpm}.wav', clicks(bpm, 30, db=-30))
        write(f'{out}/noisy-{bpm}.wav', clicks(bpm, 30, noise_db=-20))
        write(f'{out}/drums-{bpm}.wav', drums(bpm, 30))
        write(f'{out}/syncopated-{bpm}.wav', drums(bpm, 30, syncopated=True))
