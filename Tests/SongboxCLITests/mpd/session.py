"""A scripted MPD session with python-mpd2 against a songbox daemon: every command group the
daemon answers. Run by MPDServerTests.swift as `python3 session.py HOST PORT`; prints `ok GROUP`
after each group and exits non-zero (with the traceback) at the first surprise."""
import sys
import socket
import threading
import time

import mpd

host, port = sys.argv[1], int(sys.argv[2])


def connect():
    client = mpd.MPDClient()
    client.timeout = 20
    client.connect(host, port)
    return client


def ok(group):
    print("ok", group, flush=True)


def status_when(condition, seconds=10):
    """The status once `condition` holds of it (polled); the last one read after `seconds`."""
    deadline = time.time() + seconds
    status = c.status()
    while not condition(status) and time.time() < deadline:
        time.sleep(0.02)
        status = c.status()
    return status


def expect_ack(code, call, *args):
    try:
        call(*args)
    except mpd.CommandError as error:
        assert f"[{code}@" in str(error), f"{call.__name__}{args}: {error}"
        return str(error)
    raise AssertionError(f"{call.__name__}{args} did not fail")


c = connect()
assert c.mpd_version == "0.24.0", c.mpd_version

# Connection and server facts
c.ping()
commands = c.commands()
for name in ["status", "currentsong", "idle", "find", "search", "list", "count", "lsinfo", "listallinfo",
             "add", "addid", "deleteid", "moveid", "swapid", "playlistinfo", "plchanges", "sendmessage", "queryplay"]:
    assert name in commands, name
assert "Artist" in c.tagtypes()
c.tagtypes("clear")
assert c.tagtypes() == []
c.tagtypes("enable", "Artist", "Title", "Name")
assert set(c.tagtypes()) == {"Artist", "Title", "Name"}
c.tagtypes("all")
assert c.outputs()[0]["outputenabled"] == "1"
assert c.decoders()[0]["plugin"] == "mpg123"
def raw(*lines):
    """What the daemon answers to raw request lines, up to its final OK or ACK line."""
    with socket.create_connection((host, port), timeout=20) as connection:
        stream = connection.makefile("rwb")
        assert stream.readline().startswith(b"OK MPD ")
        stream.write(b"".join(line.encode() + b"\n" for line in lines))
        stream.flush()
        answer = []
        while True:
            line = stream.readline().decode()
            answer.append(line.rstrip("\n"))
            if line.startswith("OK") or line.startswith("ACK") or not line:
                return answer


def raw_idle_then_noidle():
    """`idle playlist`, nothing changes, `noidle`: the answer."""
    with socket.create_connection((host, port), timeout=20) as connection:
        stream = connection.makefile("rwb")
        stream.readline()
        stream.write(b"idle playlist\n")
        stream.flush()
        time.sleep(0.2)
        stream.write(b"noidle\n")
        stream.flush()
        return [stream.readline().decode().rstrip("\n")]


assert raw("nosuchcommand")[-1] == 'ACK [5@0] {} unknown command "nosuchcommand"'   # as MPD
assert raw("getvol") == ["volume: 100", "OK"] or raw("getvol")[0].startswith("volume: ")
ok("server")

# The database: stats, browsing, both filter forms, Hebrew folding, list/count with groups
stats = c.stats()
assert stats["songs"] == "16" and stats["artists"] == "5", stats
top = [entry["directory"] for entry in c.lsinfo() if "directory" in entry]
assert "Mabel Grey" in top and "נגה שחר" in top, top
album = c.lsinfo("Mabel Grey/Old Roads")
assert [song["title"] for song in album] == ["Old Roads", "The River's Lullaby"], album
assert album[0]["file"] == "Mabel Grey/Old Roads/01 - Old Roads.mp3"
everything = c.listallinfo()
assert len([entry for entry in everything if "file" in entry]) == 16
assert len(c.find("artist", "Mabel Grey")) == 3
assert len(c.find("(artist == 'Mabel Grey')")) == 3
assert len(c.find("((artist == 'Mabel Grey') AND (album == 'Old Roads'))")) == 2
assert len(c.find("(!(artist == 'Mabel Grey'))")) == 13
assert c.find("artist", "mabel") == []                    # find compares whole values
assert len(c.search("artist", "mabel")) == 3               # search finds inside, any case
hebrew = c.search("title", "אהבה")                          # niqqud-free search of Hebrew titles
assert len(hebrew) >= 2, hebrew
assert len(c.search("(title contains 'אַהֲבָה')")) == len(hebrew)
assert len(c.find("artist", "Mabel Grey", "window", "1:3")) == 2
assert len(c.find("(artist =~ '^M.*')")) == 3               # regular expressions (MPD's =~)
expect_ack(2, c.find, "(artist =~ '(')")                   # one that does not compile
expect_ack(2, c.find, "nosuchtag", "x")
assert c.find("(composer == 'x')") == []
artists = [entry["artist"] for entry in c.list("artist")]
assert "Mabel Grey" in artists and len(artists) == 5, artists
grouped = raw("list album group artist")
at = grouped.index("Artist: Mabel Grey")
assert grouped[at + 1:at + 3] == ["Album: Northern Skies", "Album: Old Roads"], grouped
assert [entry["album"] for entry in c.list("album", "artist", "Mabel Grey")] == ["Northern Skies", "Old Roads"]
count = c.count("artist", "Mabel Grey")
assert count["songs"] == "3" and int(count["playtime"]) > 0, count
ok("database")

