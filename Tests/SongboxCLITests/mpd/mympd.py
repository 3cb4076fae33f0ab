"""myMPD (v25) as it talks to an MPD 0.23 server, replayed on raw sockets from its source
(jcorporation/myMPD: src/mympd_client/partitions.c partitions_connect, connection.c,
features.c, tags.c, idle.c, stickerdb.c). Run by MyMPDTests.swift as
`python3 mympd.py HOST PORT songbox|mpd [PART...]` against songbox and against Debian's MPD:
runs the parts named (all when none: start-up, idle, stickers; `mpd24`, myMPD's paths for an
MPD 0.24 server, against songbox only), prints `ok PART` after each and
exits non-zero at the first surprise (an ACK where myMPD expects none, or an answer read one
line late)."""
import sys
import time

import rawmpd

host, port, server = sys.argv[1], int(sys.argv[2]), sys.argv[3]
parts = sys.argv[4:] or ["start-up", "idle", "stickers"]
SONG = "Mabel Grey/Old Roads/02 - The River's Lullaby.mp3"
# The idle mask of myMPD's default partition (partition_state.c), in libmpdclient's order.
MAIN_IDLE = "idle database stored_playlist playlist player mixer output options update subscription message partition neighbor mount"


class Connection(rawmpd.Connection):
    def __init__(self):
        super().__init__(f"{host}:{port}")


def ok(part):
    print("ok", part, flush=True)


def sticker_connection():
    """myMPD's second connection (stickerdb_connect): `commands` has `sticker`, then it idles."""
    stickers = Connection()
    assert "command: sticker" in stickers.run("commands")
    stickers.send("idle sticker")
    return stickers


def start_up():
    """The main connection's start-up, as partitions_connect runs it, and the sticker connection's."""
    main = Connection()
    # mympd_client_set_protocol_options: binarylimit in a command list (server >= 0.22.4).
    main.run("command_list_begin", "binarylimit 8192", "command_list_end")
    # features_commands: `commands`, looked through for listplaylists, getfingerprint, mount, listneighbors.
    commands = [line.split(": ", 1)[1] for line in main.run("commands")]
    assert "listplaylists" in commands and "sticker" in commands, commands
    # features_mpd_tags (< 0.24): all tag types, then the list.
    main.run("tagtypes all")
    tags = [line.split(": ", 1)[1] for line in main.run("tagtypes")]
    assert {"Artist", "Album", "AlbumArtist", "Title", "Genre"} <= set(tags), tags
    # enable_mpd_tags (< 0.24): clear and enable its tags in one command list.
    main.run("command_list_begin", "tagtypes clear",
             'tagtypes enable "Album" "AlbumArtist" "Artist" "Genre" "Title" "Track" "Date" "Disc"', "command_list_end")
    # mympd_client_get_db_mtime, then partitions_populate.
    assert any(line.startswith("db_update: ") for line in main.run("stats"))
    assert main.run("listpartitions") == ["partition: default"]
    # mympd_api_status_get: status, then the current song.
    assert any(line.startswith("state: ") for line in main.run("status"))
    main.run("currentsong")
    # The status and current song in one list (mympd_api_status_current_song).
    main.run("command_list_ok_begin", "status", "currentsong", "command_list_end")
    main.send(MAIN_IDLE)
    sticker_connection()
    ok("start-up")


def idle():
    # An event wakes the main idle; myMPD sends `noidle` after it woke (idle.c: it reads the
    # socket only after noidle), then its next command: the answer it reads must be that command's.
    main = Connection()
    main.send(MAIN_IDLE)
    other = Connection()
    other.run("repeat 1")
    assert main.answer() == ["changed: options", "OK"]
    main.send("noidle")
    status = main.run("status")
    assert "repeat: 1" in status, status
    other.run("repeat 0")
    assert main.run("ping") == []
    main.send(MAIN_IDLE)
    # Idle on every name MPD knows, used or not; an unknown one is refused as MPD refuses it.
    fresh = Connection()   # nothing pending for it (a client hears of its own changes too)
    fresh.send("idle database update stored_playlist playlist player mixer output options partition sticker subscription message neighbor mount")
    fresh.send("noidle")
    assert fresh.answer() == ["OK"]
    fresh.send("idle player nosuchsubsystem")
    assert fresh.answer() == ["ACK [2@0] {idle} Unrecognized idle event: nosuchsubsystem"], "unknown idle name"
    ok("idle")


