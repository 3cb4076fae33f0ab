#!/usr/bin/env bash
# Generate the bundled example library in examples/music/:
#   examples/music/<Artist>/<Album>/NN - Title.mp3
# 16 short synthesized tracks (sox `synth`, encoded by lame at 48 kb/s, 44.1 kHz mono)
# by five fictional artists, Hebrew and English, 1964-2021, tagged with
# scripts/id3tag.py in a mix of ID3v2.3 UTF-16 and ID3v2.4 UTF-8, plus one
# legacy file whose Hebrew is Windows-1255 bytes in a "Latin-1" frame with an
# ID3v1.1 tag, as found in many Israeli collections.
#
# The output is deterministic: sox runs in repeatable mode (-R), lame's CBR
# encoder is deterministic and the tags contain no timestamps. Running the
# script twice produces byte-identical files.
#
# Usage: scripts/make-example-library.sh [OUTDIR]     (default examples/music)
# Needs: sox, lame, python3.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-$ROOT/examples/music}
ID3="python3 $ROOT/scripts/id3tag.py"

for tool in sox lame python3; do
    command -v "$tool" >/dev/null || { echo "error: $tool is required" >&2; exit 1; }
done

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# Start clean: remove previously generated tracks (README.md stays).
mkdir -p "$OUT"
find "$OUT" -name '*.mp3' -type f -delete
find "$OUT" -mindepth 1 -type d -empty -delete

# render WAV WAVE SECONDS_PER_CHORD CHORD...
#   Each CHORD is notes joined by '+', e.g. "D3+F3+A3"; "-" is a rest.
render() {
    local wav=$1 wave=$2 len=$3; shift 3
    local i=0 segs=() chord note args
    for chord in "$@"; do
        i=$((i + 1))
        if [[ $chord == - ]]; then
            sox -R -n -r 44100 -b 16 -c 1 "$TMP/seg$i.wav" trim 0 "$len"
        else
            args=()
            for note in ${chord//+/ }; do args+=("$wave" "$note"); done
            sox -R -n -r 44100 -b 16 -c 1 "$TMP/seg$i.wav" \
                synth "$len" "${args[@]}" remix - fade q 0.01 "$len" 0.08 gain -n -4
        fi
        segs+=("$TMP/seg$i.wav")
    done
    sox -R "${segs[@]}" "$wav" fade q 0 -0 0.3
    rm -f "${segs[@]}"
}

# song RELPATH WAVE SECONDS_PER_CHORD "CHORDS" [id3tag.py options...]
song() {
    local rel=$1 wave=$2 len=$3 chords=$4; shift 4
    local dest="$OUT/$rel"
    # shellcheck disable=SC2086  # chords are split on purpose
    render "$TMP/song.wav" "$wave" "$len" $chords
    lame --quiet --noreplaygain -b 48 -m m --resample 44.1 "$TMP/song.wav" "$TMP/song.mp3"
    mkdir -p "$(dirname "$dest")"
    $ID3 "$TMP/song.mp3" "$dest" "$@"
    echo "  $rel"
}

# A tiny deterministic 16x16 PNG for the one track with embedded cover art.
python3 - "$TMP/cover.png" <<'PY'
import struct, sys, zlib
w = h = 16
rows = b"".join(b"\x00" + b"".join(
    bytes((40 + 12 * x, 90 + 8 * y, 160)) for x in range(w)) for y in range(h))
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
       + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))
open(sys.argv[1], "wb").write(png)
PY

echo "writing $OUT"

# --- להקת הגליל — שירי העמק (1964, Folk) — ID3v2.3, UTF-16 with BOM -------
A=(--id3v2 3 --encoding 1 --artist "להקת הגליל" --album "שירי העמק" --year 1964 --genre Folk)
song "להקת הגליל/שירי העמק/01 - שיר העמק.mp3" pluck 0.6 \
    "D3+A3+D4 F4 A4 D4+F4+A4 C4+E4+G4 E4 G4 A3+C4+E4 D3+F3+A3" \
    "${A[@]}" --title "שיר העמק" --track 1/3
