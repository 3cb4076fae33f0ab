#!/usr/bin/env python3
"""A tiny, dependency-free ID3 tag writer (ID3v2.3, ID3v2.4 and ID3v1.1).

It exists to build test fixtures and the bundled example library, so it
writes tags exactly as asked -- including the odd encodings found in real
collections (UTF-16 with a BOM, UTF-16BE, UTF-8, and "Latin-1" frames that
really hold Windows-1255 Hebrew bytes) -- and never tries to be clever.

Library use::

    import id3tag
    tag = id3tag.build_id3v2(
        [id3tag.text_frame("TIT2", "Morning Light", encoding=3),
         id3tag.text_frame("TPE1", "The Lanterns", encoding=3)],
        version=4)
    mp3 = id3tag.tag_mp3(open("raw.mp3", "rb").read(), id3v2=tag)

Command line (see ``--help``)::

    python3 scripts/id3tag.py IN.mp3 OUT.mp3 --id3v2 4 --encoding 3 \\
        --title "Morning Light" --artist "The Lanterns" --track 1/4

Frames supported: any text frame (T*** except TXXX, e.g. TIT2 TPE1 TALB TPE2
TCON TYER TDRC TRCK TPOS TSRC), TXXX, COMM, USLT and APIC.

Text encodings (the first byte of an ID3v2 text-bearing frame):

====  ====================  =================================
 0    ISO-8859-1 (Latin-1)  v2.3 and v2.4; ``bytes`` values are written raw
 1    UTF-16 with BOM       v2.3 and v2.4 (written little-endian, BOM FF FE)
 2    UTF-16BE, no BOM      v2.4 only
 3    UTF-8                 v2.4 only
====  ====================  =================================

Nothing here unsynchronises, compresses or encrypts frames, and every frame
has zero flags.  Output is a pure function of the input: no timestamps.
"""

from __future__ import annotations

import argparse
import struct
import sys
from typing import Iterable, Optional, Sequence, Union

Text = Union[str, bytes]

LATIN1, UTF16, UTF16BE, UTF8 = 0, 1, 2, 3

#: Encodings each ID3v2 minor version allows.
ALLOWED_ENCODINGS = {3: (LATIN1, UTF16), 4: (LATIN1, UTF16, UTF16BE, UTF8)}

#: ID3v1 genres 0-83 (the original list plus the first Winamp additions).
ID3V1_GENRES = (
    "Blues", "Classic Rock", "Country", "Dance", "Disco", "Funk", "Grunge",
    "Hip-Hop", "Jazz", "Metal", "New Age", "Oldies", "Other", "Pop", "R&B",
    "Rap", "Reggae", "Rock", "Techno", "Industrial", "Alternative", "Ska",
    "Death Metal", "Pranks", "Soundtrack", "Euro-Techno", "Ambient",
    "Trip-Hop", "Vocal", "Jazz+Funk", "Fusion", "Trance", "Classical",
    "Instrumental", "Acid", "House", "Game", "Sound Clip", "Gospel", "Noise",
    "AlternRock", "Bass", "Soul", "Punk", "Space", "Meditative",
    "Instrumental Pop", "Instrumental Rock", "Ethnic", "Gothic", "Darkwave",
    "Techno-Industrial", "Electronic", "Pop-Folk", "Eurodance", "Dream",
    "Southern Rock", "Comedy", "Cult", "Gangsta", "Top 40", "Christian Rap",
    "Pop/Funk", "Jungle", "Native American", "Cabaret", "New Wave",
    "Psychadelic", "Rave", "Showtunes", "Trailer", "Lo-Fi", "Tribal",
    "Acid Punk", "Acid Jazz", "Polka", "Retro", "Musical", "Rock & Roll",
    "Hard Rock", "Folk", "Folk-Rock", "National Folk", "Swing",
)


# --------------------------------------------------------------------------
# low-level encoding helpers
# --------------------------------------------------------------------------

def synchsafe(n: int) -> bytes:
    """Encode ``n`` (< 2**28) as a 4-byte synchsafe integer (7 bits a byte)."""
    if not 0 <= n < (1 << 28):
        raise ValueError(f"size {n} does not fit in a synchsafe integer")
    return bytes(((n >> 21) & 0x7F, (n >> 14) & 0x7F, (n >> 7) & 0x7F, n & 0x7F))


