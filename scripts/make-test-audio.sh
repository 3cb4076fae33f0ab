#!/bin/sh
# Regenerates the tiny, tag-free MP3 fixtures in Tests/Fixtures/audio/.
#
# Needs sox and lame (Debian: apt-get install sox lame). mpg123 is used only to
# print what each file decodes to, for Tests/Fixtures/audio/README.md.
#
# The output is deterministic: sox runs repeatable (-R) without dither (-D),
# and lame writes no ID3 tag unless it is given a tag option (none are given).
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/Tests/Fixtures/audio"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
mkdir -p "$out"

for tool in sox lame; do
    command -v "$tool" >/dev/null || { echo "make-test-audio: '$tool' not found" >&2; exit 1; }
done

# sox -n <rate> <channels> <seconds> <synth args...>: a 16-bit WAV sine tone.
tone() {
    wav=$1; rate=$2; channels=$3; seconds=$4; shift 4
    sox -R -D -n -r "$rate" -c "$channels" -b 16 "$wav" synth "$seconds" "$@" vol 0.5
}

# 1.0 s, 44.1 kHz mono, CBR, with lame's Info/LAME header (encoder delay and padding).
# 56 kbps, not 32: lame leaves out the Info/LAME header when it does not fit in
# one frame, and a 32 (or 48) kbps MPEG-1 mono frame (104/156 bytes) is smaller
# than the header (177 bytes). --resample keeps lame from lowering the rate.
tone "$work/mono.wav" 44100 1 1.0 sine 440
lame --quiet -m m -b 56 --cbr --resample 44.1 "$work/mono.wav" "$out/tone-mono-44k.mp3"

# 2.0 s, 48 kHz stereo, VBR -V 9 (Xing/LAME header), left 440 Hz, right 660 Hz.
tone "$work/stereo.wav" 48000 2 2.0 sine 440 sine 660
lame --quiet -V 9 --resample 48 "$work/stereo.wav" "$out/tone-stereo-48k-vbr.mp3"

# 1.5 s, 22.05 kHz mono, CBR 32 kbps, -t: NO Xing/Info/LAME header, so a decoder
# cannot know the encoder delay or padding.
tone "$work/nolame.wav" 22050 1 1.5 sine 330
lame --quiet -t -m m -b 32 --cbr --resample 22.05 "$work/nolame.wav" "$out/tone-22k-nolame.mp3"

# Refuse to leave a tagged fixture behind.
for f in "$out"/*.mp3; do
    if [ "$(head -c 3 "$f")" = "ID3" ] || [ "$(tail -c 128 "$f" | head -c 3)" = "TAG" ]; then
        echo "make-test-audio: $f has an ID3 tag" >&2; exit 1
    fi
done

if command -v mpg123 >/dev/null; then
    for f in "$out"/*.mp3; do
        for mode in --gapless --no-gapless; do
            mpg123 -q $mode -w "$work/x.wav" "$f"
            # soxi -s: length in samples per channel.
            echo "$(basename "$f") $mode: $(soxi -s "$work/x.wav") samples," \
                "$(soxi -r "$work/x.wav") Hz, $(soxi -c "$work/x.wav") ch, $(wc -c <"$f") bytes"
        done
    done
fi
