"""What each permission lets a client run, as `commands` and `notcommands` say it: run by
MPDServerTests.swift as `python3 permissions.py HOST PORT` against songbox and against Debian's
MPD, both with `default_permissions read` and the passwords `a@read,add`, `p@read,player`,
`c@read,control`, `ad@read,admin`. Prints `LEVEL: COMMAND...` for each, then `all: ...`."""
import sys

import mpd

host, port = sys.argv[1], int(sys.argv[2])
everything = set()
for level, password in [("read", None), ("add", "a"), ("player", "p"), ("control", "c"), ("admin", "ad")]:
    client = mpd.MPDClient()
    client.timeout = 20
    client.connect(host, port)
    if password:
        client.password(password)
    allowed = set(client.commands())
    everything |= allowed | set(client.notcommands())
    print(f"{level}: " + " ".join(sorted(allowed)), flush=True)
    client.disconnect()
print("all: " + " ".join(sorted(everything)), flush=True)
