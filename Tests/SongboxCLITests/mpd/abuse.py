"""Clients that abuse a songbox daemon's MPD port: the daemon must stay up, answer the others,
keep its memory bounded and keep playing. Run by MPDServerTests.swift as
`python3 abuse.py HOST PORT PID`; prints `ok CASE` after each case."""
import socket
import sys
import time

host, port, pid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])


def ok(case):
    print("ok", case, flush=True)


def connect():
    connection = socket.create_connection((host, port), timeout=20)
    stream = connection.makefile("rwb")
    greeting = stream.readline()
    assert greeting.startswith(b"OK MPD "), greeting
    return connection, stream


def answer(stream):
    lines = []
    while True:
        line = stream.readline()
        assert line, "the connection was closed"
        lines.append(line.rstrip(b"\n"))
        if line.startswith(b"OK") or line.startswith(b"ACK"):
            return lines


def ask(*lines):
    connection, stream = connect()
    with connection:
        stream.write(b"".join(lines))
        stream.flush()
        return answer(stream)


def resident_kib():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])


def playtime():
    for line in ask(b"stats\n"):
        if line.startswith(b"playtime: "):
            return int(line.split()[1])


# Music plays the whole time (the queue repeats).
assert ask(b"command_list_begin\nclear\nadd \"\"\nrepeat 1\nplay\ncommand_list_end\n")[-1] == b"OK"
start_wall, start_played, start_memory = time.time(), playtime(), resident_kib()

# A 1 MiB line with no end: the connection is dropped.
connection, stream = connect()
with connection:
    try:
        connection.sendall(b"a" * (1 << 20))
        assert connection.recv(100) == b"", "a 1 MiB line was answered"
    except (ConnectionResetError, BrokenPipeError):
        pass
ok("1 MiB line")

# An 8 KiB+ line is a request like any other: a filter of 9,000 bytes is read whole and
# answered (a value that long is more than a query term may hold: a clear ACK).
long = ask(b'find "(artist == \'' + b"x" * 9000 + b'\')"\n')
assert len(long) == 1 and long[0].startswith(b"ACK [2@0] {find}") and b"long" in long[0], long
ok("8 KiB line")

# NUL bytes and bytes that are not UTF-8: an ACK, and the connection goes on.
connection, stream = connect()
with connection:
    stream.write(b"status\x00\n")
    stream.flush()
    assert answer(stream)[-1].startswith(b"ACK [2@0]")
    stream.write(b"find artist \xff\xfe\n")
    stream.flush()
    assert answer(stream)[-1].startswith(b"ACK [2@0]")
    stream.write(b"ping\n")
    stream.flush()
    assert answer(stream) == [b"OK"]
ok("garbage bytes")

# A list of 10,000 commands is run; a longer one closes the connection (as MPD closes it for
# one over its limit), unanswered, and the lines after it are not run.
assert ask(b"command_list_begin\n" + b"ping\n" * 10_000 + b"command_list_end\n") == [b"OK"]
connection, stream = connect()
with connection:
    try:
        stream.write(b"command_list_begin\n" + b"ping\n" * 10_001 + b"command_list_end\nping\n")
        stream.flush()
        assert stream.readline() == b"", "a list over the limit was answered"
    except (ConnectionResetError, BrokenPipeError):
        pass
ok("command lists")

# 200 connections at once: up to the limit are served, the rest are closed at once.
sockets, served = [], 0
for _ in range(200):
    connection = socket.create_connection((host, port), timeout=20)
    sockets.append(connection)
for connection in sockets:
    try:
        if connection.recv(64).startswith(b"OK MPD "):
            served += 1
    except ConnectionResetError:
        pass
assert 90 <= served <= 100, served
for connection in sockets:
    connection.close()
time.sleep(0.5)
assert ask(b"ping\n") == [b"OK"]
ok("200 connections")

# A client that asks for much and never reads: it does not hold the others up.
greedy = socket.create_connection((host, port), timeout=20)
greedy.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
greedy.sendall(b"listallinfo\n" * 2000)
time.sleep(1)
began = time.time()
assert ask(b"status\n")[-1] == b"OK"
assert time.time() - began < 2, "an unread client slowed the others down"
ok("unread replies")

# Through all of it the daemon stayed up, its memory bounded, and the music went on.
time.sleep(1)
wall, played = time.time() - start_wall, playtime() - start_played
assert played >= wall - 2, f"played {played} s in {wall:.1f} s"
grown = resident_kib() - start_memory
assert grown < 64 * 1024, f"memory grew by {grown} KiB"
greedy.close()
ok("still playing")
