-- The 240 s rule: of a long track (over 8 minutes), 240 s heard is a play even though it is
-- less than half. Run by PlayerScriptTests.swift.
local sb = require "songbox"
local lib = require "player-lib"
local long = lib.track("long")
assert(long.duration > 480)
local q = sb.queue.add({ long, long })
local ended = {}
sb.on("track_ended", function(e) ended[#ended + 1] = e end)
-- 239.9 s + the 0.1 s fade-out: not yet a play, but a skip.
sb.after(239.9 - 0.1, function() sb.player.next() end)
sb.on("track_started", function(e)
  if e.track.queue_id == q[2] then
    sb.after(240 - 0.1, function() sb.player.stop() end)
  end
end)
sb.after(10000, function()
  assert(#ended == 2)
  lib.at(ended[1].played, 239.9, "first played")
  assert(ended[1].reason == "skipped" and ended[1].counted == "skip", tostring(ended[1].counted))
  lib.at(ended[2].played, 240, "second played")
  assert(ended[2].reason == "stopped" and ended[2].counted == "play", tostring(ended[2].counted))
  lib.ok("240 s is a play")
end)
sb.player.play()
