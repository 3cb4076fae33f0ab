"""The last line of the answer to each request line, each on a fresh connection: run by the
tests as `python3 answers.py HOST PORT LINE...` against songbox and against Debian's MPD, to
compare what both say (an ACK's words, or OK)."""
import socket
import sys

host, port = sys.argv[1], int(sys.argv[2])
for request in sys.argv[3:]:
    with socket.create_connection((host, port), timeout=20) as connection:
        stream = connection.makefile("rwb")
        assert stream.readline().startswith(b"OK MPD ")
        stream.write(request.encode() + b"\n")
        stream.flush()
        while True:
            line = stream.readline().decode()
            if not line or line.startswith("OK") or line.startswith("ACK"):
                print(line.rstrip("\n"), flush=True)
                break
