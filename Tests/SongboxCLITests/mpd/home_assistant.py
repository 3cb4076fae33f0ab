"""What Home Assistant's MPD integration does, in its order, with python-mpd2's asyncio client
(the one it uses): connect, `commands`, then each update `status`, `currentsong`,
`listplaylists`; its services (volume, pause/play, next/previous, seek, repeat one/all, shuffle,
play a playlist or a file, clear); the artwork through `readpicture`, then `albumart`, where a
NO_EXIST answer means "none". Run by MPDServerTests.swift as `python3 home_assistant.py HOST
PORT PLAYLIST`; prints `ok PART` after each part, and fails at the first surprise."""
import asyncio
import sys

import mpd
from mpd.asyncio import MPDClient

host, port, playlist = sys.argv[1], int(sys.argv[2]), sys.argv[3]


def ok(part):
    print("ok", part, flush=True)


async def artwork(client, commands, file):
    """The integration's lookup: embedded first, then the folder's cover; NO_EXIST is 'none'."""
    found = None
    for command in ["readpicture", "albumart"]:
        if command not in commands or found:
            continue
        try:
            found = await getattr(client, command)(file)
        except mpd.CommandError as error:
            assert error.errno is mpd.FailureResponseCode.NO_EXIST, error
    return found


async def update(client):
    """One update, as the entity polls: the state, the song, the position, the playlists."""
    status = await client.status()
    song = await client.currentsong()
    position = status.get("elapsed") or (status.get("time") or "0:0").split(":")[0]
    float(position)
    names = [entry["playlist"] for entry in await client.listplaylists()]
    return status, song, names


async def main():
    client = MPDClient()
    client.timeout = 30
    await client.connect(host, port)
    commands = list(await client.commands())
    assert "readpicture" in commands and "albumart" in commands, commands
    status, song, names = await update(client)
    assert status["state"] in ("play", "pause", "stop") and "volume" in status, status
    assert playlist in names, names
    ok("connect and update")

    # "Select source": a stored playlist is cleared in, loaded and played.
    await client.clear()
    await client.load(playlist)
    await client.play()
    status, song, _ = await update(client)
    assert status["state"] == "play" and song.get("file") and song.get("title"), (status, song)
    duration = song.get("time") or status["time"].split(":")[1]
    assert int(float(duration)) > 0, duration
    ok("play a playlist")

    await client.setvol(40)
    assert (await client.status())["volume"] == "40"
    await client.setvol(45)          # volume up by 5
    await client.pause(1)
    assert (await client.status())["state"] == "pause"
    await client.pause(0)
    assert (await client.status())["state"] == "play"
    await client.seekcur(2)
    assert float((await client.status())["elapsed"]) >= 1.9
    await client.next()
    await client.previous()
    ok("transport and volume")

    await client.repeat(1)
    await client.single(1)           # repeat one
    status = await client.status()
    assert status["repeat"] == "1" and status["single"] == "1", status
    await client.single(0)           # repeat all
    await client.repeat(0)
    await client.single(0)           # repeat off
    await client.random(1)
    assert (await client.status())["random"] == "1"
    await client.random(0)
    ok("repeat and shuffle")

    # "Play media" with a file, and its artwork the way the integration fetches it.
    song = await client.currentsong()
    await client.clear()
    await client.add(song["file"])
    await client.play()
    art = await artwork(client, commands, song["file"])
    print("artwork", "none" if not art else f"{art.get('type', 'image/png')} {len(art['binary'])}", flush=True)
    await client.stop()
    assert (await client.status())["state"] == "stop"
    await client.clear()
    assert (await client.status())["playlistlength"] == "0"
    ok("play a file, artwork, stop, clear")
    client.disconnect()


asyncio.run(main())
