-- songbox.on (order, handle:off, unknown events), songbox.after / songbox.every on the injected
-- clock (the audio rendered), and their argument errors. Run by PlayerScriptTests.swift.
local sb = require "songbox"
local lib = require "player-lib"
local three, twenty, thirty = lib.track("three"), lib.track("twenty"), lib.track("thirty")

-- Argument errors: Lua-standard, at the caller's line.
local function wrong(expected, f)
  local err = lib.fails(expected, f)
  assert(err:find("player%-events%.lua:%d+: bad argument"), "no position: " .. err)
end
wrong("bad argument #1 to 'songbox.on' (unknown event 'track_start')", function() sb.on("track_start", print) end)
wrong("bad argument #1 to 'songbox.on' (string expected, got number)", function() sb.on(1, print) end)
wrong("bad argument #2 to 'songbox.on' (function expected, got nil)", function() sb.on("paused") end)
wrong("bad argument #1 to 'songbox.after' (number expected, got string)", function() sb.after("1", print) end)
local delay = "bad argument #1 to 'songbox.after' (seconds must be from 0 to a year (31622400))"
wrong(delay, function() sb.after(-1, print) end)
wrong(delay, function() sb.after(0 / 0, print) end)
wrong(delay, function() sb.after(math.huge, print) end)
wrong(delay, function() sb.after(1e300, print) end)
wrong("bad argument #1 to 'songbox.every' (the interval must be from 0.01 seconds to a year (31622400))",
  function() sb.every(math.huge, print) end)
wrong("bad argument #2 to 'songbox.after' (function expected, got table)", function() sb.after(1, {}) end)
wrong("bad argument #1 to 'songbox.every' (the interval must be from 0.01 seconds to a year (31622400))", function() sb.every(0.001, print) end)
wrong("bad argument #2 to 'songbox.every' (function expected, got nil)", function() sb.every(1) end)
lib.ok("argument errors")

sb.queue.add({ three, thirty, twenty })

-- Handlers run in the order they were registered; off() unregisters (true once, then false).
local calls = {}
local second
sb.on("track_started", function(e) calls[#calls + 1] = "1:" .. lib.name(e.track) end)
second = sb.on("track_started", function(e)
  calls[#calls + 1] = "2:" .. lib.name(e.track)
  assert(second:off() == true)
  assert(second:off() == false)
  -- A handler added while the event is dispatched runs from the next event on.
  sb.on("track_started", function(e2) calls[#calls + 1] = "4:" .. lib.name(e2.track) end)
end)
sb.on("track_started", function(e) calls[#calls + 1] = "3:" .. lib.name(e.track) end)
local never = sb.on("track_ended", function() error("an unregistered handler ran") end)
assert(never:off() == true and never:off() == false)

local log = lib.record("track_started", "track_ended", "stopped")
local fired = {}
local function fire(name) fired[#fired + 1] = name end

-- Timers: at exact audio positions.
sb.after(0, function()
  fire("0")
  lib.at(lib.clock(), 0, "after(0)")
  assert(sb.player.status().state == "playing")
end)
sb.after(2.5, function() fire("2.5a"); lib.at(lib.clock(), 2.5, "after(2.5) a") end)
sb.after(2.5, function() fire("2.5b"); lib.at(lib.clock(), 2.5, "after(2.5) b") end)
local ticks = 0
local every
every = sb.every(2, function()
  ticks = ticks + 1
  fire("every")
  lib.at(lib.clock(), 2 * ticks, "every(2) #" .. ticks)
  if ticks == 3 then
    assert(every:off() == true)
    assert(every:off() == false)
  end
end)
local cancelled = sb.after(7, function() error("a cancelled timer fired") end)
assert(cancelled:off() == true)
sb.after(5, function()
  fire("5")
  lib.at(lib.clock(), 5, "after(5)")
  -- A timer made in a timer counts from that timer's time.
  sb.after(1.5, function() fire("6.5"); lib.at(lib.clock(), 6.5, "after(1.5) from 5") end)
end)

-- A timer made in an event handler counts from when the event happened: thirty starts when three
-- ends (3.0); twenty starts when the skip's fade-out ends (10.1).
sb.on("track_started", function(e)
  local start = lib.clock()
  if e.track.id == thirty.id then
    lib.at(start, 3, "thirty started")
  elseif e.track.id == twenty.id then
    lib.at(start, 10.1, "twenty started")
  else
    return
  end
  sb.after(1, function()
    fire("1 after " .. lib.name(e.track))
    lib.at(lib.clock(), start + 1, "after(1) from the track_started of " .. lib.name(e.track))
  end)
end)

sb.after(10, function() fire("10"); sb.player.next() end)

-- Stopped, the clock jumps to the next timer: no audio is rendered meanwhile.
sb.after(12, function()
  fire("12")
  sb.player.stop()
  sb.after(100, function()
    fire("112")
    local status = sb.player.status()
    assert(status.state == "stopped")
    lib.at(status.clock, 12.1, "audio rendered while stopped")
    sb.after(0.5, function() fire("112.5") end)
  end)
end)

sb.player.play()

sb.on("shutdown", function() end)  -- known event names are accepted even when nothing sends them

local function check()
  local order = table.concat(fired, " ")
  assert(order == "0 every 2.5a 2.5b every 1 after thirty 5 every 6.5 10 1 after twenty 12 112 112.5",
    order)
  lib.ok("timers")
  assert(table.concat(calls, " ") == "1:three 2:three 3:three 1:thirty 3:thirty 4:thirty 1:twenty 3:twenty 4:twenty",
    table.concat(calls, " "))
  lib.ok("handler order and off")
  local seen = {}
  for _, entry in ipairs(log) do
    local e = entry.event
    seen[#seen + 1] = e.type .. (e.track and (":" .. lib.name(e.track)) or "") .. (e.reason and (":" .. e.reason) or "")
  end
  assert(table.concat(seen, " ") == "track_started:three:user track_ended:three:finished track_started:thirty:next "
    .. "track_ended:thirty:skipped track_started:twenty:user track_ended:twenty:stopped stopped", table.concat(seen, " "))
  lib.at(log[2].clock, 3, "three ended")
  assert(log[1].event.position == 1 and log[3].event.position == 2 and log[5].event.position == 3)
  lib.ok("event order")
  -- Each event says when it left the audio thread, on songbox.monotonic()'s clock.
  local now = sb.monotonic()
  for i, entry in ipairs(log) do
    local at = entry.event.emitted_at
    assert(math.type(at) == "float" and at > 0 and at <= now, "emitted_at of event " .. i .. ": " .. tostring(at))
    assert(i == 1 or at >= log[i - 1].event.emitted_at, "events are stamped in order")
  end
  lib.ok("emitted_at")
  -- A periodic timer alone does not keep a stopped run going: the run ends here.
  sb.every(1, function() print("tick") end)
end
sb.after(150, check)
