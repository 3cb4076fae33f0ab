-- Playlists from Lua: save, add, move, remove, rename, export, import, delete.
-- Usage: songbox run examples/lua/playlists.lua [FOLDER]   (FOLDER for the exported files, default /tmp)
local sb = require "songbox"
-- "1 track", "2 tracks".
local function count(n, one, many) return n .. " " .. (n == 1 and one or many) end
local folder = sb.args[1] or "/tmp"

local tracks = sb.library.query("sort:artist,album,track limit:5")
assert(sb.playlist.save("Example", { tracks[1], tracks[2] }, { replace = true }))
assert(sb.playlist.add("Example", { tracks[3] }))              -- at the end
assert(sb.playlist.add("Example", { tracks[4].id }, { at = 1 })) -- positions are 1-based
assert(sb.playlist.move("Example", 1, 4))                      -- the first item goes last
assert(sb.playlist.remove("Example", { 1 }))

local playlist = sb.playlist.get("Example")
print(playlist.name .. ": " .. count(#playlist.tracks, "track", "tracks"))
for i, t in ipairs(playlist.tracks) do print(i, t.artist, t.title) end

-- Soft failures return nil and a message:
local missing, message = sb.playlist.get("No such playlist")
print(missing, message)

local file = folder .. "/songbox-example.json"
print("exported", sb.playlist.export("Example", file, { format = "json" }))
local report = assert(sb.playlist.import(file, { name = "Example (imported)", replace = true }))
print(("imported %d of %d entries"):format(report.matched, report.total))

assert(sb.playlist.rename("Example (imported)", "Example copy"))
for _, p in ipairs(sb.playlist.list()) do print(p.kind, p.name, count(p.tracks, "track", "tracks")) end
assert(sb.playlist.delete("Example copy"))
assert(sb.playlist.delete("Example"))
