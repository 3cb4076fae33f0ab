-- Smart fades: the crossfade between two tracks follows the music (docs/player.md#plugins-choose).
-- Long fades between calm tracks, short ones between energetic ones, none across a big jump
-- in tempo or key. From `songbox analyze`'s features; a track not analyzed gets the default.
--
-- Off until turned on:
--   plugin.smart-fades.enabled = true
-- and, if you like (the defaults shown):
--   plugin.smart-fades.calm_seconds = 8        the fade between two calm tracks (energy 0)
--   plugin.smart-fades.energetic_seconds = 2   the fade between two energetic ones (energy 1)
--   plugin.smart-fades.tempo_jump = 0.15       no fade when the tempos differ by more (15%)
--   plugin.smart-fades.key_jump = 3            no fade when the keys are more fifths apart
local sb = require "songbox"
local options = sb.options

local function number(key, default, low, high)
  local value = options[key]
  if type(value) ~= "number" or value ~= value or value < low or value > high then return default end
  return value
end

if options.enabled ~= true then return end
local calm = number("calm_seconds", 8, 0, 30)
local energetic = number("energetic_seconds", 2, 0, 30)
local tempo_jump = number("tempo_jump", 0.15, 0, 10)
local key_jump = number("key_jump", 3, 0, 6)

-- A key ("A minor") as its place on the circle of fifths (a minor key at its relative major's).
local pitches = { C = 0, ["C#"] = 1, Db = 1, D = 2, ["D#"] = 3, Eb = 3, E = 4, F = 5, ["F#"] = 6, Gb = 6,
                  G = 7, ["G#"] = 8, Ab = 8, A = 9, ["A#"] = 10, Bb = 10, B = 11 }
local function fifths(key)
  if type(key) ~= "string" then return nil end
  local name, mode = key:match("^(%a[#b]?) (%a+)$")
  local pitch = name and pitches[name]
  if not pitch then return nil end
  if mode == "minor" then pitch = (pitch + 3) % 12 end
  return (pitch * 7) % 12
end

-- How far apart two tempos are (a share), a half or a double tempo counting as the same pulse.
local function tempo_distance(a, b)
  if type(a) ~= "number" or type(b) ~= "number" or a <= 0 or b <= 0 then return nil end
  local best = math.huge
  for _, ratio in ipairs { b / a, 2 * b / a, b / (2 * a) } do best = math.min(best, math.abs(ratio - 1)) end
  return best
end

sb.player.on_transition(function(from, to, ctx)
  local tempo = tempo_distance(from.tempo, to.tempo)
  if tempo and tempo > tempo_jump then return { crossfade = 0 } end
  local a, b = fifths(from.key), fifths(to.key)
  if a and b and math.min((a - b) % 12, (b - a) % 12) > key_jump then return { crossfade = 0 } end
  if type(from.energy) ~= "number" or type(to.energy) ~= "number" then return nil end
  local energy = math.max(0, math.min(1, (from.energy + to.energy) / 2))
  return { crossfade = calm + (energetic - calm) * energy, curve = "equal-power" }
end)
sb.log.info("smart fades are on")
