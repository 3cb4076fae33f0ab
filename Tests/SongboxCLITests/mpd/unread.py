"""200 clients that ask for much and never read their replies, while another client (python-mpd2)
uses the daemon: it is answered, the daemon's memory stays bounded, the music plays on, and a
client that leaves its reply unread too long is dropped. Run by MPDServerTests.swift as
`python3 unread.py HOST PORT SOCKET PID` against a daemon that takes 300 connections; prints
`ok CASE` after each case. The 200 connect to the Unix socket, whose small kernel buffers (some
200 KiB, where TCP's grow to 4 MiB) make them stop reading soon; python-mpd2 uses TCP."""
import os
import socket
import sys
import time

import mpd

host, port, path, pid = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
# Far more than it takes to answer (a fraction of a second); a daemon whose threads all wait
# on readers that never read answers in no less than its write timeout (30 s), if at all.
DEADLINE = 15


def ok(case):
    print("ok", case, flush=True)


def resident_kib():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])


client = mpd.MPDClient()
client.timeout = DEADLINE
client.connect(host, port)
client.clear()
client.add("")
client.repeat(1)
client.play()
entries, queued, found = len(client.listallinfo()), len(client.playlistinfo()), len(client.find("(base '')"))
assert entries > 0 and queued > 0 and found > 0
time.sleep(1)
start_wall, start_played, start_memory = time.time(), int(client.stats()["playtime"]), resident_kib()


def sockets():
    """The daemon's open sockets (its connections, and its listeners)."""
    count = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            count += os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:")
        except FileNotFoundError:
            pass
    return count


start_sockets = sockets()
client.disconnect()

# 200 clients: each asks for a whole-library listing many times over (one long command list or
# many commands) and reads nothing. Each answer is megabytes, far more than the sockets hold.
greedy = []
for index in range(200):
    connection = socket.socket(socket.AF_UNIX)
    connection.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    connection.connect(path)
    connection.settimeout(DEADLINE)
    if index % 2:
        connection.sendall(b"command_list_begin\n" + b"listallinfo\n" * 5000 + b"command_list_end\n")
    else:
        connection.sendall(b"listallinfo\nplaylistinfo\nfind \"(title != '')\"\n" * 2000)
    greedy.append(connection)
time.sleep(2)
ok("200 unread clients")

# Another client is answered, every command, big answers too.
began = time.time()
client = mpd.MPDClient()
client.timeout = DEADLINE
client.connect(host, port)
assert client.status()["state"] == "play"
assert len(client.listallinfo()) == entries
assert len(client.playlistinfo()) == queued
assert len(client.find("(base '')")) == found
assert client.ping() is None
assert time.time() - began < DEADLINE
ok("another client is answered")

# Memory stays bounded: no client's answer is held whole (each would be megabytes), nor its
# requests (some 100 KB each): a read or two of them, a piece or two of the answer. About 15 MB
# for the 200; 100 MB when every request line was read ahead and each piece was copied twice.
time.sleep(1)
grown = resident_kib() - start_memory
assert grown < 48 * 1024, f"memory grew by {grown} KiB"
ok("memory bounded")

# The music played on without a gap.
wall, played = time.time() - start_wall, int(client.stats()["playtime"]) - start_played
assert played >= wall - 2, f"played {played} s in {wall:.1f} s"
ok("still playing")

# A client that leaves its reply unread too long (30 s) is dropped: the daemon closes each of
# those connections (its open files tell; reading them would let it go on).
def connections():
    return sockets() - start_sockets


assert connections() >= 200
while connections() > 1 and time.time() < start_wall + 150:
    time.sleep(1)
assert connections() <= 1, f"{connections()} connections still open"
assert client.ping() is None
ok("unread clients dropped")
for connection in greedy:
    connection.close()
client.disconnect()
