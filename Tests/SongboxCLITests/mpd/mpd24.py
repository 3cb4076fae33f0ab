"""MPD 0.24's additions that Debian's MPD (0.23) cannot be asked about, checked against what MPD
0.24's doc/protocol.rst and its src/command/*.cxx say, with python-mpd2 and raw lines. Run by
MPDServerTests.swift as `python3 mpd24.py HOST PORT [SOCKET]` against a songbox daemon on the
example library; prints `ok PART` after each part and exits non-zero (with the traceback) at the
first surprise."""
import re
import sys
import time

import mpd

import rawmpd

host, port = sys.argv[1], int(sys.argv[2])
local = sys.argv[3] if len(sys.argv) > 3 else None
OLD, RIVER, SKIES = ("Mabel Grey/Old Roads/01 - Old Roads.mp3", "Mabel Grey/Old Roads/02 - The River's Lullaby.mp3",
                     "Mabel Grey/Northern Skies/01 - Northern Skies.mp3")


def ok(part):
    print("ok " + part, flush=True)


class Connection(rawmpd.Connection):
    def ask(self, line):
        self.send(line)
        return self.answer()

    def expect(self, line, wanted):
        answer = self.ask(line)
        assert answer == wanted, f"{line}: {answer} (wanted {wanted})"
        return answer

    def files(self, line):
        answer = self.ask(line)
        assert answer[-1] == "OK", f"{line}: {answer}"
        return [entry.split(": ", 1)[1] for entry in answer if entry.startswith("file: ")]


c = Connection(f"{host}:{port}")
client = mpd.MPDClient()
client.timeout = 20
client.connect(host, port)

# The greeting says 0.24; every new command is in the one table, so `commands` lists it.
assert client.mpd_version == "0.24.0", client.mpd_version
commands = set(client.commands())
for name in ["searchcount", "stickernames", "stickertypes", "stickernamestypes", "playlistlength", "searchplaylist", "protocol",
             "playlist", "config", "addtagid", "cleartagid", "clearerror"]:
    assert name in commands, name
assert "getfingerprint" not in commands and "getfingerprint" not in client.notcommands()   # as MPD without Chromaprint
ok("greeting")

# searchcount: count without case (protocol.rst: "the search is not case sensitive").
c.expect("searchcount \"(artist == 'mabel grey')\"", c.ask("count \"(Artist == 'Mabel Grey')\""))
counted = c.ask("searchcount \"(artist contains 'MABEL')\"")
assert counted[0] == "songs: 3" and re.fullmatch(r"playtime: \d+", counted[1]) and counted[2] == "OK", counted
grouped = c.ask("searchcount \"(title contains 'o')\" group artist")
assert "Artist: Mabel Grey" in grouped and grouped[-1] == "OK", grouped
c.expect("searchcount", ['ACK [2@0] {searchcount} too few arguments for "searchcount"'])
ok("searchcount")

# Filters: starts_with, added-since, prio, the explicit-case operators, regular expressions.
assert c.files("find \"(title starts_with 'Old')\"") == [OLD]
assert c.files("find \"(title starts_with 'Roads')\"") == []
assert OLD not in c.files("find \"(title !starts_with 'Old')\"")
ALL = len(c.files('search any ""'))
assert ALL == 16, ALL
assert len(c.files("find \"(title !starts_with 'Old')\"")) == ALL - 1
assert c.files("find \"(file starts_with 'Mabel Grey/Old')\"") == [OLD, RIVER]
assert len(c.files("find \"(added-since '2000-01-01T00:00:00Z')\"")) == ALL
assert c.files("find \"(added-since '2999-01-01T00:00:00Z')\"") == []
assert len(c.files('find "(prio >= 0)"')) == ALL
assert c.files('find "(prio >= 1)"') == []
c.expect('find "(prio >= 256)"', ["ACK [2@0] {find} Invalid priority value"])
c.expect('find "(prio > 1)"', ["ACK [2@0] {find} '>=' expected"])
assert c.files("find \"(title eq_cs 'Old Roads')\"") == [OLD]
assert c.files("search \"(title contains_ci 'ROADS')\"") == [OLD]
assert len(c.files("find \"(title !eq_ci 'Old Roads')\"")) == ALL - 1
assert c.files("find \"(title =~ '^old r')\"") == [OLD]
# MPD 0.24's sort keys Added and prio (myMPD's queue search sends them, with a window).
assert len(c.files("find \"(artist == 'Mabel Grey')\" sort -Added")) == 3
assert len(c.files("find \"(artist == 'Mabel Grey')\" sort prio window 0:2")) == 2
assert c.files("find \"(album =~ '^(Old|Northern) (Roads|Skies)$')\"") == [SKIES, OLD, RIVER]
assert c.files("find \"(title =~ 'a{2,}')\"") == []
assert c.files("find \"(artist =~ '^ל')\"") != []
# A pattern that backtracking engines take exponential time over is answered at once.
started = time.time()
assert c.files("find \"(title =~ '^(a+)+(a*)*(a|a)*q$')\"") == []
assert time.time() - started < 5
for bad in ["(", "[a", "a{2", "(?=x)", "\\\\\\\\1"]:
    answer = c.ask(f"find \"(title =~ '{bad}')\"")
    assert answer[0].startswith("ACK [2@0] {find} "), (bad, answer)
