-- Numbers a script can pass that used to kill the process (Swift traps on overflow and on
-- converting inf/NaN/huge doubles): each must be a Lua error or a documented result, and the
-- run must reach its end. Run by PlayerScriptTests.hostileNumbersAreErrorsNotCrashes.
local sb = require "songbox"
local lib = require "player-lib"

local hostile = { math.mininteger, math.maxinteger, math.huge, -math.huge, 0 / 0, 1e300, -1e300, 2 ^ 53 + 2 }
local function each(f)
  for _, value in ipairs(hostile) do
    local ok, err = pcall(f, value)
    assert(ok or type(err) == "string", "a non-string error for " .. tostring(value))
  end
end

sb.playlist.save("Mix", { lib.track("three"), lib.track("twenty") })
sb.smart("Smart", "path:three")
for _, name in ipairs({ "Mix", "Smart", "Missing" }) do
  each(function(n) return sb.playlist.move(name, n, 1) end)
  each(function(n) return sb.playlist.move(name, 1, n) end)
  each(function(n) return sb.playlist.add(name, { lib.track("three") }, { at = n }) end)
  each(function(n) return sb.playlist.remove(name, n) end)
  each(function(n) return sb.playlist.remove(name, { n }) end)
end
lib.ok("playlists")

sb.queue.add({ lib.track("thirty"), lib.track("three") })
sb.player.play()
each(function(n) return sb.queue.move(sb.queue.list()[1].queue_id, n) end)
each(function(n) return sb.queue.move(n, 1) end)
each(function(n) return sb.queue.add({ lib.track("three") }, { at = n }) end)
each(function(n) return sb.queue.remove(n) end)
each(function(n) return sb.player.play(n) end)
sb.player.play()
each(function(n) return sb.player.seek(n) end)
for _, text in ipairs({ "+1e300", "-1e300", "+inf", "-inf", "+nan" }) do
  local ok, err = pcall(sb.player.seek, text)
  assert(ok or type(err) == "string")
end
each(function(n) return sb.player.sleep(n) end)
sb.player.sleep(false)
each(function(n) return sb.player.volume(n) end)
each(function(n) return sb.player.fade({ to = n, over = 1 }) end)
each(function(n) return sb.player.fade({ to = 50, over = n }) end)
each(function(n) return sb.after(n, function() end) end)
each(function(n) return sb.every(n, function() end) end)
each(function(n) return sb.library.get(n) end)
each(function(n) return sb.library.find({ year = n }) end)
each(function(n) return sb.library.find({ year = { min = n, max = n } }) end)
each(function(n) return sb.library.find({ limit = n }) end)
each(function(n) return sb.history.recent(n) end)
each(function(n) return sb.history.top(n) end)
each(function(n) return sb.json.encode(n) end)
each(function(n) return sb.player.crossfade(n) end)
-- The getter and the setter: seconds from 0 to 30, status says it; beyond, an argument error.
assert(sb.player.crossfade(4) == 4 and sb.player.crossfade() == 4 and sb.player.status().crossfade == 4)
local ok, err = pcall(sb.player.crossfade, 31)
assert(not ok and err:find("seconds must be from 0 to 30", 1, true), tostring(err))
assert(sb.player.crossfade(0) == 0)
sb.player.volume(100)
lib.ok("queue and player")

-- Playback goes on after all that: the run ends when the queue does.
sb.player.stop()
print("survived")
