-- Bedtime: calm music that fades down to silence over 30 minutes, then stops, and puts the
-- volume back for tomorrow (a player left at volume 0 is a silent morning).
--
--   songbox run examples/bedtime.lua [MINUTES]              -- through the daemon when one runs
--   songbox run --fast --output null examples/bedtime.lua   -- see what it does, in a moment
--
-- Calm means low energy once `songbox analyze` has measured the library (a "calm" mood when the
-- moods plugin is there); before that, any tracks.
local sb = require "songbox"
-- "1 track", "2 tracks".
local function count(n, one, many) return n .. " " .. (n == 1 and one or many) end
local minutes = tonumber((...)) or tonumber(sb.options.minutes) or 30
local before = sb.player.status().volume

local function calm_tracks()
  local moods = sb.mood
  if moods and moods.playlist then
    local ok, tracks = pcall(moods.playlist, { mood = "calm", minutes = minutes + 5 })
    if ok and tracks and #tracks > 0 then return tracks, "the calm mood" end
  end
  local tracks = sb.library.query(("energy:..0.4 random limit:%dm"):format(minutes + 5))
  if tracks and #tracks > 0 then return tracks, "low energy" end
  return sb.library.query(("random limit:%dm"):format(minutes + 5)) or {}, "any tracks (nothing analyzed yet)"
end

local tracks, why = calm_tracks()
if #tracks == 0 then
  print("bedtime: the library has no tracks to play")
  return
end
sb.queue.clear()
sb.queue.add(tracks)
sb.player.set { ["repeat"] = true, random = false }
sb.player.play()
sb.player.fade { to = 0, over = minutes * 60, curve = "log" }
print(("bedtime: %s (%s), fading from %d to silence over %d minutes"):format(count(#tracks, "track", "tracks"), why, before, minutes))

local started = sb.time.now()
local report = sb.every(minutes * 12, function()   -- five lines along the way
  print(("%5.1f min  volume %5.1f"):format((sb.time.now() - started) / 60, sb.player.status().volume))
end)
sb.after(minutes * 60, function()
  report:off()
  sb.player.stop()
  sb.player.volume(before)
  print(("%5.1f min  stopped; the volume is %d again for tomorrow"):format((sb.time.now() - started) / 60, before))
  sb.exit(0)
end)
