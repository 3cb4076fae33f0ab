-- A playlist for a mood, from your own files:
--   songbox analyze                                    (once: measures what is not yet measured)
--   songbox run examples/mood-playlist.lua calm 45     (45 minutes of calm; then it plays, on the
--                                                      daemon when one runs)
--   songbox run --output null --fast examples/mood-playlist.lua happy 10 'genre:Folk' he
-- Arguments: MOOD (a preset: calm, focus, happy, sad, energetic, party, wake-up; or joined,
-- "calm+happy"; or "calm>energetic" to move from one to the other), MINUTES (default 45),
-- QUERY (the query language; default all), LANGUAGE (he, latin, other or your own).
local sb = require "songbox"
-- "1 track", "2 tracks".
local function count(n, one, many) return n .. " " .. (n == 1 and one or many) end

local mood, minutes = sb.args[1] or "calm", tonumber(sb.args[2] or "45")
local query = sb.args[3] ~= "" and sb.args[3] or nil
local language = sb.args[4] ~= "" and sb.args[4] or nil
if not minutes or minutes <= 0 then error("MINUTES must be a positive number, got " .. tostring(sb.args[2]), 0) end

-- The analysis is a command of its own (it decodes every file on all cores): say what is missing.
local analyzed, all = #sb.mood.candidates {}, sb.library.stats().tracks
if analyzed < all then
  print(("%d of %d tracks are analyzed: run `songbox analyze` to measure the others."):format(analyzed, all))
end

local options = { minutes = minutes, query = query, language = language, not_played_within = nil }
local from, to = mood:match("^(.-)>(.+)$")
if from then options.from, options.to = from, to else options.mood = mood end

-- A running daemon owns the player: the playlist is handed to it below. Else it plays here.
local on_daemon = sb.daemon and sb.daemon.running()
local tracks
if on_daemon then tracks = assert(sb.mood.playlist(options)) else tracks = sb.mood.play(options) end
if #tracks == 0 then
  print(("No track fits '%s'%s. See the moods with their ranges:"):format(mood, query and (" among " .. query) or ""))
  for _, m in ipairs(sb.mood.list()) do print("  " .. m.name) end
  return
end

local function title(t) return t.title or t.path:match("[^/]*$") end
local function clock(seconds) return ("%d:%02d"):format(seconds // 60, math.floor(seconds % 60)) end
local function value(x, format) return x and format:format(x) or "-" end
local total = 0
print(("%s, %s:"):format(mood, clock(minutes * 60)))
for i, t in ipairs(tracks) do
  total = total + t.duration
  print(("%2d. %s  %s - %s  [%s]"):format(i, clock(t.duration), sb.text.truncate(t.artist or "?", 20),
    sb.text.truncate(title(t), 30), t.language))
  print(("      energy %s  valence %s  dance %s  tempo %s  %s LUFS  %s"):format(value(t.energy, "%.2f"),
    value(t.valence, "%.2f"), value(t.danceability, "%.2f"), value(t.tempo, "%.0f"), value(t.loudness, "%.1f"),
    t.key or ""))
  print("      " .. t.why)
end
print(count(#tracks, "track", "tracks") .. ", " .. clock(total))
if total < minutes * 60 then print(("(no more of your analyzed tracks fit '%s' well enough)"):format(mood)) end

local name = "Mood: " .. mood
assert(sb.playlist.save(name, tracks, { replace = true }))
if on_daemon then
  for _, command in ipairs { { "clear" }, { "load", name }, { "play" } } do
    assert(sb.daemon.command(table.unpack(command)))
  end
  print(("Saved as playlist '%s'; playing on the songbox daemon."):format(name))
  return
end
print(("Saved as playlist '%s'; playing."):format(name))
sb.on("track_started", function(ev) print("playing: " .. title(ev.track)) end)
