-- Under --dry-run every writing function refuses and reading works. Run by LibraryAPITests.swift.
local sb = require "songbox"
assert(sb.dry_run == true)
local function refused(name, f, ...)
  local ok, err = pcall(f, ...)
  assert(not ok and err:find("dry run: " .. name .. " refused", 1, true), name .. ": " .. tostring(err))
end
local t = sb.library.query("limit:1")[1]
refused("library.set", sb.library.set, t.id, { rating = 5 })
refused("playlist.save", sb.playlist.save, "X", { t })
refused("playlist.add", sb.playlist.add, "X", { t })
refused("playlist.remove", sb.playlist.remove, "X", { 1 })
refused("playlist.move", sb.playlist.move, "X", 1, 2)
refused("playlist.rename", sb.playlist.rename, "X", "Y")
refused("playlist.delete", sb.playlist.delete, "X")
refused("playlist.export", sb.playlist.export, "X", "x.m3u8")
refused("playlist.import", sb.playlist.import, "x.m3u8")
-- A definition is checked, not stored (a plugin's top level is its definitions: the check goes on).
assert(sb.smart("X", "plays>0") == true and sb.smart("F", function() return {} end) == true)
local bad, why = sb.smart("X", "plays>")
assert(bad == nil and why:find("songbox.smart: ", 1, true), tostring(why))
-- Reading works.
assert(#sb.library.find { limit = 2 } == 2 and sb.library.get(t.id).id == t.id and sb.library.stats().tracks == 16)
assert(#sb.history.recent() == 0 and #sb.history.top() == 0 and #sb.history.plays(t) == 0)
assert(#sb.playlist.list() == 0)
local value, message = sb.playlist.get("X")
assert(value == nil and message == "songbox.playlist.get: no playlist named 'X'")
assert(sb.library.get(t.id).rating == nil)
print("dry run ok")
