-- Under --dry-run every queue and player command refuses; reading works. Run by
-- PlayerScriptTests.swift.
local sb = require "songbox"
local lib = require "player-lib"
assert(sb.dry_run == true)
local three = lib.track("three")
local function refused(name, f, ...)
  local err = lib.fails("dry run: " .. name .. " refused", f, ...)
  assert(err:find("player%-dry%-run%.lua:%d+: dry run"), "no position: " .. err)
end
refused("queue.add", function() sb.queue.add(three) end)
refused("queue.remove", function() sb.queue.remove(1) end)
refused("queue.move", function() sb.queue.move(1, 2) end)
refused("queue.clear", function() sb.queue.clear() end)
refused("queue.shuffle", function() sb.queue.shuffle() end)
refused("player.play", function() sb.player.play() end)
refused("player.pause", function() sb.player.pause() end)
refused("player.resume", function() sb.player.resume() end)
refused("player.stop", function() sb.player.stop() end)
refused("player.next", function() sb.player.next() end)
refused("player.previous", function() sb.player.previous() end)
refused("player.seek", function() sb.player.seek(1) end)
refused("player.volume", function() sb.player.volume(50) end)
refused("player.fade", function() sb.player.fade { to = 0, over = 1 } end)
refused("player.set", function() sb.player.set { ["repeat"] = true } end)
refused("player.sleep", function() sb.player.sleep(1) end)
lib.ok("writes refused")
-- Reading works, and changed nothing.
assert(#sb.queue.list() == 0)
local status = sb.player.status()
assert(status.state == "stopped" and status.queue_length == 0 and status.volume == 100 and status["repeat"] == false)
assert(sb.player.volume() == 100, "reading the volume is not a write")
-- Events and timers are not writes.
local handle = sb.on("track_started", function() end)
assert(handle:off() == true)
sb.after(1, function() lib.ok("timers run") end)
lib.ok("reads work")
