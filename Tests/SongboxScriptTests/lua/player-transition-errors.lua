-- A transition hook that fails, returns what is not a transition, or a key it does not know:
-- each is reported at its place and the default stands (no crossfade: three tracks gapless).
local sb = require "songbox"
local lib = require "player-lib"
local asked = 0
sb.player.on_transition(function(from, to, ctx)
  asked = asked + 1
  if asked == 1 then error("boom in a hook") end
  if asked == 2 then return { crossfade = "long" } end
  return { crossfade = 3, fade = true }
end)
sb.queue.add({ lib.track("three"), lib.track("three"), lib.track("three") })
sb.player.play()
sb.on("stopped", function() print("asked " .. asked) end)
