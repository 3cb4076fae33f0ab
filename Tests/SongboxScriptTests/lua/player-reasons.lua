-- Every track_ended reason as Lua sees it, with what it counts as: a play is half the track or
-- 240 s heard, a skip is moving on (skipped, replaced) after 10 s or more; a stop is never a
-- skip and an error never counts. A file that fails to open never starts: decode_error only.
-- Run by PlayerScriptTests.swift, which then checks the history with player-history.lua.
local sb = require "songbox"
local lib = require "player-lib"
local three, twenty, thirty = lib.track("three"), lib.track("twenty"), lib.track("thirty")
local broken, corrupt = lib.track("broken"), lib.track("corrupt")

local q = sb.queue.add({ three, thirty, twenty, thirty, broken, corrupt, thirty, twenty, three })
assert(#q == 9)
local log = lib.record("track_started", "track_ended", "decode_error", "stopped")

-- Moving on from a track some seconds after it started.
local function after_start(queue_id, seconds, action)
  sb.on("track_started", function(e)
    if e.track.queue_id == queue_id then sb.after(seconds, action) end
  end)
end
after_start(q[7], 11, function() sb.queue.remove(q[7]) end)
after_start(q[8], 11, function() sb.queue.remove({ q[8] }) end)
after_start(q[9], 1, function() sb.queue.clear() end)

sb.after(15, function() sb.player.next() end)
sb.after(20.1, function() sb.player.next() end)
sb.after(32.2, function() sb.player.stop() end)
-- Stopped at 32.3: the script's clock jumps to 40 (no audio), then plays the broken file.
sb.after(40, function()
  assert(sb.player.status().state == "stopped")
  assert(sb.player.play(q[5]) == true)
end)
sb.player.play()

sb.after(1000, function()
  local started, ended, errors, stops = {}, {}, {}, 0
  for i, entry in ipairs(log) do
    local e = entry.event
    if e.type == "track_started" then
      started[#started + 1] = string.format("%s:%s@%d", lib.name(e.track), e.reason, e.position)
    elseif e.type == "track_ended" then
      ended[#ended + 1] = e
    elseif e.type == "decode_error" then
      errors[#errors + 1] = e
      -- Told before the track_ended of a track that fails while playing; a file that cannot be
      -- opened never started, so it has no track_ended, and the next one starts.
      local following = log[i + 1] and log[i + 1].event
      local ended = following and following.type == "track_ended" and following.track.queue_id == e.track.queue_id
      assert(ended == (e.track.id == broken.id), "after the decode_error of " .. lib.name(e.track))
    else
      stops = stops + 1
    end
  end
  assert(table.concat(started, " ") == "three:user@1 thirty:next@2 twenty:user@3 thirty:user@4 broken:user@5 "
    .. "thirty:next@7 twenty:next@7 three:next@7", table.concat(started, " "))
  lib.ok("track_started")

  local expected = {
    { q[1], "finished", "play", 3 },
    { q[2], "skipped", "skip", 12.1 },   -- next at 12 s, plus the 0.1 s fade-out
    { q[3], "skipped", nil, 5.1 },       -- under 10 s: nothing
    { q[4], "stopped", nil, 12.1 },      -- a stop is not a skip
    { q[5], "error", nil, nil },         -- a file that fails is never a play, however much was heard
    { q[7], "replaced", "skip", 11 },    -- removed while playing: moved on
    { q[8], "replaced", "play", 11 },    -- half of 20 s heard: a play
    { q[9], "replaced", nil, 1 },        -- cleared after 1 s of 3: nothing
  }
  assert(#ended == #expected, #ended .. " track_ended events")
  for i, want in ipairs(expected) do
    local e = ended[i]
    local what = "track_ended #" .. i .. " (" .. lib.name(e.track) .. ")"
    assert(e.track.queue_id == want[1], what)
    assert(e.reason == want[2], what .. ": reason " .. tostring(e.reason))
    assert(e.counted == want[3], what .. ": counted " .. tostring(e.counted))
    if want[4] then lib.at(e.played, want[4], what .. " played") end
    lib.ok("track_ended " .. e.reason .. " " .. tostring(e.counted))
  end
  lib.near(ended[1].duration, 3, 0.001, "duration of three")
  lib.near(ended[2].duration, 30, 0.001, "duration of thirty")
  -- The broken file: its first two thirds or so played, then the error.
  assert(ended[5].played > 3 and ended[5].played < 5.5, "broken played " .. ended[5].played)
  assert(#errors == 2 and errors[1].track.id == broken.id and errors[2].track.queue_id == q[6], "decode_error events")
  assert(#errors[1].message > 0 and errors[2].message == "no MPEG audio found", errors[2].message)
  lib.ok("decode_error")
  assert(stops == 2, stops .. " stopped events")
  local status = sb.player.status()
  assert(status.state == "stopped" and status.queue_length == 0)
  -- Played seconds add up to the audio rendered.
  local sum = 0
  for _, e in ipairs(ended) do sum = sum + e.played end
  lib.at(status.clock, sum, "clock")
  print(string.format("clock %.6f", status.clock))
end)
