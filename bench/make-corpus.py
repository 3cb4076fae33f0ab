#!/usr/bin/env python3
"""Build a synthetic MP3 (or FLAC) corpus for the scan/search benchmarks.

    bench/make-corpus.py [N] [OUTDIR] [--seed S] [--audio FILE] [--manifest PATH]
                         [--format mp3|flac]

Writes N files (default 20000) as OUTDIR/<artist>/<album>/<nn title>.mp3.
The audio is ONE short clip (2 s of a sox chord, encoded once with lame at
32 kb/s mono) reused for every file; each file gets its own ID3v2.4 UTF-8
tag (TIT2 TPE1 TPE2 TALB TCON TDRC TRCK). With --format flac the clip is
encoded once with `flac` and each .flac file gets its own Vorbis comment
block (TITLE ARTIST ALBUMARTIST ALBUM GENRE DATE TRACKNUMBER TRACKTOTAL)
and 4 KB of padding, as taggers leave. 200 artists x 5 albums = 1000
albums of ~N/1000 tracks each; about 2 % of the titles contain "love"
(as "Love", "Lover", "Lovely", ...), every other word is chosen from a list
that contains no "love" anywhere, so the expected hit count is exact.
About a fifth of the artists, albums and titles are Hebrew.

Deterministic for a given N and seed. Prints a JSON summary (also written to
--manifest, default OUTDIR + ".json") with the file count, total bytes and
the number of titles that contain "love" (case-insensitive).

Needs sox and lame unless --audio gives an already encoded MP3 without tags.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import id3tag  # noqa: E402

CORPUS_VERSION = 1
ARTISTS = 200
ALBUMS_PER_ARTIST = 5

EN_WORDS = """
morning evening night river mountain ocean city street window garden summer
winter autumn rain snow wind fire stone silver golden blue green red black white
light shadow dream heart song dance road home train station harbour island
bridge tower bell candle lantern mirror letter story secret promise memory
echo thunder storm cloud star moon sun sky field forest meadow valley desert
sea shore wave sail ship anchor compass map journey traveller stranger friend
brother sister mother father child king queen soldier sailor dancer singer
painter poet thief angel ghost wolf fox bird raven sparrow swan horse tiger
little old young wild quiet loud slow fast broken hidden lost found last
first only every other distant bright dark cold warm sweet bitter empty
midnight dawn twilight yesterday tomorrow forever again always never
paper glass iron velvet cotton honey salt sugar coffee wine bread apple
orange lemon cherry rose lily violet ivy willow pine oak maple cedar
number letters signal radio motor engine machine circuit neon electric
highway avenue alley corner market square garden chapel
""".split()

HE_WORDS = """
בוקר ערב לילה נהר הר ים עיר רחוב חלון גן קיץ חורף סתיו גשם שלג רוח אש אבן
כסף זהב כחול ירוק אדום אור צל חלום לב שיר ריקוד דרך בית רכבת נמל אי גשר
מגדל פעמון נר פנס מראה מכתב סיפור סוד הבטחה זיכרון הד רעם סערה ענן כוכב
ירח שמש שמיים שדה יער עמק מדבר חוף גל מפרש ספינה עוגן מסע זר חבר אח אחות
אמא אבא ילד מלך מלכה חייל מלח רקדן זמר צייר משורר
""".split()

LOVE_WORDS = ["Love", "Lover", "Lovers", "Lovely", "Loved", "Loves"]

GENRES = ["Rock", "Pop", "Folk", "Jazz", "Blues", "Electronic", "Classical",
          "Country", "Hip-Hop", "Soul", "Reggae", "Metal", "Indie", "Ambient",
          "Mizrahi", "World"]

for _w in EN_WORDS + HE_WORDS + GENRES:
    assert "love" not in _w.lower(), _w


def encode_clip(fmt: str = "mp3", seconds: float = 2.0) -> bytes:
    """Make one short chord with sox and encode it (lame at 32 kb/s mono, or flac in
    stereo); return the encoded bytes."""
    encoder = "lame" if fmt == "mp3" else "flac"
    for tool in ("sox", encoder):
        if shutil.which(tool) is None:
            sys.exit(f"make-corpus: {tool} is required" + (" (or pass --audio FILE)" if fmt == "mp3" else ""))
    with tempfile.TemporaryDirectory() as tmp:
        wav, out = os.path.join(tmp, "clip.wav"), os.path.join(tmp, "clip." + fmt)
        channels = ["-c", "1"] if fmt == "mp3" else ["-c", "2"]
        chord = ["pluck", "A3", "pluck", "C#4", "pluck", "E4"] + (["remix", "-"] if fmt == "mp3" else [])
        subprocess.run(["sox", "-R", "-n", "-r", "44100", "-b", "16"] + channels + [wav, "synth", str(seconds)]
                       + chord + ["gain", "-n", "-3"], check=True)
        if fmt == "mp3":
            subprocess.run(["lame", "--quiet", "--noreplaygain", "-b", "32", "-m", "m",
                            "--resample", "44.1", wav, out], check=True)
        else:
            subprocess.run(["flac", "--silent", "-f", "--no-padding", "--no-seektable", "-o", out, wav], check=True)
        with open(out, "rb") as f:
            return f.read()


def flac_parts(data: bytes) -> tuple[bytes, bytes]:
    """A FLAC file's STREAMINFO block's body and its frames."""
    assert data[:4] == b"fLaC"
    offset, streaminfo = 4, b""
    while True:
        header = data[offset]
        length = int.from_bytes(data[offset + 1:offset + 4], "big")
        if header & 0x7F == 0:
            streaminfo = data[offset + 4:offset + 4 + length]
        offset += 4 + length
        if header & 0x80:
            return streaminfo, data[offset:]


def flac_file(streaminfo: bytes, frames: bytes, comments: list[tuple[str, str]]) -> bytes:
    """A FLAC file: STREAMINFO, a Vorbis comment block, padding, the frames."""
    def block(kind: int, body: bytes, last: bool = False) -> bytes:
        return bytes([kind | (0x80 if last else 0)]) + len(body).to_bytes(3, "big") + body
    vendor = b"songbox bench"
    body = len(vendor).to_bytes(4, "little") + vendor + len(comments).to_bytes(4, "little")
    for key, value in comments:
        entry = f"{key}={value}".encode()
        body += len(entry).to_bytes(4, "little") + entry
    return b"fLaC" + block(0, streaminfo) + block(4, body) + block(1, bytes(4096), last=True) + frames


def phrase(rng: random.Random, hebrew: bool, lo: int, hi: int) -> str:
    words = HE_WORDS if hebrew else EN_WORDS
    out = [rng.choice(words) for _ in range(rng.randint(lo, hi))]
    return " ".join(out) if hebrew else " ".join(w.capitalize() for w in out)


def plan(n: int, seed: int):
    """Yield (artist, album, year, genre, track_no, track_total, title) for n tracks."""
    rng = random.Random(seed)
    albums_total = min(ARTISTS * ALBUMS_PER_ARTIST, n)
    base, extra = divmod(n, albums_total)
    seen_artists, seen_albums = set(), set()
    artists = []
    for a in range(ARTISTS):
        hebrew = a % 5 == 4
        while True:
            name = phrase(rng, hebrew, 1, 3)
            name = name if hebrew or rng.random() < 0.6 else "The " + name + "s"
            if name not in seen_artists:
                break
        seen_artists.add(name)
        artists.append((name, hebrew, rng.choice(GENRES), rng.randint(1960, 2018)))
    for al in range(albums_total):
        artist, hebrew, genre, debut = artists[al // ALBUMS_PER_ARTIST]
        while True:
            album = phrase(rng, hebrew, 1, 3)
            if (artist, album) not in seen_albums:
                break
        seen_albums.add((artist, album))
        year = min(2024, debut + (al % ALBUMS_PER_ARTIST) * rng.randint(1, 3))
        count = base + (1 if al < extra else 0)
        for t in range(1, count + 1):
            if rng.random() < 0.02:
                words = [rng.choice(EN_WORDS).capitalize() for _ in range(rng.randint(0, 2))]
                words.insert(rng.randint(0, len(words)), rng.choice(LOVE_WORDS))
                title = " ".join(words)
            else:
                title = phrase(rng, hebrew and rng.random() < 0.8, 1, 4)
            yield artist, album, year, genre, t, count, title


def safe(name: str) -> str:
    return name.replace("/", "-").replace("\x00", "")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("n", nargs="?", type=int, default=20000)
    p.add_argument("outdir", nargs="?", default="bench/work/corpus")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--audio", help="reuse this untagged MP3 instead of encoding a clip")
    p.add_argument("--manifest", help="where to write the JSON summary (default OUTDIR.json)")
    p.add_argument("--format", choices=["mp3", "flac"], default="mp3")
    args = p.parse_args()
    if args.n < 1:
        p.error("N must be positive")

    start = time.monotonic()
    if args.format == "flac":
        streaminfo, audio = flac_parts(encode_clip("flac"))
    else:
        audio = open(args.audio, "rb").read() if args.audio else encode_clip()
        audio = id3tag.strip_tags(audio)

    if os.path.exists(args.outdir) and os.listdir(args.outdir):
        sys.exit(f"make-corpus: {args.outdir} exists and is not empty; remove it first")
    os.makedirs(args.outdir, exist_ok=True)

    files = total = love = 0
    made_dirs, used_artists = set(), set()
    for artist, album, year, genre, t, count, title in plan(args.n, args.seed):
        d = os.path.join(args.outdir, safe(artist), safe(album))
        if d not in made_dirs:
            os.makedirs(d, exist_ok=True)
            made_dirs.add(d)
            used_artists.add(artist)
        if args.format == "flac":
            data = flac_file(streaminfo, audio, [
                ("TITLE", title), ("ARTIST", artist), ("ALBUMARTIST", artist), ("ALBUM", album),
                ("GENRE", genre), ("DATE", str(year)), ("TRACKNUMBER", str(t)), ("TRACKTOTAL", str(count))])
        else:
            data = id3tag.build_id3v2([
                id3tag.text_frame("TIT2", title),
                id3tag.text_frame("TPE1", artist),
                id3tag.text_frame("TPE2", artist),
                id3tag.text_frame("TALB", album),
                id3tag.text_frame("TCON", genre),
                id3tag.text_frame("TDRC", str(year)),
                id3tag.text_frame("TRCK", f"{t}/{count}"),
            ], version=4) + audio
        with open(os.path.join(d, f"{t:02d} {safe(title)}.{args.format}"), "wb") as f:
            f.write(data)
        files += 1
        total += len(data)
        love += "love" in title.lower()

    summary = {
        "version": CORPUS_VERSION, "format": args.format, "files": files, "seed": args.seed,
        "artists": len(used_artists), "albums": len(made_dirs),
        "bytes": total, "audio_bytes": len(audio), "love_titles": love,
        "seconds": round(time.monotonic() - start, 2),
    }
    text = json.dumps(summary)
    with open(args.manifest or args.outdir.rstrip("/") + ".json", "w") as f:
        f.write(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
