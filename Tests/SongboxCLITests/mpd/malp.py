"""M.A.L.P. (gateship-one/malp), the Android MPD client, as its source talks to a server
(mpdservice/mpdprotocol: MPDConnection.connectToServer, MPDInterface, MPDCommands), replayed on
raw sockets. Run by MPDServerTests as `python3 malp.py HOST PORT` against songbox and against
Debian's MPD on the same music: prints `ok PART` after each part and exits non-zero at the first
surprise (an ACK where M.A.L.P. expects none, a field its parser needs that is missing, or an
answer read one line late)."""
import sys

import rawmpd

host, port = sys.argv[1], int(sys.argv[2])
ALBUM = "Old Roads"
ARTIST = "Mabel Grey"


def ok(part):
    print("ok", part, flush=True)


def fields(lines, key):
    return [line.split(": ", 1)[1] for line in lines if line.startswith(key + ": ")]


main = rawmpd.Connection(f"{host}:{port}")

# connectToServer: after the greeting, the capabilities (`commands`, `tagtypes`), then idle.
commands = fields(main.run("commands"), "command")
for needed in ["list", "find", "search", "searchadd", "lsinfo", "playlistinfo", "listplaylists", "idle"]:
    assert needed in commands, needed
tags = fields(main.run("tagtypes"), "tagtype")
# MPDCapabilities: AlbumArtist and the MusicBrainz ids turn on its grouped lists.
assert {"AlbumArtist", "MUSICBRAINZ_ALBUMID", "MUSICBRAINZ_ARTISTID"} <= set(tags), tags
main.send("idle")
main.send("noidle")
assert main.answer()[-1] == "OK"
ok("connect")

# The now-playing view: status, current song, the queue (whole and a window), outputs, stats.
status = dict(line.split(": ", 1) for line in main.run("status"))
for key in ["repeat", "random", "single", "consume", "playlist", "playlistlength", "state"]:
    assert key in status, (key, status)
main.run("currentsong")
main.run("playlistinfo")
main.run("playlistinfo 0:10")
assert fields(main.run("outputs"), "outputname")
assert fields(main.run("stats"), "songs")
ok("status")

# The library as it browses it with AlbumArtist and MusicBrainz filtering (server >= 0.21).
albums = main.run("list album group albumartist group musicbrainz_albumid")
assert f"Album: {ALBUM}" in albums, albums
assert f"Artist: {ARTIST}" in main.run("list artist group MUSICBRAINZ_ARTISTID")
main.run("list albumartist group MUSICBRAINZ_ARTISTID")
assert f"Album: {ALBUM}" in main.run(f'list album artist "{ARTIST}" group AlbumArtist group musicbrainz_albumid')
main.run(f'list album AlbumArtist "{ARTIST}" group AlbumArtist group musicbrainz_albumid')
main.run(f'list album base "{ARTIST}" group albumartist group musicbrainz_albumid')
tracks = fields(main.run(f'find album "{ALBUM}"'), "file")
assert tracks, "the album's tracks"
assert fields(main.run('lsinfo ""'), "directory")
main.run(f'lsinfo "{ARTIST}"')
for kind in ["title", "album", "artist", "file", "any"]:
    main.run(f'search {kind} "road"')
main.run("listplaylists")
ok("library")

# Playing: add (at an index, with its two spaces), play, seek, pause, the modes, volume,
# outputs, a saved playlist, then clear.
main.run("clear")
main.run(f'add "{tracks[0]}"')
assert fields(main.run(f'addid "{tracks[-1]}"  0'), "Id")
main.run("play 0")
main.run("seek 0 1")
main.run("pause 1")
main.run("pause 0")
for mode in ["random", "repeat", "single", "consume"]:
    main.run(f"{mode} 1")
    main.run(f"{mode} 0")
# (The reference MPD plays to a null output without a mixer: `No mixer` is its answer there.)
main.send("setvol 40")
volume = main.answer()
assert volume == ["OK"] or volume == ["ACK [5@0] {setvol} No mixer"], volume
main.run("move 1 0")
main.run(f'playlistfind file "{tracks[0]}"')
main.run('save "malp test"')
main.run('listplaylistinfo "malp test"')
main.run(f'playlistadd "malp test" "{tracks[0]}"')
main.run('playlistdelete "malp test" 0')
main.run('load "malp test"')
main.run('rm "malp test"')
main.run(f'searchadd title "{ALBUM[:3]}"')
main.run("delete 0")
main.run("next")
main.run("previous")
main.run("stop")
main.run("clear")
ok("playing")

main.send("close")