def stickers_as_mympd_writes_them():
    # A play and a skip as myMPD records them (< 0.24: get, then set; stickerdb.c
    # stickerdb_inc_set), then a rating and a like (stickerdb_set_like, _set_rating).
    stickers = sticker_connection()

    def leave_idle():
        stickers.send("noidle")
        stickers.answer()  # its idle's answer (woken or not)

    def get(name):
        stickers.send(f'sticker get song "{SONG}" {name}')
        answer = stickers.answer()
        if answer[-1].startswith("ACK [50@0]"):
            return None
        assert answer[-1] == "OK" and len(answer) == 2, answer
        return answer[0].split("=", 1)[1]

    leave_idle()
    before = get("playCount")
    now = int(time.time())
    stickers.run(f'sticker set song "{SONG}" lastPlayed {now}')
    stickers.run(f'sticker set song "{SONG}" playCount {int(before or 0) + 1}')
    stickers.send("idle sticker")
    assert stickers.answer() == ["changed: sticker", "OK"]      # its own writes wake it, as MPD
    skips = get("skipCount")
    stickers.run(f'sticker set song "{SONG}" lastSkipped {now}')
    stickers.run(f'sticker set song "{SONG}" skipCount {int(skips or 0) + 1}')
    stickers.run(f'sticker set song "{SONG}" elapsed 42')
    stickers.run(f'sticker set song "{SONG}" rating 7')
    stickers.run(f'sticker set song "{SONG}" like 0')
    assert get("rating") == "7" and get("like") == "0" and get("elapsed") == "42" and get("lastSkipped") == str(now)
    stickers.run(f'sticker set song "{SONG}" rating 8')
    stickers.run(f'sticker set song "{SONG}" like 2')
    assert get("rating") == "8" and get("like") == "2"
    listed = dict(line.split(": ", 1)[1].split("=", 1) for line in stickers.run(f'sticker list song "{SONG}"'))
    assert listed["rating"] == "8" and listed["like"] == "2", listed
    if server == "songbox":
        # The player's counts stay the truth: a client's write of them is taken and changes nothing.
        assert get("playCount") == (before or "0") and get("skipCount") == (skips or "0")
        assert listed["playCount"] == (before or "0"), listed
        stickers.run(f'sticker delete song "{SONG}" playCount')
        assert get("playCount") == (before or "0")
        stickers.run(f'sticker set song "{SONG}" like 000000000001')   # myMPD's padded numbers
        assert get("like") == "1"
    else:
        assert get("playCount") == str(int(before or 0) + 1) and get("lastPlayed") == str(now)
    ok("stickers")


def paths_for_mpd_024():
    # songbox greets with 0.24, so myMPD takes its paths for MPD 0.24 (features.c,
    # stickerdb.c): `stickertypes` on the sticker connection (it keeps to the types listed),
    # `tagtypes available`, plays and skips counted with `sticker inc`, sticker searches with an
    # operator, sort and window, `starts_with` instead of a regular expression, the queue
    # searched with sort and window, `Added`, ranges of a playlist. songbox only: MPD 0.23 has
    # none of these.
    stickers = Connection()
    assert "command: stickertypes" in stickers.run("commands")
    assert stickers.run("stickertypes") == ["stickertype: song"]
    stickers.send("idle sticker")
    main = Connection()
    available = main.run("tagtypes available")
    assert "tagtype: AlbumArtist" in available, available
    main.run("tagtypes clear", )
    main.run("tagtypes enable Artist Album AlbumArtist Title Track Genre Date")
    stickers.send("noidle")
    stickers.answer()
    for name in ["playCount", "skipCount"]:
        stickers.run(f'sticker inc song "{SONG}" {name} 1')
    stickers.run(f'sticker set song "{SONG}" lastPlayed {int(time.time())}')
    stickers.run(f'sticker set song "{SONG}" rating 6')
    found = stickers.run('sticker find song "" rating gt 0 sort -value_int window 0:100')
    assert found == ["file: " + SONG, "sticker: rating=6"], found
    names = stickers.run("stickernamestypes song")
    assert "name: rating" in names and "type: song" in names, names
    albums = main.run("find \"((Album starts_with 'Old'))\" sort Album window 0:100")
    assert "Album: Old Roads" in albums, albums
    main.run("clear")
    main.run('add "Mabel Grey"')
    queued = main.run("playlistsearch \"((Title contains 'o'))\" sort Title window 0:1")
    assert len([line for line in queued if line.startswith("file: ")]) == 1, queued
    assert any(line.startswith("Added: ") for line in main.run("find \"(added-since '2000-01-01T00:00:00Z')\" sort -Added window 0:1"))
    main.run('save "myMPD 24"')
    assert len(main.run('listplaylist "myMPD 24" 0:2')) == 2
    main.run('rm "myMPD 24"')
    ok("mpd24")


for part in parts:
    {"start-up": start_up, "idle": idle, "stickers": stickers_as_mympd_writes_them, "mpd24": paths_for_mpd_024}[part]()
print("done", flush=True)