ok("filters")

# Stickers: names, types, inc/dec with a value, find with the operators, sort and window.
for song, value in [(OLD, "9"), (RIVER, "10"), (SKIES, "100")]:
    client.sticker_set("song", song, "n", value)
names = c.ask("stickernames")
assert "name: n" in names and "name: playCount" in names and names == sorted(names[:-1]) + ["OK"], names
assert c.ask("stickertypes") == ["stickertype: song", "OK"]
pairs = c.ask("stickernamestypes")
assert pairs[pairs.index("name: n") + 1] == "type: song", pairs
assert c.ask("stickernamestypes song") == pairs
c.expect("stickernamestypes playlist", ["OK"])
c.expect("stickernamestypes Bogus", ['ACK [2@0] {stickernamestypes} no such tag "Bogus"'])
c.expect("stickernames x", ['ACK [2@0] {stickernames} wrong number of arguments for "stickernames"'])
c.expect(f'sticker inc song "{OLD}" counter 5', ["OK"])
c.expect(f'sticker dec song "{OLD}" counter 2', ["OK"])
c.expect(f'sticker get song "{OLD}" counter', ["sticker: counter=3", "OK"])
c.expect(f'sticker inc song "{OLD}" counter', ["ACK [2@0] {sticker} bad request"])
c.expect(f'sticker get song "{OLD}" nothing', ['ACK [50@0] {sticker} no such sticker: "nothing"'])
c.expect(f'sticker delete song "{OLD}" nothing', ['ACK [50@0] {sticker} no such sticker: "nothing"'])


def found(line):
    answer = c.ask(line)
    assert answer[-1] == "OK", (line, answer)
    return [entry.split("=", 1)[1] for entry in answer if entry.startswith("sticker: ")]


assert found('sticker find song "" n sort value_int') == ["9", "10", "100"]
assert found('sticker find song "" n sort value') == ["10", "100", "9"]
assert found('sticker find song "" n sort -value_int window 0:2') == ["100", "10"]
assert found('sticker find song "" n sort uri window 1:') == ["9", "10"]      # Northern Skies, then Old Roads' two
assert sorted(found('sticker find song "" n lt 50')) == ["10", "9"]
assert sorted(found('sticker find song "" n gt 9')) == ["10", "100"]
assert found('sticker find song "" n eq 10') == ["10"]
assert sorted(found('sticker find song "" n < 2')) == ["10", "100"]            # text, as MPD's SQL compares
assert sorted(found('sticker find song "" n contains 0')) == ["10", "100"]
assert sorted(found('sticker find song "" n starts_with 1')) == ["10", "100"]
assert found('sticker find song "" n = 9 sort value window 0:1') == ["9"]
c.expect('sticker find song "" n sort bogus', ['ACK [2@0] {sticker} Unknown sort tag "bogus"'])
c.expect('sticker find song "" n ~ 1', ['ACK [2@0] {sticker} bad operator "~"'])
for song in [OLD, RIVER, SKIES]:
    client.sticker_delete("song", song, "n")
client.sticker_delete("song", OLD, "counter")
ok("stickers")

