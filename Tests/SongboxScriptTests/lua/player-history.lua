-- What player-reasons.lua left in the library, read by a second `songbox run`. Run by
-- PlayerScriptTests.swift.
local sb = require "songbox"
local lib = require "player-lib"
local three, twenty, thirty, broken = lib.track("three"), lib.track("twenty"), lib.track("thirty"), lib.track("broken")

local function counts(track)
  local t = sb.library.get(track.id)
  return string.format("%s plays=%d skips=%d", lib.name(t), t.plays, t.skips)
end
assert(counts(three) == "three plays=1 skips=0", counts(three))
assert(counts(thirty) == "thirty plays=0 skips=2", counts(thirty))
assert(counts(twenty) == "twenty plays=1 skips=0", counts(twenty))
assert(counts(broken) == "broken plays=0 skips=0", counts(broken))
assert(sb.library.get(three.id).last_played and sb.library.get(twenty.id).last_played)
assert(sb.library.get(thirty.id).last_played == nil, "a skip is not a play")
lib.ok("plays and skips")

local recent = sb.history.recent {}
local rows = {}
for i, entry in ipairs(recent) do
  rows[i] = string.format("%s:%s:%s:%.1f", lib.name(entry), entry.kind, entry.reason, entry.played)
  assert(entry.track_id == entry.track.id and entry.path == entry.track.path and entry.at:match("^%d%d%d%d%-"))
end
assert(table.concat(rows, " ") == "twenty:play:replaced:11.0 thirty:skip:replaced:11.0 thirty:skip:skipped:12.1 "
  .. "three:play:finished:3.0", table.concat(rows, " "))
-- history.plays: plays only, not skips.
assert(#sb.history.plays(three) == 1 and #sb.history.plays(twenty) == 1)
assert(#sb.history.plays(thirty) == 0 and #sb.history.plays(broken) == 0)
lib.ok("history")

-- The queue and its state were saved at the end of the first run: the queue was cleared.
assert(#sb.queue.list() == 0 and sb.player.status().state == "stopped")
lib.ok("saved state")