def encode_text(value: Text, encoding: int, terminate: bool = False) -> bytes:
    """Encode one string in an ID3v2 text encoding.

    ``bytes`` values are only accepted with encoding 0 and are written
    verbatim: that is how a legacy tagger's Windows-1255 (or any 8-bit code
    page) text ends up inside a frame that claims to be Latin-1.
    ``terminate`` appends the encoding's null terminator (1 or 2 bytes).
    """
    if isinstance(value, bytes):
        if encoding != LATIN1:
            raise ValueError("raw bytes can only be written with encoding 0")
        data = value
    elif encoding == LATIN1:
        data = value.encode("latin-1")
    elif encoding == UTF16:
        data = b"\xff\xfe" + value.encode("utf-16-le")
    elif encoding == UTF16BE:
        data = value.encode("utf-16-be")
    elif encoding == UTF8:
        data = value.encode("utf-8")
    else:
        raise ValueError(f"unknown text encoding {encoding}")
    if terminate:
        data += b"\x00\x00" if encoding in (UTF16, UTF16BE) else b"\x00"
    return data


def _join_values(values: Union[Text, Sequence[Text]], encoding: int, version: int) -> bytes:
    """Encode one or several values of a text frame.

    ID3v2.4 separates multiple values with a null; ID3v2.3 has no such
    notion, so several values are joined with " / " there.
    """
    if isinstance(values, (str, bytes)):
        return encode_text(values, encoding)
    values = list(values)
    if version == 3:
        if any(isinstance(v, bytes) for v in values):
            return b" / ".join(encode_text(v, encoding) for v in values)
        return encode_text(" / ".join(values), encoding)
    parts = [encode_text(v, encoding, terminate=i < len(values) - 1)
             for i, v in enumerate(values)]
    return b"".join(parts)  # with encoding 1 each value carries its own BOM


# --------------------------------------------------------------------------
# frames
# --------------------------------------------------------------------------

class Frame:
    """An ID3v2 frame body that is not yet bound to a tag version.

    ``body(version)`` returns the encoded payload; a frame whose encoding the
    version does not allow raises ``ValueError`` when the tag is built.
    """

    def __init__(self, frame_id: str, encoding: Optional[int], render):
        if len(frame_id) != 4 or not all(c.isdigit() or "A" <= c <= "Z" for c in frame_id):
            raise ValueError(f"bad frame id {frame_id!r}")
        self.frame_id = frame_id
        self.encoding = encoding
        self._render = render

    def body(self, version: int) -> bytes:
        if self.encoding is not None and self.encoding not in ALLOWED_ENCODINGS[version]:
            raise ValueError(
                f"{self.frame_id}: encoding {self.encoding} is not allowed in ID3v2.{version}")
        return self._render(version)

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Frame({self.frame_id!r}, encoding={self.encoding})"


def text_frame(frame_id: str, value: Union[Text, Sequence[Text]], encoding: int = UTF8) -> Frame:
    """A text information frame (TIT2, TPE1, TALB, TPE2, TCON, TYER, TDRC,
    TRCK, TPOS, TSRC, ...): encoding byte + text.  ``value`` may be a list for
    multi-valued frames.  No trailing terminator is written."""
    if not frame_id.startswith("T") or frame_id == "TXXX":
        raise ValueError(f"{frame_id} is not a plain text frame (use txxx_frame for TXXX)")
    return Frame(frame_id, encoding,
                 lambda v: bytes((encoding,)) + _join_values(value, encoding, v))


def txxx_frame(description: Text, value: Text, encoding: int = UTF8) -> Frame:
    """A user-defined text frame: encoding, description + terminator, value."""
    return Frame("TXXX", encoding, lambda v: bytes((encoding,))
                 + encode_text(description, encoding, terminate=True)
                 + encode_text(value, encoding))


def _lang(language: str) -> bytes:
    lang = language.encode("ascii")
    if len(lang) != 3:
        raise ValueError(f"language must be a 3-letter ISO-639-2 code, got {language!r}")
    return lang


def comment_frame(text: Text, language: str = "eng", description: Text = "",
                  encoding: int = UTF8) -> Frame:
    """A COMM frame: encoding, language, short description + terminator, text."""
    return Frame("COMM", encoding, lambda v: bytes((encoding,)) + _lang(language)
                 + encode_text(description, encoding, terminate=True)
                 + encode_text(text, encoding))


def lyrics_frame(text: Text, language: str = "eng", description: Text = "",
                 encoding: int = UTF8) -> Frame:
    """A USLT (unsynchronised lyrics) frame; same layout as COMM."""
    return Frame("USLT", encoding, lambda v: bytes((encoding,)) + _lang(language)
                 + encode_text(description, encoding, terminate=True)
                 + encode_text(text, encoding))


