-- songbox.player.set{repeat, random, single, consume} and songbox.player.sleep. Each phase plays
-- until playback stops, then the next one checks it and starts. Run by PlayerScriptTests.swift.
local sb = require "songbox"
local lib = require "player-lib"
local three, twenty, thirty = lib.track("three"), lib.track("twenty"), lib.track("thirty")

local starts, ends, options = {}, {}, {}
sb.on("track_started", function(e) starts[#starts + 1] = e end)
sb.on("track_ended", function(e) ends[#ends + 1] = e end)
sb.on("options_changed", function(e) options[#options + 1] = e end)

local function modes()
  local s = sb.player.status()
  return string.format("repeat=%s random=%s single=%s consume=%s", s["repeat"], s.random, s.single, s.consume)
end

--- Starts a phase: a fresh queue of these tracks, the event lists emptied.
local function fresh(tracks)
  sb.queue.clear()
  starts, ends, options = {}, {}, {}
  return sb.queue.add(tracks)
end

local function names(events)
  local out = {}
  for i, e in ipairs(events) do out[i] = lib.name(e.track) end
  return table.concat(out, " ")
end

local phases
local phase = 0
local function next_phase()
  phase = phase + 1
  if phases[phase] then phases[phase]() end
end
sb.on("stopped", function()
  -- A stop comes after the phase's track_ended: check the phase from a timer, after this event.
  sb.after(0, next_phase)
end)

-- single: at a track's end the next one waits paused at its start (as MPD); what the pause says
-- is kept, and a stop ends the phase.
local paused
sb.on("paused", function(e)
  if phase == 2 or phase == 3 then
    paused = { name = lib.name(e.track), elapsed = e.elapsed, state = sb.player.status().state }
    sb.after(0, function() sb.player.stop() end)
  end
end)

local sleep_set
phases = {
  function()
    -- repeat: the one track plays again, until repeat is turned off.
    fresh({ three })
    assert(sb.player.set { ["repeat"] = true } == true)
    assert(modes() == "repeat=true random=false single=false consume=false", modes())
    sb.on("track_started", function(e)
      if phase == 1 and #starts == 2 then sb.player.set { ["repeat"] = false } end
    end)
    sb.player.play()
  end,
  function()
    assert(names(starts) == "three three" and starts[2].reason == "next", names(starts))
    assert(#options == 2 and options[1]["repeat"] == true and options[2]["repeat"] == false)
    lib.ok("repeat")
    -- single = "oneshot": pause on the next track after this one, then single turns itself off.
    fresh({ three, twenty })
    sb.player.set { single = "oneshot" }
    assert(sb.player.status().single == "oneshot")
    sb.player.play()
  end,
  function()
    assert(names(starts) == "three twenty" and ends[1].reason == "finished", names(starts))
    assert(paused.name == "twenty" and paused.elapsed == 0 and paused.state == "paused", paused.name)
    assert(sb.player.status().single == false, modes())
    assert(options[#options].single == false)
    lib.ok("single oneshot")
    -- single = true: the same, and it stays on.
    fresh({ three, twenty })
    sb.player.set { single = true }
    sb.player.play()
  end,
  function()
    assert(names(starts) == "three twenty", names(starts))
    assert(paused.name == "twenty" and paused.elapsed == 0 and paused.state == "paused", paused.name)
    assert(sb.player.status().single == true, modes())
    lib.ok("single")
    -- consume: a track that ends leaves the queue.
    fresh({ three, three, three })
    sb.player.set { single = false, consume = true }
    assert(modes() == "repeat=false random=false single=false consume=true", modes())
    sb.player.play()
  end,
  function()
    assert(names(starts) == "three three three", names(starts))
    assert(#sb.queue.list() == 0, "consumed: " .. lib.queue())
    lib.ok("consume")
    -- consume = "oneshot": only the track playing leaves the queue.
    local q = fresh({ three, three })
    sb.player.set { consume = "oneshot" }
    assert(sb.player.status().consume == "oneshot")
    sb.player.play()
    sb.after(3.5, function()
      assert(table.concat(lib.ids(), ",") == tostring(q[2]), "after the oneshot: " .. table.concat(lib.ids(), ","))
      assert(sb.player.status().consume == false, modes())
    end)
  end,
  function()
    assert(names(starts) == "three three", names(starts))
    assert(#sb.queue.list() == 1, "only the first was consumed")
    lib.ok("consume oneshot")
    -- random: every item once, in some order, then the end.
    local q = fresh({ three, three, three, three, three })
    sb.player.set { random = true }
    assert(sb.player.status().random == true)
    sb.player.play()
    phases.random_queue = q
  end,
  function()
    local played, seen = {}, {}
    for _, e in ipairs(starts) do
      assert(not seen[e.track.queue_id], "an item played twice")
      seen[e.track.queue_id] = true
      played[#played + 1] = e.track.queue_id
    end
    assert(#played == 5, #played .. " tracks played")
    for _, id in ipairs(phases.random_queue) do assert(seen[id]) end
    lib.ok("random")
    -- sleep(minutes): 0.05 = 3 s of playback from when it is set.
    fresh({ thirty })
    sb.player.set { random = false }
    sb.player.play()
    sb.after(1, function()
      sleep_set = lib.clock()
      assert(sb.player.sleep(0.05) == true)
      lib.near(sb.player.status().sleep, 0.05, 1e-12, "status().sleep")
    end)
    sb.on("stopped", function()
      if phase ~= 7 then return end
      -- The engine renders up to the deadline's frame and stops there.
      local late = lib.clock() - (sleep_set + 3)
      assert(math.abs(late) < 1 / 44100, "sleep(0.05) stopped " .. late .. " s after its deadline")
      print(string.format("sleep %.6f %.6f", sleep_set, lib.clock()))
    end)
  end,
  function()
    assert(#ends == 1 and ends[1].reason == "stopped", "sleep: " .. tostring(ends[1] and ends[1].reason))
    local stopped_at = ends[1].played
    assert(math.abs(stopped_at - 4) < 1 / 44100, "played until the sleep timer: " .. stopped_at)
    assert(sb.player.status().sleep == nil)
    lib.ok("sleep minutes")
    -- sleep(false) cancels; so does sleep() (nil).
    fresh({ thirty })
    sb.player.play()
    sb.after(1, function()
      sb.player.sleep(0.05)
      assert(sb.player.sleep(false) == true)
      assert(sb.player.status().sleep == nil)
      sb.player.sleep(0.05)
      assert(sb.player.sleep() == true and sb.player.status().sleep == nil)
    end)
    sb.after(6, function()
      assert(sb.player.status().state == "playing", "a cancelled sleep timer stopped playback")
      sb.player.stop()
    end)
  end,
  function()
    lib.at(ends[1].played, 6.1, "played with the sleep timer cancelled")
    lib.ok("sleep false")
    -- sleep("track"): stops when this track ends.
    fresh({ three, twenty })
    sb.player.play()
    sb.player.sleep("track")
    assert(sb.player.status().sleep == "track")
  end,
  function()
    assert(names(starts) == "three" and ends[1].reason == "finished", names(starts))
    assert(sb.player.status().sleep == nil)
    lib.ok("sleep track")
    -- sleep("queue"): stops at the end of the queue, even with repeat on.
    fresh({ three, three })
    sb.player.set { ["repeat"] = true }
    sb.player.play()
    sb.player.sleep("queue")
    assert(sb.player.status().sleep == "queue")
  end,
  function()
    assert(names(starts) == "three three" and names(ends) == "three three", names(starts))
    assert(ends[2].reason == "finished" and sb.player.status().sleep == nil)
    lib.ok("sleep queue")
  end,
}
next_phase()
