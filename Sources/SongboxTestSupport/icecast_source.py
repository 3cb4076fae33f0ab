#!/usr/bin/env python3
"""An Icecast source client for the tests: streams an audio file, over and over, to a mount.

usage: icecast_source.py PORT MOUNT PASSWORD FILE BYTES_PER_SECOND|fast [CONTENT_TYPE]

CONTENT_TYPE is audio/mpeg unless given (application/ogg for an Ogg stream).

Lines on standard input are commands: `title TEXT` sets the stream's title (Icecast's admin
metadata call, as a DJ's software does), `stop` ends the stream (the connection closes).
Prints `streaming` once Icecast took the source.
"""
import base64
import socket
import sys
import threading
import time
import urllib.parse
import urllib.request

port, mount, password, path, rate = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
content_type = sys.argv[6] if len(sys.argv) > 6 else "audio/mpeg"
audio = open(path, "rb").read()
stop = threading.Event()


def admin(title):
    query = urllib.parse.urlencode({"mount": mount, "mode": "updinfo", "song": title})
    request = urllib.request.Request(f"http://127.0.0.1:{port}/admin/metadata?{query}")
    token = base64.b64encode(b"admin:adminpw").decode()
    request.add_header("Authorization", "Basic " + token)
    urllib.request.urlopen(request, timeout=10).read()


def commands():
    for line in sys.stdin:
        line = line.rstrip("\n")
        if line.startswith("title "):
            admin(line[6:])
            print("titled", flush=True)
        elif line == "stop":
            break
    stop.set()


def connect():
    """The source connection, once Icecast takes it (a server that has only just started may
    reset or refuse the first ones: on a loaded machine for several seconds)."""
    token = base64.b64encode(f"source:{password}".encode()).decode()
    answer = b""
    for _ in range(80):
        try:
            connection = socket.create_connection(("127.0.0.1", int(port)))
            connection.sendall((f"PUT {mount} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Basic {token}\r\n"
                                f"Content-Type: {content_type}\r\nIce-Name: Songbox Test Radio\r\nIce-Public: 0\r\n"
                                "Expect: 100-continue\r\n\r\n").encode())
            answer = connection.recv(4096)
            if b" 100 " in answer or b" 200 " in answer:
                return connection
            connection.close()
        except OSError as error:
            answer = str(error).encode()
        time.sleep(0.25)
    print("refused: " + answer.decode(errors="replace"), flush=True)
    sys.exit(1)


source = connect()
print("streaming", flush=True)
threading.Thread(target=commands, daemon=True).start()
chunk = 4096
sent, began = 0, time.monotonic()
while not stop.is_set():
    for start in range(0, len(audio), chunk):
        if stop.is_set():
            break
        source.sendall(audio[start:start + chunk])
        sent += len(audio[start:start + chunk])
        if rate != "fast":
            ahead = sent / int(rate) - (time.monotonic() - began)
            if ahead > 0:
                time.sleep(ahead)
source.close()
