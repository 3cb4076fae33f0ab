#!/bin/sh
# The bundled chime (plugins/chime.mp3): what an announcement plays first with --chime
# (docs/player.md#announcements). Two falling notes, a second, mono; made with sox and lame.
set -eu
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sox -R -D -n -r 44100 -c 1 -b 16 "$work/chime.wav" synth 0.35 sine 880 fade l 0.005 0.35 0.3 vol 0.4 : synth 0.6 sine 660 fade l 0.005 0.6 0.55 vol 0.4
lame --quiet -b 48 --tt "songbox chime" --ta songbox "$work/chime.wav" plugins/chime.mp3