# Stored playlists: save's modes, playlistlength, ranges in listplaylist and playlistmove,
# searchplaylist.
client.clear()
client.add("Mabel Grey")
queue = [entry["file"] for entry in client.playlistinfo()]
assert sorted(queue) == sorted([OLD, RIVER, SKIES]), queue
c.expect('save "Evening 24"', ["OK"])
c.expect('save "Evening 24"', ["ACK [56@0] {save} Playlist already exists"])
c.expect('save "Evening 24" create', ["ACK [56@0] {save} Playlist already exists"])
c.expect('save "Evening 24" append', ["OK"])
assert client.listplaylist("Evening 24") == queue + queue
c.expect('save "Evening 24" replace', ["OK"])
assert client.listplaylist("Evening 24") == queue
c.expect('save "Nowhere" append', ["ACK [50@0] {save} No such playlist"])
c.expect('save "Nowhere" replace', ["ACK [50@0] {save} No such playlist"])
c.expect('save "Evening 24" keep', ["ACK [2@0] {save} Unrecognized save mode, expected one of 'create', 'append', 'replace'"])
length = c.ask('playlistlength "Evening 24"')
assert length[0] == "songs: 3" and re.fullmatch(r"playtime: \d+", length[1]) and length[2] == "OK", length
c.expect('playlistlength "Nowhere"', ["ACK [50@0] {playlistlength} No such playlist"])
assert c.files('listplaylist "Evening 24" 1:3') == queue[1:3]
assert c.files('listplaylistinfo "Evening 24" 0:1') == queue[:1]
c.expect('playlistmove "Evening 24" 0:2 2', ["ACK [2@0] {playlistmove} Bad range"])
c.expect('playlistmove "Evening 24" 1: 0', ["ACK [2@0] {playlistmove} Open-ended range not supported"])
c.expect('playlistmove "Evening 24" 0:2 1', ["OK"])
assert client.listplaylist("Evening 24") == [queue[2], queue[0], queue[1]]
c.expect('playlistmove "Evening 24" 2 0', ["OK"])
assert client.listplaylist("Evening 24") == [queue[1], queue[2], queue[0]]
c.expect('playlistmove "Evening 24" 1:1 0', ["OK"])
searched = c.ask("searchplaylist \"Evening 24\" \"(title contains 'ROADS')\"")
assert searched[0] == "file: " + OLD and "Pos: " + str([queue[1], queue[2], queue[0]].index(OLD)) in searched \
    and searched[-1] == "OK", searched
assert c.files("searchplaylist \"Evening 24\" \"(artist == 'Mabel Grey')\" window 1:2") == [queue[2]]
c.expect('searchplaylist "Nowhere" "(artist == \'x\')"', ["ACK [50@0] {searchplaylist} No such playlist"])
ok("stored playlists")

# protocol: the features, on and off for this client; hide_playlists_in_root hides them in lsinfo.
c.expect("protocol", ["OK"])
c.expect("protocol available", ["feature: hide_playlists_in_root", "OK"])
assert "playlist: Evening 24" in c.ask("lsinfo")
c.expect("protocol enable HIDE_playlists_in_root", ["OK"])
c.expect("protocol", ["feature: hide_playlists_in_root", "OK"])
assert not any(line.startswith("playlist: ") for line in c.ask("lsinfo"))
assert "playlist: Evening 24" in client.lsinfo() or any(e.get("playlist") == "Evening 24" for e in client.lsinfo())   # others keep them
c.expect("protocol disable hide_playlists_in_root", ["OK"])
c.expect("protocol", ["OK"])
c.expect("protocol all", ["OK"])
c.expect("protocol", ["feature: hide_playlists_in_root", "OK"])
c.expect("protocol clear", ["OK"])
c.expect("protocol", ["OK"])
c.expect("protocol enable nope", ["ACK [2@0] {protocol} Unknown protocol feature"])
c.expect("protocol enable", ["ACK [2@0] {protocol} Not enough arguments"])
c.expect("protocol all x", ["ACK [2@0] {protocol} Too many arguments"])
c.expect("protocol bogus", ["ACK [2@0] {protocol} Unknown sub command"])
client.rm("Evening 24")
ok("protocol")

# tagtypes available and reset.
available = c.ask("tagtypes available")
assert "tagtype: Artist" in available and "tagtype: Composer" in available, available
c.expect("tagtypes reset Title", ["OK"])
c.expect("tagtypes", ["tagtype: Title", "OK"])
song = c.ask(f'find file "{OLD}"')
assert "Title: Old Roads" in song and not any(line.startswith(("Artist: ", "Album: ")) for line in song), song
c.expect("tagtypes reset", ["ACK [2@0] {tagtypes} Not enough arguments"])
c.expect("tagtypes reset Bogus", ["ACK [2@0] {tagtypes} Unknown tag type"])
assert c.ask("tagtypes available") == available          # not the client's choice
c.expect("tagtypes all", ["OK"])
ok("tagtypes")

