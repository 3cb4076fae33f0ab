"""Requests whose answers songbox must give as MPD gives them (issue 27), run on raw sockets by
MPDReferenceTests.swift as `python3 reference.py ADDRESS PART...` against songbox and against
Debian's MPD on the same music; ADDRESS is HOST:PORT or a socket path. Prints each request
(`>> ...`) and the lines of its answer that both must share: what differs by design (times,
formats, ids) is left out, and the songs a find or search gives are sorted (MPD gives them in
its database's order, songbox in its own; `listfiles` in the order the folder gives them)."""
import re
import socket
import sys
import time

import rawmpd

address, parts = sys.argv[1], sys.argv[2:]
# The fields compared; the others differ by design (Last-Modified, Format, ids, durations).
KEPT = {"file", "directory", "Artist", "AlbumArtist", "Album", "Title", "songs", "song", "state", "playlistlength",
        "single", "repeat", "size"}


class Connection(rawmpd.Connection):
    def __init__(self):
        super().__init__(address)

    def request(self, *lines):
        """The answer to `lines`: a request, or a command list."""
        self.send(*lines)
        return self.answer()

    def show(self, request, lines=None, keep=()):
        """Sends `request` (its `{id:N}` made the id of the queue's Nth song) and prints the answer,
        with the fields in `keep` beside those always kept."""
        sent = re.sub(r"\{id:(\d+)\}", lambda m: self.id_at(int(m.group(1))), request)
        answer = self.request(*(lines or [sent]))
        print(">>", request)
        records, current = [], []
        for line in answer[:-1]:
            key = line.split(": ", 1)[0]
            if key in ("file", "directory") and current:
                records.append(current)
                current = []
            # A listing of files on disk: their times are the files' own, the same for both.
            if key in KEPT or key in keep or re.match(r"\d+:file: ", line) \
                    or (key == "Last-Modified" and request.startswith("listfiles")):
                current.append(line)
        records.append(current)
        if request.startswith(("find", "search", "listfiles")):
            records.sort()
        for record in records + [answer[-1:]]:
            for line in record:
                print(line)

    def id_at(self, position):
        return next(line[4:] for line in self.request(f"playlistinfo {position}") if line.startswith("Id: "))

    def wait_while_playing(self):
        deadline = time.time() + 20
        while "state: play" in self.request("status") and time.time() < deadline:
            time.sleep(0.1)


def albumartist():
    c = Connection()
    for request in ["list albumartist", "count group albumartist", 'find albumartist "Mabel Grey"', "search albumartist mabel",
                    "find \"(AlbumArtist != '')\"", "find \"(AlbumArtist == 'Mabel Grey')\"", "find \"(AlbumArtist != 'Mabel Grey')\"",
                    'find albumartist ""', 'search albumartist ""', "list album group albumartist",
                    "count \"(AlbumArtist contains 'Lant')\"", 'list albumartist "(artist == \'Mabel Grey\')"']:
        c.show(request)


def files():
    c = Connection()
    for request in ['search file "Old Roads"', 'find file "Mabel Grey/Old Roads/01 - Old Roads.mp3"', 'search filename "lullaby"',
                    "find \"(file contains 'Roads')\"", "search \"(file contains 'roads')\"",
                    "find \"(file == 'Mabel Grey/Old Roads/01 - Old Roads.mp3')\"",
                    "count \"(file != 'Mabel Grey/Old Roads/01 - Old Roads.mp3')\""]:
        c.show(request)


def old_syntax():
    c = Connection()
    for request in ['find base "Mabel Grey"', 'find base "Mabel Grey/Old Roads" title "Old Roads"',
                    'find modified-since "2020-01-01T00:00:00Z"', 'find modified-since "2099-01-01T00:00:00Z"',
                    'find artist "Mabel Grey" sort Last-Modified', 'find artist "Mabel Grey" sort -Last-Modified',
                    "list file", "list file \"(artist == 'Mabel Grey')\"", 'search any ""', 'count any ""']:
        c.show(request)


def positions():
    c = Connection()
    for request in ["clear", 'add "Mabel Grey"', 'add "The Lanterns"', 'add "Mabel Grey" +0']:
        c.show(request)
    # Paused on the third song at once (the songs are a few seconds long).
    c.show("play 2, pause 1", ["command_list_begin", "play 2", "pause 1", "command_list_end"])
    for request in ['add "נגה שחר/ימים טובים/01 - ימים טובים.mp3" +0', 'addid "מקהלת השחר/שירי לילה/01 - שיר לילה.mp3" -0',
                    'addid "מקהלת השחר/שירי לילה/02 - ירח על הגג.mp3" +1', "playlistinfo", "status",
                    "move 0 +0", "move 6 -1", "moveid {id:8} -2", "moveid {id:0} +1", "playlistinfo", "status",
                    'add "Mabel Grey" +99', 'add "Mabel Grey" -9', 'add "Mabel Grey" 99', "move 3 +0", "move 2:5 -0", "moveid {id:3} +1",
                    "move 0 +7", "move 0 +6", "move 9 -4", "move 9 -3", "move 0 +x", "playlistinfo", "status",
                    "stop", "move 0 +0", "clear", 'add "Mabel Grey" +0', 'add "Mabel Grey" -0']:
        c.show(request)


def listfiles():
    c = Connection()
    for request in ['listfiles "Mabel Grey/Old Roads"', 'listfiles "Mabel Grey"', "listfiles", 'listfiles "Mabel Grey/.."']:
        c.show(request)


