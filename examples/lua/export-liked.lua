-- Saves your liked tracks as the playlist "Liked tracks" and exports it to FILE.
-- Usage: songbox run examples/lua/export-liked.lua FILE   (a .json name writes songbox's
-- portable JSON, which another songbox can import by tags and identifiers; any other, M3U8)
local sb = require "songbox"
local file = sb.args[1]
if not file then
  print("usage: songbox run export-liked.lua FILE   (for example ~/liked.m3u8)")
  sb.exit(2)
  return
end

local liked = sb.library.find { liked = true, sort = { "artist", "album", "track" } }
assert(sb.playlist.save("Liked tracks", liked, { replace = true }))
local count = assert(sb.playlist.export("Liked tracks", file, {
  format = file:match("%.json$") and "json" or "m3u8",
}))
print(("exported %d liked track%s to %s"):format(count, count == 1 and "" or "s", file))