# The queue
c.clear()
c.add("Mabel Grey")
assert [song["pos"] for song in c.playlistinfo()] == ["0", "1", "2"]
first = c.addid("The Lanterns/Morning Light/03 - Paper Boats.mp3", 0)
queue = c.playlistinfo()
assert queue[0]["id"] == first and queue[0]["title"] == "Paper Boats", queue[0]
c.moveid(first, 3)
assert c.playlistinfo()[3]["id"] == first
c.swap(0, 3)
assert c.playlistinfo()[0]["id"] == first
c.delete(0)
assert len(c.playlistinfo()) == 3
c.findadd("artist", "The Lanterns")
version = c.status()["playlist"]
assert len(c.playlistinfo()) == 3 + len(c.find("artist", "The Lanterns"))
assert c.plchanges(version) == []
# Only what moved since a version: a move near the end reports the items between its places.
length = len(c.playlistinfo())
c.move(length - 1, length - 2)
moved = c.plchangesposid(version)
assert [int(m["cpos"]) for m in moved] == [length - 2, length - 1], moved
assert [s["pos"] for s in c.plchanges(version)] == [str(length - 2), str(length - 1)]
assert len(c.plchanges(0)) == length and len(c.plchanges(10**9)) == length   # a version it never had: all
assert len(c.playlistfind("artist", "Mabel Grey")) == 3
expect_ack(50, c.deleteid, 99999)
expect_ack(2, c.play, 999)
ok("queue")

# Stored playlists: saved ones changed from the client, smart ones read-only and evaluated
c.clear()
c.add("Mabel Grey")
c.save("Grey")
expect_ack(56, c.save, "Grey")
assert "Grey" in [entry["playlist"] for entry in c.listplaylists()]
assert c.listplaylist("Grey") == [song["file"] for song in c.playlistinfo()]
c.playlistadd("Grey", "The Lanterns/Morning Light/03 - Paper Boats.mp3")
assert [song["title"] for song in c.listplaylistinfo("Grey")][-1] == "Paper Boats"
c.playlistmove("Grey", 3, 0)
c.playlistdelete("Grey", 1)
assert len(c.listplaylist("Grey")) == 3 and c.listplaylistinfo("Grey")[0]["title"] == "Paper Boats"
c.rename("Grey", "Grey and boats")
c.clear()
c.load("Grey and boats", "1:3")
assert len(c.playlistinfo()) == 2
c.playlistclear("Grey and boats")
assert c.listplaylist("Grey and boats") == []
c.rm("Grey and boats")
expect_ack(50, c.listplaylist, "Grey and boats")
smart = c.listplaylist("Hebrew songs")                     # a smart playlist made by the test
assert len(smart) > 0 and all(not path.startswith("Mabel") for path in smart), smart
expect_ack(2, c.playlistadd, "Hebrew songs", "Mabel Grey")
c.searchaddpl("Rivers", "title", "river")
assert c.listplaylist("Rivers") == ["Mabel Grey/Old Roads/02 - The River's Lullaby.mp3"]
c.rm("Rivers")
comments = c.readcomments("Mabel Grey/Old Roads/02 - The River's Lullaby.mp3")
assert comments["title"] == "The River's Lullaby" and comments["artist"] == "Mabel Grey", comments
ok("stored playlists")

# Playback and options
c.clear()
c.add("Mabel Grey")
c.setvol(60)
assert c.status()["volume"] == "60"
c.volume(-10)
assert c.status()["volume"] == "50"
c.repeat(1)
c.random(0)
c.single("oneshot")
c.consume(0)
c.crossfade(0)
status = c.status()
assert (status["repeat"], status["random"], status["single"], status["consume"]) == ("1", "0", "oneshot", "0"), status
c.single(0)
c.play(1)
status = status_when(lambda status: status["state"] == "play")
assert status["state"] == "play" and status["song"] == "1", status
assert c.currentsong()["pos"] == "1"
c.seekcur(2)
assert float(c.status()["elapsed"]) >= 2
c.pause(1)
assert c.status()["state"] == "pause"
c.pause(0)
c.next()
assert c.status()["song"] == "2"
c.previous()
c.stop()
assert c.status()["state"] == "stop"
ok("playback")