def picture_frame(data: bytes, mime: str = "image/png", picture_type: int = 3,
                  description: Text = "", encoding: int = LATIN1) -> Frame:
    """An APIC frame: encoding, MIME type (Latin-1) + 0, picture type
    (3 = front cover), description + terminator, image bytes."""
    if not 0 <= picture_type <= 20:
        raise ValueError("picture type must be 0..20")
    return Frame("APIC", encoding, lambda v: bytes((encoding,))
                 + mime.encode("latin-1") + b"\x00" + bytes((picture_type,))
                 + encode_text(description, encoding, terminate=True) + data)


# --------------------------------------------------------------------------
# whole tags
# --------------------------------------------------------------------------

def build_id3v2(frames: Iterable[Frame], version: int = 4, padding: int = 0) -> bytes:
    """Build a complete ID3v2.``version`` tag (header + frames + padding).

    ``version`` is 3 or 4.  Frame sizes are plain 32-bit big-endian integers
    in v2.3 and synchsafe integers in v2.4; the tag size is synchsafe in both.
    ``padding`` zero bytes follow the last frame.
    """
    if version not in (3, 4):
        raise ValueError("ID3v2 version must be 3 or 4")
    out = bytearray()
    for frame in frames:
        body = frame.body(version)
        size = synchsafe(len(body)) if version == 4 else struct.pack(">I", len(body))
        out += frame.frame_id.encode("ascii") + size + b"\x00\x00" + body
    out += b"\x00" * padding
    return b"ID3" + bytes((version, 0, 0)) + synchsafe(len(out)) + bytes(out)


def _v1_field(value: Optional[Text], length: int, codec: str) -> bytes:
    if value is None:
        data = b""
    elif isinstance(value, bytes):
        data = value
    else:
        data = value.encode(codec, errors="replace")
    return data[:length].ljust(length, b"\x00")


def genre_index(genre: Union[int, str, None]) -> int:
    """ID3v1 genre byte for a genre name or number; 255 = none/unknown."""
    if genre is None:
        return 255
    if isinstance(genre, int):
        return genre
    for i, name in enumerate(ID3V1_GENRES):
        if name.lower() == genre.lower():
            return i
    return 255


def build_id3v1(title: Optional[Text] = None, artist: Optional[Text] = None,
                album: Optional[Text] = None, year: Optional[Text] = None,
                comment: Optional[Text] = None, track: Optional[int] = None,
                genre: Union[int, str, None] = None, codec: str = "latin-1") -> bytes:
    """Build a 128-byte ID3v1 (or v1.1, when ``track`` is given) tag.

    Strings are encoded with ``codec`` (e.g. ``"cp1255"`` for the Hebrew
    Windows code page that old Israeli rips use); ``bytes`` are written raw.
    Fields are truncated or null-padded to 30/30/30/4/28-or-30 bytes.
    """
    out = b"TAG" + _v1_field(title, 30, codec) + _v1_field(artist, 30, codec) \
        + _v1_field(album, 30, codec) + _v1_field(year, 4, codec)
    if track is not None:
        if not 0 <= track <= 255:
            raise ValueError("ID3v1.1 track must be 0..255")
        out += _v1_field(comment, 28, codec) + b"\x00" + bytes((track,))
    else:
        out += _v1_field(comment, 30, codec)
    out += bytes((genre_index(genre),))
    assert len(out) == 128
    return out


def has_tags(data: bytes) -> bool:
    """True if ``data`` starts with an ID3v2 tag or ends with an ID3v1 tag."""
    return data[:3] == b"ID3" or (len(data) >= 128 and data[-128:-125] == b"TAG")


def strip_tags(data: bytes) -> bytes:
    """Remove a leading ID3v2 tag (with footer, if any) and a trailing ID3v1 tag."""
    if data[:3] == b"ID3" and len(data) >= 10:
        size = (data[6] << 21) | (data[7] << 14) | (data[8] << 7) | data[9]
        footer = 10 if data[3] == 4 and data[5] & 0x10 else 0
        data = data[10 + size + footer:]
    if len(data) >= 128 and data[-128:-125] == b"TAG":
        data = data[:-128]
    return data


def tag_mp3(audio: bytes, id3v2: Optional[bytes] = None, id3v1: Optional[bytes] = None) -> bytes:
    """Return ``id3v2 + audio + id3v1`` for an MP3 that has no tags yet.

    Raises ``ValueError`` if ``audio`` already carries a tag (use
    ``strip_tags`` first if that is what you want).
    """
    if has_tags(audio):
        raise ValueError("audio already has an ID3 tag; call strip_tags() first")
    return (id3v2 or b"") + audio + (id3v1 or b"")


# --------------------------------------------------------------------------
# command line
# --------------------------------------------------------------------------