song "להקת הגליל/שירי העמק/02 - אַהֲבָה בַּגָּלִיל.mp3" pluck 0.5 \
    "A3+C4+E4 E4 A4 C5 G3+B3+D4 D4 G4 B4 F3+A3+C4 C4 A3+C4+E4 -" \
    "${A[@]}" --title "אַהֲבָה בַּגָּלִיל" --track 2/3
song "להקת הגליל/שירי העמק/03 - ערב על הכנרת.mp3" pluck 0.8 \
    "E3+G3+B3 B3 E4 G4 A3+C4+E4 B3+D4+F#4 E3+G3+B3" \
    "${A[@]}" --title "ערב על הכנרת" --track 3/3

# --- נגה שחר — אהבה ראשונה (1978, Pop) — ID3v2.4, UTF-8 ------------------
A=(--id3v2 4 --encoding 3 --artist "נגה שחר" --album-artist "נגה שחר"
   --album "אהבה ראשונה" --year 1978 --genre Pop)
song "נגה שחר/אהבה ראשונה/01 - אהבה ראשונה.mp3" triangle 0.5 \
    "C4+E4+G4 E4+G4+C5 A3+C4+E4 C4+E4+A4 F3+A3+C4 A3+C4+F4 G3+B3+D4 G3+B3+D4+F4 C4+E4+G4 C4+E4+G4" \
    "${A[@]}" --title "אהבה ראשונה" --track 1/3 --disc 1/1
song "נגה שחר/אהבה ראשונה/02 - והאהבה נשארה.mp3" triangle 0.6 \
    "F3+A3+C4 A4 C5 D3+F3+A3 F4 A4 B2+D3+F3 G3+B3+D4 C4+E4+G4" \
    "${A[@]}" --title "והאהבה נשארה" --track 2/3 --disc 1/1
song "נגה שחר/אהבה ראשונה/03 - שיר הערש.mp3" sine 1.0 \
    "G3+B3+D4 E4 C4+E4+G4 D4 G3+B3+D4 B3 C4+E4+G4" \
    "${A[@]}" --title "שיר הערש" --track 3/3 --disc 1/1 --language heb \
    --lyrics "$(printf '%s\n' \
        'לילה יורד על הגבעות' \
        'כוכבים נדלקים בחלון' \
        'עצמי עיניים, קטנה שלי' \
        'עד שיעלה האור' \
        '' \
        'הרוח שרה בין העצים' \
        'והירח שומר עלייך' \
        'נומי, נומי, קטנה שלי' \
        'עד שיעלה האור')"

# --- נגה שחר — ימים טובים (1996) — the legacy file -------------------------
# ID3v2.3 with text encoding 0 ("Latin-1") that really holds Windows-1255
# bytes, plus an ID3v1.1 tag in Windows-1255. A reader that trusts the
# encoding byte sees mojibake such as "éîéí èåáéí".
song "נגה שחר/ימים טובים/01 - ימים טובים.mp3" square 0.45 \
    "D4+F#4+A4 A4 F#4 D4 G3+B3+D4 D4 G4 B4 A3+C#4+E4 E4 D4+F#4+A4" \
    --id3v2 3 --encoding 0 --latin1-codec cp1255 \
    --title "ימים טובים" --artist "נגה שחר" --album "ימים טובים" \
    --year 1996 --genre Pop --track 1/1 \
    --id3v1 --v1-codec cp1255 --comment "מתוך הקלטת"

# --- מקהלת השחר — שירי לילה (1989, Children's) — ID3v2.3, UTF-16 ----------
A=(--id3v2 3 --encoding 1 --artist "מקהלת השחר" --album "שירי לילה"
   --year 1989 --genre "Children's" --padding 256)