# Command lists
c.command_list_ok_begin()
c.setvol(70)
c.status()
c.currentsong()
results = c.command_list_end()
assert results[1]["volume"] == "70", results
failure = raw("command_list_begin", "ping", "play 12345", "ping", "command_list_end")
assert failure[-1].startswith("ACK [2@1] {play}"), failure
ok("command lists")

# idle: one wake-up for exactly what changed
time.sleep(0.5)  # the stop's short fade has played out: nothing is still changing
watcher = connect()
woken = []
thread = threading.Thread(target=lambda: woken.append(watcher.idle()))
thread.start()
time.sleep(0.3)
c.setvol(30)
thread.join(10)
assert woken == [["mixer"]], woken
assert raw_idle_then_noidle() == ["OK"]
c.play(0)
time.sleep(0.3)
assert "player" in watcher.idle()
c.next()
time.sleep(0.5)
assert watcher.idle("player") == ["player"]       # a song change wakes it once, not twice
thread = threading.Thread(target=lambda: woken.append(watcher.idle("player")))
thread.start()
time.sleep(0.6)
assert thread.is_alive(), "woken again by the same song change"
c.pause(1)
thread.join(10)
assert woken[-1] == ["player"], woken
c.update()
# The library did not change: `update` wakes (its start and its end), `database` does not (as MPD).
deadline = time.time() + 20
while "updating_db" in c.status() and time.time() < deadline:
    time.sleep(0.1)
time.sleep(0.3)
assert watcher.idle("update", "database") == ["update"]
watcher.disconnect()
ok("idle")

# Stickers: songbox's counts the player's (a client's writes change nothing), rating and like
# its overrides, others kept
song = "Mabel Grey/Old Roads/02 - The River's Lullaby.mp3"
before = int(c.sticker_get("song", song, "playCount"))
c.clear()
c.repeat(0)
c.add(song)
c.play()
deadline = time.time() + 60
while c.status()["state"] != "stop" and time.time() < deadline:
    time.sleep(0.2)
# The count is committed by the daemon's recorder a moment after the player stops (later on a
# loaded machine): wait for it, within a bound.
plays = int(c.sticker_get("song", song, "playCount"))
while plays == before and time.time() < deadline:
    time.sleep(0.1)
    plays = int(c.sticker_get("song", song, "playCount"))
assert plays == before + 1, (before, plays)                   # the player counted it
assert c.sticker_get("song", song, "skipCount") is not None
c.sticker_set("song", song, "playCount", "99")                  # taken, as myMPD writes it after a play,
assert int(c.sticker_get("song", song, "playCount")) == plays   # and the player's count stays
c.sticker_set("song", song, "rating", "8")
assert c.sticker_get("song", song, "rating") == "8"
c.sticker_set("song", song, "like", "2")
c.sticker_set("song", song, "mood", "rainy")
stickers = c.sticker_list("song", song)
assert stickers["like"] == "2" and stickers["mood"] == "rainy" and stickers["playCount"] == str(plays), stickers
found = c.sticker_find("song", "", "mood")
assert found == [{"file": song, "sticker": {"mood": "rainy"}}] or [f["file"] for f in found] == [song], found
assert [f["file"] for f in c.sticker_find("song", "Mabel Grey", "rating")] == [song]
c.sticker_set("song", song, "big", str(2**63 - 1))
assert raw('sticker inc song "%s" big 1' % song)[-1].startswith("ACK [2@0] {sticker}")   # no overflow
c.sticker_delete("song", song, "big")
c.sticker_delete("song", song, "mood")
expect_ack(50, c.sticker_get, "song", song, "mood")
expect_ack(50, c.sticker_get, "song", "No/Such.mp3", "rating")
ok("stickers")

# Messages: between clients, and to the plugins
assert c.channels() == ["doorbell"], c.channels()   # a plugin listens there (songbox.subscribe)
listener = connect()
listener.subscribe("alarm")
expect_ack(56, listener.subscribe, "alarm")
assert "alarm" in c.channels()
c.sendmessage("alarm", "snooze")
assert listener.readmessages() == [{"channel": "alarm", "message": "snooze"}]
assert listener.readmessages() == []
c.sendmessage("nobody-listens", "to-plugins")     # no client: the plugins still hear it
listener.unsubscribe("alarm")
listener.disconnect()
ok("messages")

c.disconnect()
print("session done", flush=True)
