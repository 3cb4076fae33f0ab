"""The reference tools of bench/analysis-run, one tool per process, on a list of MP3 files.

usage: references.py TOOL FILE...   (TOOL: essentia, librosa, pyloudnorm)
Prints one JSON line per file: {"path", "tempo" or "loudness", "seconds" (load + analysis,
wall clock, interpreter start, imports and librosa's first-use compilation excluded), "audio"
(seconds of audio)}.
Single-threaded: the caller sets OMP_NUM_THREADS=1 and friends, for times-real-time per core.
"""
import json, sys, time

tool, files = sys.argv[1], sys.argv[2:]

if tool == 'essentia':
    import essentia.standard as es
    for path in files:
        start = time.perf_counter()
        stereo, rate, channels, _, _, _ = es.AudioLoader(filename=path)()
        mono = es.MonoMixer()(stereo, channels)
        if rate != 44100:
            mono = es.Resample(inputSampleRate=rate, outputSampleRate=44100)(mono)
        bpm = es.RhythmExtractor2013(method='multifeature')(mono)[0]
        loudness = es.LoudnessEBUR128(sampleRate=rate)(stereo)[2]
        seconds = time.perf_counter() - start
        print(json.dumps({'path': path, 'tempo': float(bpm), 'loudness': float(loudness), 'seconds': seconds,
                          'audio': len(mono) / 44100}), flush=True)
elif tool == 'librosa':
    import librosa
    import numpy
    # librosa compiles parts of itself (numba) on first use: once here, untimed.
    librosa.beat.beat_track(y=numpy.random.default_rng(1).uniform(-0.1, 0.1, 22050 * 5).astype(numpy.float32), sr=22050)
    for path in files:
        start = time.perf_counter()
        y, rate = librosa.load(path, sr=22050, mono=True)
        tempo, _ = librosa.beat.beat_track(y=y, sr=rate)
        seconds = time.perf_counter() - start
        print(json.dumps({'path': path, 'tempo': float(tempo[0] if hasattr(tempo, '__len__') else tempo),
                          'seconds': seconds, 'audio': len(y) / rate}), flush=True)
elif tool == 'pyloudnorm':
    import pyloudnorm, soundfile
    for path in files:
        start = time.perf_counter()
        data, rate = soundfile.read(path)
        loudness = pyloudnorm.Meter(rate).integrated_loudness(data)
        seconds = time.perf_counter() - start
        print(json.dumps({'path': path, 'loudness': float(loudness), 'seconds': seconds, 'audio': len(data) / rate}), flush=True)
else:
    sys.exit(f'unknown tool {tool}')
