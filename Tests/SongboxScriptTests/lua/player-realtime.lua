-- In real time (no --fast): a 2 s track and a timer. Run by PlayerScriptTests.swift.
local sb = require "songbox"
local lib = require "player-lib"
sb.queue.add(lib.track("two"))
local fired = false
sb.after(0.5, function()
  fired = true
  assert(sb.player.status().state == "playing")
  lib.ok("after")
end)
sb.on("track_ended", function(e)
  assert(fired, "the track ended before the timer")
  assert(e.reason == "finished" and e.counted == "play", e.reason)
  lib.ok("ended")
end)
sb.on("stopped", function() lib.ok("stopped") end)
sb.player.play()
