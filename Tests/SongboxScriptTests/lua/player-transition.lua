-- songbox.player.on_transition: the hook is asked ahead (natural and skip, at the start of the
-- outgoing track), sees both tracks with their features, and what it returns is the change:
-- twenty -> thirty crossfaded over 4 s at the end, a `next` 5 s into thirty crossfaded over 2 s,
-- twenty -> three gapless (nil: the default, no crossfade). Run by PlayerScriptTests.swift on an
-- analyzed library, which checks the WAV output's length (20 + 30 + 20 + 3 - 4 - 25 - 2 s).
local sb = require "songbox"
local lib = require "player-lib"
local three, twenty, thirty = lib.track("three"), lib.track("twenty"), lib.track("thirty")

local asked = {}
local handle = sb.player.on_transition(function(from, to, ctx)
  asked[#asked + 1] = ("%s>%s %s %s"):format(lib.name(from), lib.name(to), ctx.reason, ctx.crossfade)
  assert(type(from.energy) == "number" and type(to.loudness) == "number", "the features of both tracks")
  assert(from.queue_id and to.queue_id)
  if lib.name(to) == "thirty" and ctx.reason == "natural" then return { crossfade = 4 } end
  if ctx.reason == "skip" then return { crossfade = 2, curve = "linear" } end
  return nil
end)
assert(getmetatable(handle) ~= nil)
lib.fails("bad argument #1 to 'songbox.player.on_transition' (function expected, got nil)", sb.player.on_transition)

sb.queue.add({ twenty, thirty, twenty, three })
local log = lib.record("track_started", "track_ended")
sb.on("track_started", function(e)
  if lib.name(e.track) == "thirty" then sb.after(5, sb.player.next) end
end)
sb.player.play()
sb.on("stopped", function()
  print("asked " .. table.concat(asked, ", "))
  local lines = {}
  for _, entry in ipairs(log) do
    local e = entry.event
    lines[#lines + 1] = ("%s %s %.2f%s"):format(e.type, lib.name(e.track), entry.clock, e.reason and (" " .. e.reason) or "")
  end
  print(table.concat(lines, "\n"))
  lib.ok("transitions")
end)