def outside():
    # songbox only: MPD 0.23 lists the folders above its music for these.
    c = Connection()
    for request in ['listfiles ".."', 'listfiles "Mabel Grey/../.."', 'listfiles "/etc"']:
        c.show(request)


def single():
    c = Connection()
    for mode in ["1", "oneshot"]:
        for request in ["clear", 'add "Mabel Grey"', "repeat 0", "single " + mode, "play 0"]:
            c.show(request)
        c.wait_while_playing()
        c.show("status")
        print([line for line in c.request("status") if line.startswith("elapsed: ")])
        c.show("currentsong")


def shared24():
    # MPD 0.24's additions that MPD 0.23 also answers: `playlist`, `clearerror`, `config` (not on
    # TCP), tags of a queued stream, regular expressions, songs' Last-Modified, `tagtypes`, sticker
    # comparisons, `save`.
    c = Connection()
    song, other = "Mabel Grey/Old Roads/01 - Old Roads.mp3", "Mabel Grey/Old Roads/02 - The River's Lullaby.mp3"
    for request in ["clear", 'add "Mabel Grey"', "playlist", "clearerror", "config",
                    "find \"(Title =~ '^Old')\"", "find \"(Title !~ 'Roads')\"", "search \"(title =~ 'RIVER')\"",
                    "count \"(Artist =~ 'Gr[aeiou]y$')\"", "list album \"(Artist =~ '^(Mabel|The) ')\"",
                    "find \"((Album =~ 'Roads|Skies') AND (Title =~ '^[A-Z][a-z]+ [RS]'))\"",
                    "find \"(any =~ 'Lull.by')\"", "find \"(file =~ '^Mabel Grey/Old')\"", "find \"(Title =~ '\\\\d')\"",
                    "search \"(Title !~ 'o')\"",
                    "tagtypes clear", f'find file "{song}"', "tagtypes all", "tagtypes disable Artist Album", f'find file "{song}"',
                    "tagtypes enable Album", f'find file "{song}"', "tagtypes all",
                    "addtagid {id:0} Artist Someone", "cleartagid {id:0}", "addtagid 99999 Artist x", "addtagid {id:0} NoSuchTag x",
                    "cleartagid -1", "addtagid x Artist y",
                    'add "http://127.0.0.1:9/stream.mp3"', "addtagid {id:3} Artist \"Live Artist\"", "addtagid {id:3} Title \"Live Title\"",
                    "playlistinfo 3", "cleartagid {id:3} Title", "playlistinfo 3", "cleartagid {id:3}", "playlistinfo 3", "delete 3",
                    f'sticker set song "{song}" mood rainy', f'sticker set song "{other}" mood sunny',
                    'sticker find song "Mabel Grey" mood = rainy', 'sticker find song "" mood > rainy', 'sticker find song "" mood < sunny',
                    'sticker find song "" mood', 'sticker find song "" mood ~ x', f'sticker get song "{song}" nothing',
                    f'sticker delete song "{song}" mood',
                    f'sticker delete song "{other}" mood',
                    'save "Mixed 24"', 'save "Mixed 24"', 'listplaylist "Mixed 24"', 'rm "Mixed 24"', "clear"]:
        c.show(request)
    for request in [f'find file "{song}"', 'lsinfo "Mabel Grey"']:
        c.show(request, keep={"Last-Modified"})


def list_limit():
    # Over 2 MiB (MPD's `max_command_list_size`) and 10,000 commands: the connection is closed,
    # and none of the list runs, nor the rest of it as commands of their own.
    c = Connection()
    try:
        c.socket.sendall(b"command_list_begin\n" + b"repeat 1\n" * 250_000 + b"command_list_end\nrandom 1\n")
        print("answer:", c.stream.readline().decode().rstrip("\n") or "closed")
    except (BrokenPipeError, ConnectionResetError):
        print("answer: closed")
    Connection().show("status")


def half_close():
    # `printf 'status\nping\n' | nc -N`: the client shuts its side after sending.
    c = Connection()
    c.socket.sendall(b"status\nping\n")
    c.socket.shutdown(socket.SHUT_WR)
    lines = c.stream.read().decode().splitlines()
    print([line for line in lines if line.startswith(("state: ", "OK", "ACK"))])


def pipelined():
    # Requests sent in one write, as a client that pipelines does: those answered from memory
    # (ping, status) between those that read the library (lsinfo, count), a command list, an
    # unknown command, a noidle outside any idle (no answer), an idle woken by another client.
    c = Connection()
    c.socket.sendall(b'ping\nlsinfo\nstatus\nnoidle\ncommand_list_ok_begin\nping\nstatus\ncommand_list_end\n'
                     b'foo\ncount group artist\nstatus\nping\nidle options\n')
    time.sleep(0.5)
    Connection().request("repeat 1")
    c.socket.sendall(b"noidle\nstatus\nrepeat 0\nclose\n")
    c.socket.shutdown(socket.SHUT_WR)
    lines = c.stream.read().decode().splitlines()
    print([line for line in lines if line.startswith(("OK", "ACK", "list_OK", "directory: ", "state: ", "repeat: ", "changed: "))])


for part in parts:
    {"albumartist": albumartist, "files": files, "old-syntax": old_syntax, "positions": positions, "listfiles": listfiles, "outside": outside, "single": single,
     "list-limit": list_limit, "half-close": half_close, "pipelined": pipelined, "shared24": shared24}[part]()