def _main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(
        description="Write ID3v2.3/2.4 and ID3v1.1 tags onto an untagged MP3.")
    p.add_argument("input", help="MP3 without tags ('-' for stdin)")
    p.add_argument("output", help="where to write the tagged MP3 ('-' for stdout)")
    p.add_argument("--id3v2", choices=("3", "4", "none"), default="4",
                   help="ID3v2 minor version to write, or none (default 4)")
    p.add_argument("--encoding", type=int, choices=(0, 1, 2, 3), default=None,
                   help="text encoding: 0 Latin-1, 1 UTF-16+BOM, 2 UTF-16BE, 3 UTF-8 "
                        "(default 3 for v2.4, 1 for v2.3)")
    p.add_argument("--latin1-codec", default=None, metavar="CODEC",
                   help="with --encoding 0, encode text with this code page instead "
                        "(e.g. cp1255) and write the bytes raw: a mislabelled legacy tag")
    p.add_argument("--padding", type=int, default=0, help="zero bytes after the frames")
    for name, fid in (("title", "TIT2"), ("artist", "TPE1"), ("album", "TALB"),
                      ("album-artist", "TPE2"), ("genre", "TCON"), ("track", "TRCK"),
                      ("disc", "TPOS"), ("isrc", "TSRC")):
        p.add_argument(f"--{name}", help=f"{fid}")
    p.add_argument("--year", help="TYER in v2.3, TDRC in v2.4")
    p.add_argument("--comment", help="COMM text")
    p.add_argument("--lyrics", help="USLT text")
    p.add_argument("--lyrics-file", help="USLT text read from a UTF-8 file")
    p.add_argument("--language", default="eng", help="COMM/USLT language (default eng)")
    p.add_argument("--txxx", action="append", default=[], metavar="DESC=VALUE",
                   help="a TXXX frame (repeatable)")
    p.add_argument("--frame", action="append", default=[], metavar="TXXX=VALUE",
                   help="any other text frame, e.g. --frame TCOM=Someone (repeatable)")
    p.add_argument("--picture", help="image file for an APIC front-cover frame")
    p.add_argument("--picture-mime", default="image/png")
    p.add_argument("--id3v1", action="store_true", help="also append an ID3v1.1 tag")
    p.add_argument("--v1-codec", default="latin-1",
                   help="code page for the ID3v1 strings (e.g. cp1255); default latin-1")
    args = p.parse_args(argv)

    audio = sys.stdin.buffer.read() if args.input == "-" else open(args.input, "rb").read()

    v2 = None
    if args.id3v2 != "none":
        version = int(args.id3v2)
        enc = args.encoding if args.encoding is not None else (UTF8 if version == 4 else UTF16)

        def t(s: str) -> Text:
            if enc == LATIN1 and args.latin1_codec:
                return s.encode(args.latin1_codec)
            return s

        frames = []
        for attr, fid in (("title", "TIT2"), ("artist", "TPE1"), ("album", "TALB"),
                          ("album_artist", "TPE2"), ("genre", "TCON"), ("track", "TRCK"),
                          ("disc", "TPOS"), ("isrc", "TSRC")):
            val = getattr(args, attr)
            if val is not None:
                frames.append(text_frame(fid, t(val), enc))
        if args.year is not None:
            frames.append(text_frame("TDRC" if version == 4 else "TYER", t(args.year), enc))
        for item in args.frame:
            fid, _, val = item.partition("=")
            frames.append(text_frame(fid, t(val), enc))
        for item in args.txxx:
            desc, _, val = item.partition("=")
            frames.append(txxx_frame(t(desc), t(val), enc))
        if args.comment is not None:
            frames.append(comment_frame(t(args.comment), args.language, encoding=enc))
        lyrics = args.lyrics
        if args.lyrics_file:
            lyrics = open(args.lyrics_file, encoding="utf-8").read()
        if lyrics is not None:
            frames.append(lyrics_frame(t(lyrics), args.language, encoding=enc))
        if args.picture:
            frames.append(picture_frame(open(args.picture, "rb").read(), args.picture_mime))
        v2 = build_id3v2(frames, version, args.padding)

    v1 = None
    if args.id3v1:
        track = None
        if args.track:
            try:
                track = int(args.track.split("/")[0])
            except ValueError:
                track = None
        v1 = build_id3v1(args.title, args.artist, args.album,
                         (args.year or "")[:4] or None, args.comment, track,
                         args.genre, codec=args.v1_codec)

    data = tag_mp3(audio, v2, v1)
    if args.output == "-":
        sys.stdout.buffer.write(data)
    else:
        with open(args.output, "wb") as f:
            f.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(_main())
