-- songbox.mood and songbox.similar on the example library, whose audio_features rows the Swift
-- test (MoodTests) wrote: track with the n-th smallest id has energy (n-1)/15, valence
-- 1 - (n-1)/15, tempo 60 + 8(n-1), loudness -35 + (n-1), danceability 0.5. `played` is the
-- id of a track played an hour ago.
local sb = require "songbox"
local played = ...
local mood = sb.mood

local function total(tracks)
  local sum = 0
  for _, t in ipairs(tracks) do sum = sum + t.duration end
  return sum
end
local function longest(tracks)
  local most = 0
  for _, t in ipairs(tracks) do if t.duration > most then most = t.duration end end
  return most
end
local function no_repeats(tracks)
  local seen = {}
  for _, t in ipairs(tracks) do
    assert(not seen[t.id], "track " .. t.id .. " twice")
    seen[t.id] = true
  end
end

-- The presets are there, from plugins/moods.lua.
local names = {}
for _, m in ipairs(mood.list()) do names[m.name] = m end
for _, name in ipairs { "calm", "focus", "happy", "sad", "energetic", "party", "wake-up" } do
  assert(names[name] and names[name].preset, "preset " .. name .. " missing")
end
assert(mood.presets()[1]:find("moods.lua$"))

-- A time budget: filled to within one track's length, every track fits, none twice.
local calm = mood.playlist { mood = "calm", minutes = 0.5 }
assert(#calm > 0)
assert(total(calm) >= 30 and total(calm) - 30 < longest(calm), ("total %.1f"):format(total(calm)))
no_repeats(calm)
for _, t in ipairs(calm) do
  assert(t.score >= 0.5, "score " .. t.score)
  assert(t.energy <= 0.6, "energy " .. t.energy)       -- calm: energy {0, 0.4}
  assert(type(t.why) == "string" and t.why:find("calm energy"), t.why)
  assert(#t.reasons > 0 and t.reasons[1].mood == "calm")
end
-- The calmest tracks: nothing left out scores more than the least picked.
local least = 1
for _, t in ipairs(calm) do least = math.min(least, t.score) end
local chosen = {}
for _, t in ipairs(calm) do chosen[t.id] = true end
for _, t in ipairs(mood.candidates {}) do
  if not chosen[t.id] then assert(mood.score(t, "calm") <= least + 1e-9, "a better track was left out: " .. t.id) end
end

-- A count, a query, a language.
local energetic = mood.playlist { mood = "energetic", count = 3 }
assert(#energetic == 3)
for _, t in ipairs(energetic) do assert(t.energy >= 0.6, "energetic energy " .. t.energy) end
local mabel = mood.playlist { mood = "sad", count = 50, min_score = 0, query = 'artist:"Mabel Grey"' }
assert(#mabel > 0)
for _, t in ipairs(mabel) do assert(t.artist == "Mabel Grey", t.artist) end
local hebrew = mood.playlist { mood = "sad", count = 50, min_score = 0, language = "he" }
assert(#hebrew > 0)
for _, t in ipairs(hebrew) do
  assert(t.language == "he" and (t.title .. (t.artist or "")):find("[\xD7][\x90-\xAA]"), t.title)
end
local latin = mood.playlist { mood = "sad", count = 50, min_score = 0, language = "latin" }
assert(#latin > 0 and #latin + #hebrew <= 16)
for _, t in ipairs(latin) do assert(t.language == "latin", t.title) end

-- not_played_within: the track played an hour ago is left out of 2 days, kept otherwise.
local function has(tracks, id)
  for _, t in ipairs(tracks) do if t.id == id then return true end end
  return false
end
assert(has(mood.playlist { mood = "sad", count = 50, min_score = 0 }, played))
assert(not has(mood.playlist { mood = "sad", count = 50, min_score = 0, not_played_within = "2d" }, played))
assert(has(mood.playlist { mood = "sad", count = 50, min_score = 0, not_played_within = 0.01 }, played))   -- days: 15 minutes

-- A trajectory from calm to energetic: it leans more towards energetic at every step.
local path = mood.playlist { from = "calm", to = "energetic", count = 8, min_score = 0.3 }
assert(#path == 8, #path)
no_repeats(path)
local before
for _, t in ipairs(path) do
  local lean = mood.score(t, "energetic") - mood.score(t, "calm")
  if before then assert(lean >= before - 0.05, ("lean %.3f after %.3f"):format(lean, before)) end
  before = lean
end
assert(path[1].energy < path[#path].energy)

-- Moods combine: the geometric mean of the parts.
local t1 = mood.candidates {}[8]
local a, b, both = mood.score(t1, "calm"), mood.score(t1, "happy"), mood.score(t1, "calm+happy")
assert(math.abs(both - math.sqrt(a * b)) < 1e-9, ("%g %g %g"):format(a, b, both))
local score, why, reasons = mood.score(t1.id, "calm")
assert(score == a and why:find("^score") and reasons[1].feature)

-- similar: the nearest others, nearest first, itself left out.
local near = sb.similar(t1, 3)
assert(#near == 3)
for i, t in ipairs(near) do
  assert(t.id ~= t1.id)
  if i > 1 then assert(t.distance >= near[i - 1].distance) end
end

-- Feedback: skipped early in calm, the calmest track falls; liked, a track rises.
local first = mood.playlist { mood = "calm", count = 1 }[1]
local fresh = mood.score(first, "calm")
for _ = 1, 3 do mood.skip(first, "calm") end
assert(mood.feedback("calm")[1].track_id == first.id and mood.feedback("calm")[1].skips == 3)
assert(mood.playlist { mood = "calm", count = 1 }[1].id ~= first.id, "the skipped track is still first")
assert(math.abs(mood.score(first, "calm") - fresh * 0.6 ^ 3) < 1e-9)
assert(mood.forget("calm") == 1 and #mood.feedback("calm") == 0)
assert(mood.playlist { mood = "calm", count = 1 }[1].id == first.id)
local plain = mood.score(t1, "happy")
assert(plain < 0.9, plain)
assert(sb.library.set(t1, { liked = true }))
assert(math.abs(mood.score(t1, "happy") - (plain + 0.1)) < 1e-9)

-- A user's define of a preset's name wins.
mood.define("calm", { energy = { 0.9, 1 } })
for _, m in ipairs(mood.list()) do
  if m.name == "calm" then assert(not m.preset and m.ranges.energy[1] == 0.9) end
end
for _, t in ipairs(mood.playlist { mood = "calm", count = 2 }) do assert(t.energy >= 0.8, t.energy) end

-- A function mood: asked about every candidate.
mood.define("loud", function(track) return (track.loudness or -60) > -25 and 1 or 0 end)
for _, t in ipairs(mood.playlist { mood = "loud", count = 20 }) do assert(t.loudness > -25) end

-- Bad arguments are errors that say what is wrong.
local ok, message = pcall(mood.playlist, { mood = "nope" })
assert(not ok and message:find("unknown mood 'nope'"), message)
ok, message = pcall(mood.playlist, { mood = "calm", minutes = 0 / 0 })
assert(not ok and message:find("'minutes' must be"), message)
ok, message = pcall(mood.playlist, { mood = "calm", minutes = 5, count = 3 })
assert(not ok and message:find("not both"), message)
ok, message = pcall(mood.define, "x", { colour = { 0, 1 } })
assert(not ok and message:find("unknown feature 'colour'"), message)
ok, message = pcall(mood.define, "x", { energy = { 1, 0 } })
assert(not ok and message:find("low <= high"), message)
ok, message = pcall(mood.playlist, { mood = "calm", not_played_within = "soon" })
assert(not ok and message:find("not_played_within"), message)
print("moods ok")
