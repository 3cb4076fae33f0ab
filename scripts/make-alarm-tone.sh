#!/usr/bin/env bash
# The bundled alarm tone (plugins/alarm-tone.mp3): what an alarm plays when its own music
# cannot. Three seconds of 880 Hz beeps, loud enough to wake; small enough to commit.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
sox -n -r 44100 -c 1 -b 16 "$work/beep.wav" synth 0.18 sine 880 fade q 0.01 0.18 0.02 pad 0 0.12
sox -n -r 44100 -c 1 -b 16 "$work/gap.wav" trim 0 0.6
sox "$work/beep.wav" "$work/beep.wav" "$work/beep.wav" "$work/gap.wav" \
    "$work/beep.wav" "$work/beep.wav" "$work/beep.wav" "$work/gap.wav" "$work/tone.wav" vol 0.7
lame --quiet -b 32 -m m --tt "songbox alarm tone" --ta songbox "$work/tone.wav" plugins/alarm-tone.mp3