# Last-Modified and Added on songs (MPD 0.24: both after the file), in every listing.
iso = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"
for line in ['lsinfo "Mabel Grey/Old Roads"', f'find file "{OLD}"', 'listallinfo "Mabel Grey/Old Roads"', "playlistinfo"]:
    answer = c.ask(line)
    at = answer.index("file: " + OLD)
    assert re.fullmatch("Last-Modified: " + iso, answer[at + 1]) and re.fullmatch("Added: " + iso, answer[at + 2]), (line, answer)
# Directories in lsinfo and listallinfo: their Last-Modified after each (not in listall).
for line in ['lsinfo "Mabel Grey"', 'listallinfo "Mabel Grey"']:
    answer = c.ask(line)
    at = answer.index("directory: Mabel Grey/Old Roads")
    assert re.fullmatch("Last-Modified: " + iso, answer[at + 1]), (line, answer)
assert "Last-Modified" not in " ".join(c.ask('listall "Mabel Grey"'))
ok("times")

# status: bitrate and audio while playing.
client.play(0)
deadline = time.time() + 10
status = client.status()
while "bitrate" not in status and time.time() < deadline:
    time.sleep(0.1)
    status = client.status()
assert int(status["bitrate"]) > 0 and re.fullmatch(r"\d+:(\d+|f):\d", status["audio"]), status
client.stop()
ok("status")

# Tags of a queued stream: only for remote songs (MPD: "Editing song tags is only possible for
# remote songs"); gone with the item.
client.clear()
stream = client.addid("http://127.0.0.1:9/radio.mp3")
local_id = client.addid(OLD)
c.expect(f"addtagid {stream} Artist \"Radio Artist\"", ["OK"])
c.expect(f"addtagid {stream} title \"On Air\"", ["OK"])
info = client.playlistid(stream)[0]
assert info["artist"] == "Radio Artist" and info["title"] == "On Air", info
c.expect(f"cleartagid {stream} Title", ["OK"])
assert "title" not in client.playlistid(stream)[0]
c.expect(f"addtagid {local_id} Artist x", ["ACK [4@0] {addtagid} Cannot edit tags of local file"])
c.expect(f"cleartagid {local_id}", ["ACK [4@0] {cleartagid} Cannot edit tags of local file"])
c.expect("addtagid 99999 Artist x", ["ACK [50@0] {addtagid} No such song"])
c.expect(f"addtagid {stream} Bogus x", ["ACK [2@0] {addtagid} Unknown tag type: Bogus"])
c.expect(f"addtagid {stream} Artist \"a\x1bb\"", ["OK"])         # a control character never reaches a client
assert "Artist: a b" in c.ask(f"playlistid {stream}")
client.deleteid(stream)
again = client.addid("http://127.0.0.1:9/radio.mp3")
assert "artist" not in client.playlistid(again)[0]
client.clear()
ok("queue tags")

# config: for local clients only; getfingerprint: as MPD for a file it cannot decode.
c.expect("config", ["ACK [4@0] {config} Command only permitted to local clients"])
if local:
    answer = Connection(local).ask("config")
    assert answer[0].startswith("music_directory: /") and "pcre: 1" in answer and answer[-1] == "OK", answer
c.expect(f'getfingerprint "{OLD}"', ['ACK [5@0] {} unknown command "getfingerprint"'])
ok("config and fingerprint")
# Numbers past MPD's bounds are refused with its words, never trapped on (a range's start + 1
# overflowed: `delete 9223372036854775807` ended the daemon).
huge = "9223372036854775807"
for line, wanted in [(f"delete {huge}", f"ACK [2@0] {{delete}} Number too large: {huge}"),
                     (f'playlistmove "x" {huge} 0', f"ACK [2@0] {{playlistmove}} Number too large: {huge}"),
                     (f'playlistmove "x" 0:{huge} 0', f"ACK [2@0] {{playlistmove}} Number too large: 0:{huge}"),
                     (f'sticker find song "" n window {huge}', f"ACK [2@0] {{sticker}} Number too large: {huge}"),
                     (f"find \"(prio >= {huge})\"", "ACK [2@0] {find} Invalid priority value"),
                     (f"addtagid {huge} Artist x", f"ACK [2@0] {{addtagid}} Integer expected: {huge}"),
                     (f'sticker inc song "{OLD}" n {huge}', f"ACK [2@0] {{sticker}} Integer expected: {huge}"),
                     (f"find \"(title =~ 'a{{{huge}}}')\"", None)]:
    answer = c.ask(line)
    assert answer == [wanted] if wanted else answer[0].startswith("ACK [2@0] {find} "), (line, answer)
c.expect("ping", ["OK"])
ok("bounds")
print("mpd24 done", flush=True)
