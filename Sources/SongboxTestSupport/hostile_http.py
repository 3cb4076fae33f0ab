#!/usr/bin/env python3
"""A hostile server for the tests: each path a way a server (or what is not one) can misbehave.
Every request's bytes are appended to REQUESTS, so a test sees exactly what songbox sent.

usage: hostile_http.py PORT REQUESTS MP3 [--mpd]
Prints `listening` once it accepts connections.

With --mpd it is an MPD server instead: it greets first ("OK MPD 0.23.5"), answers each line
with an ACK (as MPD does a command it does not know) and never says HTTP or ICY. Else, by path:
  /stall/...       answers ICY 200 OK with audio headers, then sends nothing and holds on
  /loop/N          redirects to /loop/N+1, for ever
  /to-file         redirects to file:///etc/passwd
  /auth/...        wants Basic authentication for songbox:s3cret (401 without), then the MP3
  anything else    404
"""
import base64
import sys
import threading
import time
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import loopback  # noqa: E402

port, requests_path, mp3_path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
mpd = "--mpd" in sys.argv[4:]
audio = open(mp3_path, "rb").read()
lock = threading.Lock()


def record(data):
    with lock:
        with open(requests_path, "ab") as log:
            log.write(data + b"\n----\n")


def read_head(client):
    data = b""
    client.settimeout(10)
    while b"\r\n\r\n" not in data and len(data) < 65536:
        chunk = client.recv(4096)
        if not chunk:
            break
        data += chunk
    return data


def impersonate_mpd(client):
    client.sendall(b"OK MPD 0.23.5\n")
    client.settimeout(5)
    received = b""
    try:
        while True:
            chunk = client.recv(4096)
            if not chunk:
                break
            received += chunk
            for _ in range(chunk.count(b"\n")):
                client.sendall(b"ACK [5@0] {} unknown command\n")
    except OSError:
        pass
    record(received)


def serve(client):
    try:
        if mpd:
            return impersonate_mpd(client)
        head = read_head(client)
        record(head)
        line = head.split(b"\r\n", 1)[0].decode("latin-1")
        path = line.split(" ")[1] if line.count(" ") >= 2 else ""
        if path.startswith("/stall/"):
            client.sendall(b"ICY 200 OK\r\nicy-name:Stalled\r\ncontent-type:audio/mpeg\r\n\r\n")
            time.sleep(600)
        elif path.startswith("/loop/"):
            n = int(path.split("/")[2] or "0")
            client.sendall(b"HTTP/1.1 302 Found\r\nLocation: /loop/%d\r\nContent-Length: 0\r\nConnection: close\r\n\r\n" % (n + 1))
        elif path == "/to-file":
            client.sendall(b"HTTP/1.1 302 Found\r\nLocation: file:///etc/passwd\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        elif path.startswith("/auth/"):
            wanted = b"basic " + base64.b64encode(b"songbox:s3cret").lower()
            fields = [l.split(b":", 1) for l in head.split(b"\r\n")[1:] if b":" in l]
            if any(k.strip().lower() == b"authorization" and v.strip().lower() == wanted for k, v in fields):
                client.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: audio/mpeg\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(audio))
                client.sendall(audio)
            else:
                client.sendall(b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"x\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        else:
            client.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    except OSError:
        pass
    finally:
        client.close()


loopback.serve_forever(port, serve)
