-- lyric events after a restart: the saved queue holds no lyric times, the library gives them
-- again. The first run (arg "first") plays about 7 s of thirty and exits, keeping the place;
-- the second resumes there: the line in effect there once, then the next on its sample.
local sb = require "songbox"
local lib = require "player-lib"
local thirty = lib.track("thirty")

if sb.args[1] == "first" then
  sb.queue.add(thirty)
  sb.player.play()
  sb.after(7, function() sb.exit() end)
  return
end

local heard = {}
sb.on("lyric", function(e)
  heard[#heard + 1] = { index = e.index, t = e.t, text = e.text, elapsed = sb.player.status().elapsed }
end)
sb.on("track_started", function(e) assert(e.reason == "restored", e.reason) end)
-- Where play() starts: the saved place (to the millisecond), on the nearest frame.
local from = sb.player.status().elapsed
assert(from > 4.75 and from < 9.873, "restored at " .. from)
sb.player.play()
sb.after(4, function()
  assert(#heard == 2, #heard .. " lyric events")
  assert(heard[1].index == 2 and heard[1].text == "Chorus" and math.floor(heard[1].elapsed * 44100 + 0.5) == math.floor(from * 44100 + 0.5),
    string.format("the line in effect where it resumed: line %d (%s) at %.9f", heard[1].index, heard[1].text, heard[1].elapsed))
  assert(heard[2].index == 3 and heard[2].t == 9.873, "then the next line")
  assert(math.floor(heard[2].elapsed * 44100 + 0.5) == (9873 * 44100 + 500) // 1000, "on its sample")
  lib.ok("restored")
  sb.exit()
end)
