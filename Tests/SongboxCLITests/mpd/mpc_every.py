"""Every command of `mpc help` (mpc 0.34), run against one server: prints, for each, a line
`COMMAND -> STATUS` and, for the commands whose output is the same music on any server, the
lines mpc printed (indented). Run by MPDServerTests against songbox and against Debian's MPD on
the same music; the test compares the two and lists each difference with its reason.

    python3 mpc_every.py HOST PORT

Left out: the commands that wait for ever by design (`idle`, `idleloop`, `waitmessage`,
`subscribe`), which the idle tests cover."""
import subprocess
import sys

host, port = sys.argv[1], sys.argv[2]
SONG = "Mabel Grey/Old Roads/02 - The River's Lullaby.mp3"

# (arguments, whether its output is compared): in an order that leaves something to act on.
COMMANDS = [
    (["clear"], False), (["add", "Mabel Grey"], False), (["playlist"], True),
    (["play", "1"], False), (["current"], True), (["queued"], True), (["next"], False), (["prev"], False),
    (["pause"], False), (["toggle"], False), (["pause-if-playing"], False), (["cdprev"], False),
    (["seek", "50%"], False), (["seek", "+00:00:01"], False), (["seekthrough", "+1"], False),
    (["crop"], False), (["add", "Mabel Grey"], False), (["move", "1", "2"], False), (["del", "1"], False),
    (["insert", SONG], False), (["prio", "5", "1"], False), (["shuffle"], False), (["stop"], False),
    (["crop"], False),
    (["outputs"], False), (["disable", "1"], False), (["enable", "1"], False), (["toggleoutput", "1"], False),
    (["toggleoutput", "1"], False), (["outputset", "1", "dop=1"], False),
    (["repeat", "on"], False), (["repeat", "off"], False), (["random", "on"], False), (["random", "off"], False),
    (["single", "once"], False), (["single", "off"], False), (["consume", "on"], False), (["consume", "off"], False),
    (["search", "title", "road"], True), (["find", "album", "Old Roads"], True),
    (["clear"], False), (["searchadd", "title", "road"], False), (["findadd", "album", "Old Roads"], False),
    (["playlist"], True), (["searchplay", "River"], False), (["stop"], False),
    (["list", "album"], True), (["list", "album", "artist", "Mabel Grey"], True), (["listall"], True),
    (["listall", "Mabel Grey"], True), (["ls"], True), (["ls", "Mabel Grey"], True),
    (["save", "mpc test"], False), (["lsplaylists"], True), (["playlist", "mpc test"], True),
    (["load", "mpc test"], False), (["rm", "mpc test"], False), (["rm", "mpc test"], False), (["lsplaylists"], True),
    (["crossfade"], True), (["crossfade", "0"], False), (["mixrampdb"], True), (["mixrampdelay"], True),
    (["clearerror"], False), (["replaygain"], True), (["replaygain", "track"], False), (["replaygain"], True),
    (["replaygain", "off"], False),
    (["sticker", SONG, "set", "rating", "5"], False), (["sticker", SONG, "get", "rating"], True),
    (["sticker", SONG, "list"], False), (["sticker", SONG, "delete", "rating"], False),
    (["sticker", "Mabel Grey", "find", "rating"], True),
    (["stats"], False), (["version"], False), (["channels"], True), (["sendmessage", "mpc-test", "hello"], False),
    (["update", "--wait"], False), (["rescan", "--wait"], False), (["volume", "50"], False), (["volume"], False),
    (["listneighbors"], False), (["mount"], False), (["unmount", "nowhere"], False),
    (["albumart", SONG], False), (["readpicture", SONG], False),
    (["status"], False), ([], False),
]

for arguments, compared in COMMANDS:
    # --wait goes before the command, as mpc takes options.
    options = [a for a in arguments if a.startswith("--")]
    words = [a for a in arguments if not a.startswith("--")]
    run = subprocess.run(["mpc", "--host", host, "--port", port] + options + words,
                         capture_output=True, timeout=60)
    print(" ".join(arguments) or "(status)", "->", run.returncode, flush=True)
    if compared:
        for line in run.stdout.decode(errors="replace").splitlines():
            print("    " + line)
