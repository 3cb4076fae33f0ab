-- songbox.mood.playlist over every analyzed track of the library (bench/moods-run fills
-- audio_features with made-up features first): the first call (reads the analyzed tracks), then
-- the median of 20 warm calls, for a preset, a joined mood, a trajectory, and with a query.
local sb = require "songbox"
local function time(options)
  local start = sb.monotonic()
  local tracks = sb.mood.playlist(options)
  return (sb.monotonic() - start) * 1000, #tracks
end
local function median(options)
  local times = {}
  for i = 1, 20 do times[i] = time(options) end
  table.sort(times)
  return times[10]
end
local cold, picked = time { mood = "calm", minutes = 45 }   -- first: reads the analyzed tracks
local analyzed = #sb.mood.candidates {}
print(("| analyzed tracks | %d |"):format(analyzed))
print(("| first call (reads them), calm 45 min | %.1f ms (%d tracks) |"):format(cold, picked))
for _, case in ipairs {
  { "calm, 45 minutes", { mood = "calm", minutes = 45 } },
  { "calm+happy, 45 minutes, not played within 2d", { mood = "calm+happy", minutes = 45, not_played_within = "2d" } },
  { "calm to energetic, 60 minutes", { from = "calm", to = "energetic", minutes = 60 } },
  { "party, 20 tracks, language he", { mood = "party", count = 20, language = "he" } },
} do
  print(("| %s (median of 20 warm) | %.1f ms |"):format(case[1], median(case[2])))
end
local t = sb.mood.candidates {}[1]
local start = sb.monotonic()
for _ = 1, 20 do sb.similar(t, 10) end
print(("| similar(track, 10) | %.1f ms |"):format((sb.monotonic() - start) * 1000 / 20))
