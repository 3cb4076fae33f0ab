#!/usr/bin/env python3
"""A SHOUTcast 1 server for the tests: answers `ICY 200 OK` (not HTTP) and sends an MP3 file,
with a StreamTitle metadata block every METAINT bytes, then closes (as a station's server
does when its source stops).

usage: shoutcast_v1.py PORT FILE TITLE
Prints `listening` once it accepts connections.
"""
import sys
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import loopback  # noqa: E402

port, path, title = int(sys.argv[1]), sys.argv[2], sys.argv[3]
audio = open(path, "rb").read()
METAINT = 8192
text = ("StreamTitle='%s';" % title).encode()
block = text + b"\0" * (-len(text) % 16)


def serve(client):
    try:
        client.recv(4096)
        client.sendall(b"ICY 200 OK\r\nicy-name:Old Shoutcast\r\nicy-metaint:%d\r\ncontent-type:audio/mpeg\r\n\r\n" % METAINT)
        for start in range(0, len(audio), METAINT):
            piece = audio[start:start + METAINT]
            client.sendall(piece)
            if len(piece) == METAINT:
                client.sendall(bytes([len(block) // 16]) + block)
    except OSError:
        pass
    finally:
        client.close()


loopback.serve_forever(port, serve)
