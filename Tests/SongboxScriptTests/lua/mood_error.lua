-- A function mood that fails: the error names this file and line.
local sb = require "songbox"
sb.mood.define("broken", function(track)
  return track.energy + nil
end)
sb.mood.playlist { mood = "broken", count = 3 }
