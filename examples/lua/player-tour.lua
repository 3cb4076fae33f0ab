-- A tour of the player from Lua: queue tracks, react to events, use timers.
--   songbox run examples/lua/player-tour.lua                       (plays on your sound card)
--   songbox run --output null --fast examples/lua/player-tour.lua  (no sound, no waiting)
local sb = require "songbox"

local function name(track) return (track.artist or "?") .. " - " .. (track.title or track.path) end

sb.queue.clear()
sb.queue.add(sb.library.query('artist:"Mabel Grey" sort:year,track'))
sb.queue.add(sb.library.query("title:אהבה limit:1"), { at = "next" })   -- nothing plays yet: first

sb.on("track_started", function(ev)
  print(string.format("%5.1f s  started  %s (%s)", sb.player.status().clock, name(ev.track), ev.reason))
end)
sb.on("track_ended", function(ev)
  print(string.format("%5.1f s  ended    %s: %s after %.1f s, counted as %s",
    sb.player.status().clock, name(ev.track), ev.reason, ev.played, ev.counted or "nothing"))
end)

-- Seven seconds in, skip whatever plays; at 12 s fade out over 3 s, then stop.
sb.after(7, function() sb.player.next() end)
-- The volume is saved with the queue: the tour puts back what it found, so the next
-- `songbox play` is not silent.
local volume_before = sb.player.volume()
sb.after(12, function()
  sb.player.fade{ to = 0, over = 3, curve = "log" }
  sb.after(3, function()
    sb.player.stop()
    sb.player.volume(volume_before)
  end)
end)

sb.player.set{ ["repeat"] = false, random = false, highlights = false }
sb.player.volume(100)
sb.player.play()