song "מקהלת השחר/שירי לילה/01 - שיר לילה.mp3" sine 0.9 \
    "F3+A3+C4 C4+F4 A3+C4+F4 A#3+D4+F4 F3+A3+C4 C4+E4+G4" \
    "${A[@]}" --title "שיר לילה" --track 1/2
song "מקהלת השחר/שירי לילה/02 - ירח על הגג.mp3" sine 0.75 \
    "A3+C4+E4 B3+D4 C4+E4 E4+A4 D4+F4+A4 E4+G#4+B4 A3+C4+E4" \
    "${A[@]}" --title "ירח על הגג" --track 2/2

# --- The Lanterns — Morning Light (2014, Indie) — ID3v2.4, UTF-8 ----------
A=(--id3v2 4 --encoding 3 --artist "The Lanterns" --album-artist "The Lanterns"
   --album "Morning Light" --year 2014-05-02 --genre Indie)
song "The Lanterns/Morning Light/01 - Morning Light.mp3" pluck 0.4 \
    "G3+B3+D4 D4 G4 B4 D5 B4 C4+E4+G4 G4 E4 D4+F#4+A4 A4 G3+B3+D4 - -" \
    "${A[@]}" --title "Morning Light" --track 1/4 --isrc XXA001400001 \
    --picture "$TMP/cover.png"
song "The Lanterns/Morning Light/02 - Love in Spring.mp3" pluck 0.45 \
    "C4+E4+G4 G4 C5 E5 A3+C4+E4 E4 A4 C5 F3+A3+C4 C4 G3+B3+D4 C4+E4+G4" \
    "${A[@]}" --title "Love in Spring" --track 2/4 --isrc XXA001400002
song "The Lanterns/Morning Light/03 - Paper Boats.mp3" triangle 0.5 \
    "E4+G4+B4 B4 A4 G4 C4+E4+G4 D4+F#4+A4 E4+G4+B4 -" \
    "${A[@]}" --title "Paper Boats" --track 3/4 --isrc XXA001400003 \
    --comment "Recorded in one take at the kitchen table."
song "The Lanterns/Morning Light/04 - All the Lovers Came Home.mp3" pluck 0.5 \
    "D4+F#4+A4 A4 F#4 E4+G4+B4 B4 G4 A3+C#4+E4 D4+F#4+A4 D4+F#4+A4" \
    "${A[@]}" --title "All the Lovers Came Home" --track 4/4 --isrc XXA001400004 \
    --txxx "MOOD=warm"

# --- Mabel Grey — Old Roads (1967, Folk) — ID3v2.3, UTF-16 ----------------
A=(--id3v2 3 --encoding 1 --artist "Mabel Grey" --album "Old Roads"
   --year 1967 --genre Folk)
song "Mabel Grey/Old Roads/01 - Old Roads.mp3" pluck 0.7 \
    "A2+E3+A3 C4 E4 A4 D3+F3+A3 E3+G#3+B3 A2+E3+A3" \
    "${A[@]}" --title "Old Roads" --track 1/2
song "Mabel Grey/Old Roads/02 - The River's Lullaby.mp3" sine 0.8 \
    "D4+F4+A4 C4+E4+G4 A#3+D4+F4 A3+C#4+E4 D4+F4+A4 -" \
    "${A[@]}" --title "The River's Lullaby" --track 2/2

# --- Mabel Grey — Northern Skies (2021, Ambient) — ID3v2.4, UTF-8 ---------
A=(--id3v2 4 --encoding 3 --artist "Mabel Grey" --album "Northern Skies"
   --year 2021 --genre Ambient)
song "Mabel Grey/Northern Skies/01 - Northern Skies.mp3" sine 1.9 \
    "C3+G3+E4 A2+E3+C4 F2+C3+A3 G2+D3+B3" \
    "${A[@]}" --title "Northern Skies" --track 1/1

count=$(find "$OUT" -name '*.mp3' | wc -l)
size=$(du -sk "$OUT" | cut -f1)
echo "done: $count tracks, ${size} KB in $OUT"
