-- Helpers for the player-*.lua scripts (run by PlayerScriptTests.swift through `songbox run --fast`).
-- The library they run against holds untagged tones named after their length: three.mp3 (3 s),
-- twenty.mp3 (20 s), thirty.mp3 (30 s); some tests add broken.mp3 (fails 4 s in), corrupt.mp3
-- (not MPEG audio), two.mp3 (2 s) or long.mp3 (485 s).
local sb = require "songbox"
local lib = {}

--- The library track whose file is <name>.mp3.
function lib.track(name)
  local found = assert(sb.library.query('path:"/' .. name .. '.mp3"'))
  assert(#found == 1, name .. ".mp3: " .. #found .. " tracks")
  return found[1]
end

--- The file name (without .mp3) of a track table or queue item.
function lib.name(track)
  return (track.path:match("([^/]+)%.mp3$"))
end

--- The queue as file names, "three thirty ...", checking each item's position on the way.
function lib.queue()
  local names = {}
  for i, item in ipairs(sb.queue.list()) do
    assert(item.position == i, "position " .. tostring(item.position) .. " at " .. i)
    names[i] = lib.name(item)
  end
  return table.concat(names, " ")
end

--- The queue ids, in queue order.
function lib.ids()
  local ids = {}
  for i, item in ipairs(sb.queue.list()) do ids[i] = item.queue_id end
  return ids
end

--- `f(...)` must raise an error whose message contains `expected` (plain text); returns it.
function lib.fails(expected, f, ...)
  local ok, err = pcall(f, ...)
  assert(not ok, "expected an error: " .. expected)
  assert(type(err) == "string" and err:find(expected, 1, true),
    "expected an error with '" .. expected .. "', got: " .. tostring(err))
  return err
end

--- The player's clock: seconds of audio rendered.
function lib.clock()
  return sb.player.status().clock
end

--- `value` is `expected` seconds to the frame (44.1 kHz): within half a frame.
function lib.at(value, expected, what)
  assert(type(value) == "number" and math.abs(value - expected) < 0.5 / 44100,
    string.format("%s: %s, expected %.6f", what or "time", tostring(value), expected))
end

--- `value` is within `tolerance` of `expected`.
function lib.near(value, expected, tolerance, what)
  assert(type(value) == "number" and math.abs(value - expected) <= tolerance,
    string.format("%s: %s, expected %.6f +- %g", what or "value", tostring(value), expected, tolerance))
end

--- Runs each step's function `delay` seconds after the previous step ran (timers chained from
--- timer callbacks, so each delay is exact on the script's clock).
function lib.steps(steps)
  local i = 0
  local function schedule()
    i = i + 1
    local step = steps[i]
    if step then
      sb.after(step[1], function()
        step[2]()
        schedule()
      end)
    end
  end
  schedule()
end

--- Every event of these types, as it arrives: { type, clock, event }.
function lib.record(...)
  local log = {}
  for _, name in ipairs({ ... }) do
    sb.on(name, function(event)
      log[#log + 1] = { type = event.type, clock = lib.clock(), event = event }
    end)
  end
  return log
end

function lib.ok(what)
  print("ok " .. what)
end

return lib
