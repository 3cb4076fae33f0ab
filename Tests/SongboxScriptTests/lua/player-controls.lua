-- songbox.player.play / pause / resume / seek / previous / next / volume / fade. Run by
-- PlayerScriptTests.swift, which checks the fade in the WAV file (it prints "fade <clock>").
local sb = require "songbox"
local lib = require "player-lib"
local three, twenty, thirty = lib.track("three"), lib.track("twenty"), lib.track("thirty")

local q = sb.queue.add({ thirty, twenty, three })
local log = lib.record("track_started", "track_ended", "paused", "resumed", "seeked", "volume_changed", "stopped")

assert(sb.player.play() == true)
local status = sb.player.status()
assert(status.state == "playing" and status.queue_id == q[1] and status.position == 1 and status.track.id == thirty.id)
lib.near(status.duration, 30, 0.001, "duration")
assert(sb.player.volume() == 100)
assert(sb.player.volume(50) == 50 and sb.player.volume() == 50 and sb.player.status().volume == 50)
assert(sb.player.volume(150) == 100 and sb.player.volume(-5) == 0, "volume is clamped to 0-100")
assert(sb.player.volume(50) == 50)
lib.ok("play and volume")

local function elapsed() return sb.player.status().elapsed end
local fade_start

lib.steps {
  { 2, function()
    assert(sb.player.pause() == true)
    -- A 0.1 s fade-out comes first.
    assert(sb.player.status().state == "playing")
  end },
  { 1, function()
    -- Paused at 2.1 s; nothing was rendered since, though the script's clock went on to 3.
    status = sb.player.status()
    assert(status.state == "paused" and status.queue_id == q[1])
    lib.at(status.elapsed, 2.1, "paused at")
    lib.at(status.clock, 2.1, "clock while paused")
    assert(sb.player.resume() == true)
    assert(sb.player.status().state == "playing")
    lib.ok("pause and resume")
  end },
  { 1.9, function()
    lib.at(elapsed(), 4, "elapsed after resuming")
    lib.at(sb.player.seek(20), 20, "seek(20)")
    lib.at(sb.player.seek("+5"), 25, "seek(+5)")
    lib.at(sb.player.seek("-10"), 15, "seek(-10)")
    lib.at(sb.player.seek(-3), 0, "seek(-3)")
    lib.at(sb.player.seek(1000), 30 - 1 / 44100, "seek past the end")
    lib.at(sb.player.seek(14), 14, "seek(14)")
    lib.at(elapsed(), 14, "elapsed after seeking")
    lib.ok("seek")
  end },
  { 1, function()
    -- More than 3 s in: previous() starts the track again.
    lib.at(elapsed(), 15, "elapsed")
    sb.player.previous()
    lib.at(elapsed(), 0, "previous() restarts")
    assert(sb.player.status().queue_id == q[1])
  end },
  { 1, function()
    -- The first item has no previous one: it starts again too.
    sb.player.previous()
    lib.at(elapsed(), 0, "previous() on the first item")
    assert(sb.player.status().queue_id == q[1])
  end },
  { 0.5, function() assert(sb.player.next() == true) end },
  { 1, function()
    -- 0.9 s into twenty: previous() goes back to thirty.
    assert(sb.player.status().queue_id == q[2])
    lib.at(elapsed(), 0.9, "elapsed in twenty")
    assert(sb.player.previous() == true)
  end },
  { 0.5, function()
    assert(sb.player.status().queue_id == q[1])
    lib.at(elapsed(), 0.4, "elapsed in thirty again")
    lib.ok("previous and next")
    assert(sb.player.play(q[3]) == true)
  end },
  { 0.5, function()
    status = sb.player.status()
    assert(status.queue_id == q[3] and status.position == 3 and status.track.id == three.id)
    lib.at(status.elapsed, 0.4, "elapsed in three")
    lib.ok("play(id)")
    fade_start = lib.clock()
    print(string.format("fade %.6f", fade_start))
    assert(sb.player.fade { to = 10, over = 2, curve = "log" } == true)
  end },
  { 2.2, function()
    assert(sb.player.volume() == 10, "volume after the fade: " .. sb.player.volume())
    assert(sb.player.status().volume == 10)
  end },
}

sb.after(1000, function()
  local seen = {}
  for _, entry in ipairs(log) do
    local e = entry.event
    local text = e.type
    if e.type == "track_started" or e.type == "track_ended" then
      text = text .. ":" .. lib.name(e.track) .. ":" .. e.reason
    elseif e.type == "volume_changed" then
      text = text .. ":" .. e.volume
    elseif e.type == "seeked" then
      text = string.format("seeked:%.2f>%.2f", e.from, e.to)
    elseif e.type == "paused" or e.type == "resumed" then
      text = string.format("%s:%.2f", e.type, e.elapsed)
    end
    seen[#seen + 1] = text
  end
  local expected = table.concat({
    "track_started:thirty:user", "volume_changed:50.0", "volume_changed:100.0", "volume_changed:0.0", "volume_changed:50.0",
    "paused:2.10", "resumed:2.10",
    "seeked:4.00>20.00", "seeked:20.00>25.00", "seeked:25.00>15.00", "seeked:15.00>0.00", "seeked:0.00>30.00",
    "seeked:30.00>14.00", "seeked:15.00>0.00", "seeked:1.00>0.00",
    "track_ended:thirty:skipped", "track_started:twenty:user", "track_ended:twenty:skipped",
    "track_started:thirty:user", "track_ended:thirty:skipped", "track_started:three:user",
    "volume_changed:10.0", "track_ended:three:finished", "stopped",
  }, " ")
  assert(table.concat(seen, " ") == expected, table.concat(seen, " "))
  -- The fade's end is told when it is reached, on the player's clock.
  for _, entry in ipairs(log) do
    if entry.type == "volume_changed" and entry.event.volume == 10 then
      assert(entry.clock >= fade_start + 2 and entry.clock < fade_start + 2.1, "fade ended at " .. entry.clock)
    end
  end
  lib.ok("events")
end)
