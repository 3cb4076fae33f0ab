-- songbox.queue.*, player.status with nothing playing, and the errors of every queue and player
-- function. Run by PlayerScriptTests.swift.
local sb = require "songbox"
local lib = require "player-lib"
local three, twenty, thirty = lib.track("three"), lib.track("twenty"), lib.track("thirty")

-- queue_changed events arrive after the main chunk, in order, one per change.
local changes = {}
sb.on("queue_changed", function(event) changes[#changes + 1] = event.version end)
local changed = 0  -- changes made by this chunk
local function version() return sb.player.status().queue_version end

-- Nothing queued, nothing playing.
local status = sb.player.status()
assert(status.state == "stopped" and status.queue_length == 0 and status.queue_id == nil and status.track == nil)
assert(status.position == nil and status.duration == nil and status.sleep == nil and status.output_error == nil)
assert(status.volume == 100 and status["repeat"] == false and status.random == false)
assert(status.single == false and status.consume == false and status.highlights == false)
assert(status.clock == 0 and status.elapsed == 0 and math.type(status.queue_version) == "integer")
assert(#sb.queue.list() == 0)
lib.ok("empty status")

-- add: a track id, a track table, a list mixing both; returns the new queue ids.
local before = version()
local a = sb.queue.add(three.id)
assert(#a == 1 and math.type(a[1]) == "integer")
local b = sb.queue.add({ thirty, twenty.id })
changed = changed + 2
assert(#b == 2 and b[1] ~= a[1] and b[2] ~= b[1] and b[2] ~= a[1])
assert(lib.queue() == "three thirty twenty", lib.queue())
assert(version() > before)
local items = sb.queue.list()
assert(items[1].queue_id == a[1] and items[2].queue_id == b[1] and items[3].queue_id == b[2])
assert(items[1].id == three.id and items[2].id == thirty.id and items[1].lane == "user")
-- Queue items are whole track tables (every library field) plus queue_id, position, lane.
assert(items[2].path == thirty.path and items[2].added == thirty.added and items[2].size == thirty.size)
lib.near(items[2].duration, 30, 0.05, "queued duration")
assert(sb.player.status().queue_length == 3)
lib.ok("add")

-- Lanes: autoplay goes last, and what the user adds later goes before it.
local auto = sb.queue.add(three, { lane = "autoplay" })
local user = sb.queue.add(twenty, { lane = "user", at = "end" })
changed = changed + 2
assert(lib.queue() == "three thirty twenty twenty three", lib.queue())
items = sb.queue.list()
assert(items[4].queue_id == user[1] and items[4].lane == "user")
assert(items[5].queue_id == auto[1] and items[5].lane == "autoplay")
-- at = a position (1-based, clamped) or "next" (nothing plays: the front).
local front = sb.queue.add(thirty, { at = 1 })
assert(lib.queue() == "thirty three thirty twenty twenty three", lib.queue())
local second = sb.queue.add({ twenty, three }, { at = 2 })
assert(lib.queue() == "thirty twenty three three thirty twenty twenty three", lib.queue())
local nxt = sb.queue.add(three, { at = "next" })
assert(lib.ids()[1] == nxt[1])
local far = sb.queue.add(twenty, { at = 100, lane = "autoplay" })
assert(lib.ids()[#lib.ids()] == far[1])
changed = changed + 4
assert(#sb.queue.list() == 10 and sb.player.status().queue_length == 10)
lib.ok("add at and lane")

-- move: to a position (1-based, clamped); ids do not change.
assert(sb.queue.move(far[1], 1) == true)
assert(lib.ids()[1] == far[1])
assert(sb.queue.move(far[1], 1000) == true)
assert(lib.ids()[10] == far[1])
assert(sb.queue.move(front[1], 3) == true)
assert(lib.ids()[3] == front[1] and lib.queue():match("^three twenty thirty three "), lib.queue())
changed = changed + 3
-- An id that is not in the queue changes nothing.
local v = version()
assert(sb.queue.move(424242, 1) == true and version() == v)
lib.ok("move")

-- remove: one id or a list; ids not in the queue are ignored.
sb.queue.remove(nxt[1])
assert(#sb.queue.list() == 9)
sb.queue.remove({ second[1], second[2], 424242 })
assert(#sb.queue.list() == 7)
changed = changed + 2
for _, id in ipairs(lib.ids()) do assert(id ~= nxt[1] and id ~= second[1] and id ~= second[2]) end
v = version()
sb.queue.remove(424242)
sb.queue.remove({})
assert(version() == v and #sb.queue.list() == 7)
lib.ok("remove")

-- shuffle: the same items in another order (the first of up to five shuffles that changes it).
local function sorted(list)
  local copy = {}
  for i, x in ipairs(list) do copy[i] = x end
  table.sort(copy)
  return table.concat(copy, ",")
end
local original = lib.ids()
local moved = false
for _ = 1, 5 do
  v = version()
  assert(sb.queue.shuffle() == true)
  changed = changed + 1
  assert(version() > v)
  local now = lib.ids()
  assert(sorted(now) == sorted(original))
  if table.concat(now, ",") ~= table.concat(original, ",") then moved = true break end
end
assert(moved, "five shuffles left the queue in its order")
lib.ok("shuffle")

-- clear
v = version()
assert(sb.queue.clear() == true)
changed = changed + 1
assert(#sb.queue.list() == 0 and sb.player.status().queue_length == 0 and version() > v)
lib.ok("clear")

-- Soft failures: nil, message.
local value, message = sb.queue.add(424242)
assert(value == nil and message == "songbox.queue.add: no track with id 424242", tostring(message))
value, message = sb.queue.add({ three, 424242 })
assert(value == nil and message == "songbox.queue.add: no track with id 424242", tostring(message))
assert(#sb.queue.list() == 0, "a failed add adds nothing")
value, message = sb.player.play(77)
assert(value == nil and message == "songbox.player.play: no queue item with id 77", tostring(message))
assert(sb.player.status().state == "stopped")
lib.ok("soft failures")

-- set: several modes at once, each kept until changed; highlights mode too.
assert(sb.player.set { ["repeat"] = true, random = true, single = "oneshot", consume = true, highlights = true } == true)
status = sb.player.status()
assert(status["repeat"] == true and status.random == true and status.single == "oneshot" and status.consume == true)
assert(status.highlights == true)
assert(sb.player.set { single = true, highlights = false } == true)
status = sb.player.status()
assert(status["repeat"] == true and status.single == true and status.highlights == false)
assert(sb.player.set { ["repeat"] = false, random = false, single = false, consume = false } == true)
status = sb.player.status()
assert(status["repeat"] == false and status.random == false and status.single == false and status.consume == false)
assert(sb.player.set {} == true)
lib.ok("set")

-- A URL is a track too (internet radio, a remote file): outside the library, it has no id.
local before = #sb.queue.list()
local url_ids = assert(sb.queue.add("http://127.0.0.1:9/radio.mp3"))
local more = assert(sb.queue.add({ "https://127.0.0.1:9/a.mp3", "https://127.0.0.1:9/b.mp3" }, { at = 1 }))
assert(#url_ids == 1 and #more == 2)
local urls = sb.queue.list()
assert(#urls == before + 3 and urls[1].path == "https://127.0.0.1:9/a.mp3", songbox.json.encode(urls))
assert(urls[#urls].path == "http://127.0.0.1:9/radio.mp3" and urls[#urls].id == -1 and urls[#urls].queue_id == url_ids[1])
assert(sb.queue.remove({ url_ids[1], more[1], more[2] }))
assert(#sb.queue.list() == before)
changed = changed + 3
lib.ok("urls")

-- Wrong arguments raise Lua-standard errors at the caller's line.
local here = "player%-queue%.lua:%d+: bad argument"
local function wrong(expected, f)
  local err = lib.fails(expected, f)
  assert(err:find(here), "no position: " .. err)
end
wrong("bad argument #1 to 'add' (expected a track, a track id, or a list of them, got nil)", function() sb.queue.add() end)
wrong("bad argument #1 to 'add' (a string must be an http:// or https:// URL, got 'three')", function() sb.queue.add("three") end)
wrong("bad argument #1 to 'add' (item 2 is not a track or a track id (boolean))", function() sb.queue.add({ three, true }) end)
wrong("bad argument #2 to 'add' (table expected, got string)", function() sb.queue.add(three, "next") end)
wrong("bad argument #2 to 'add' (unknown option 'where' (options: at, lane))", function() sb.queue.add(three, { where = 1 }) end)
wrong("bad argument #2 to 'add' ('at' must be \"next\", \"end\" or a position, got boolean)", function() sb.queue.add(three, { at = true }) end)
wrong("bad argument #2 to 'add' ('lane' must be \"user\" or \"autoplay\", got radio)", function() sb.queue.add(three, { lane = "radio" }) end)
wrong("bad argument #1 to 'remove' (table expected, got string)", function() sb.queue.remove("1") end)
wrong("bad argument #1 to 'remove' (queue ids are integers, got string)", function() sb.queue.remove({ "1" }) end)
wrong("bad argument #1 to 'move' (number expected, got string)", function() sb.queue.move("1", 2) end)
wrong("bad argument #2 to 'move' (number expected, got no value)", function() sb.queue.move(1) end)
wrong("bad argument #2 to 'move' (number has no integer representation)", function() sb.queue.move(1, 1.5) end)
wrong("bad argument #1 to 'play' (number expected, got string)", function() sb.player.play("1") end)
wrong("bad argument #1 to 'seek' (number expected, got table)", function() sb.player.seek({}) end)
wrong("bad argument #1 to 'seek' (expected seconds, or \"+N\" / \"-N\" to move from here, got '10')", function() sb.player.seek("10") end)
wrong("bad argument #1 to 'seek' (expected seconds, or \"+N\" / \"-N\" to move from here, got '+x')", function() sb.player.seek("+x") end)
wrong("bad argument #1 to 'volume' (number expected, got string)", function() sb.player.volume("loud") end)
wrong("bad argument #1 to 'replay_gain' (expected \"off\", \"track\", \"album\" or \"auto\", got 'loud')", function() sb.player.replay_gain("loud") end)
wrong("bad argument #1 to 'replay_gain' (string expected, got table)", function() sb.player.replay_gain({}) end)
wrong("bad argument #1 to 'fade' (table expected, got number)", function() sb.player.fade(10) end)
wrong("bad argument #1 to 'fade' ('to' (a volume from 0 to 100) is required)", function() sb.player.fade({ over = 2 }) end)
wrong("bad argument #1 to 'fade' ('to' (a volume from 0 to 100) is required)", function() sb.player.fade({ to = 0 / 0 }) end)
wrong("bad argument #1 to 'fade' ('over' is seconds from 0 to 86400 (a day))", function() sb.player.fade({ to = 5, over = math.huge }) end)
wrong("bad argument #1 to 'fade' (unknown option 'speed' (options: to, over, curve))", function() sb.player.fade({ to = 1, speed = 2 }) end)
wrong("bad argument #1 to 'fade' ('curve' must be \"linear\" or \"log\", got cubic)", function() sb.player.fade({ to = 1, curve = "cubic" }) end)
wrong("bad argument #1 to 'set' (table expected, got boolean)", function() sb.player.set(true) end)
wrong("bad argument #1 to 'set' ('repeat' must be a boolean, got string)", function() sb.player.set({ ["repeat"] = "yes" }) end)
wrong("bad argument #1 to 'set' ('highlights' must be a boolean, got string)", function() sb.player.set({ highlights = "on" }) end)
wrong("bad argument #1 to 'set' ('single' must be true, false or \"oneshot\")", function() sb.player.set({ single = 1 }) end)
wrong("bad argument #1 to 'set' ('consume' must be true, false or \"oneshot\")", function() sb.player.set({ consume = "twice" }) end)
wrong("bad argument #1 to 'set' (unknown option 'loop' (options: repeat, random, single, consume, highlights))", function() sb.player.set({ loop = true }) end)
local minutes = "(expected minutes (a positive number up to 525600), \"track\", \"queue\", or false to cancel)"
wrong("bad argument #1 to 'sleep' " .. minutes, function() sb.player.sleep(-1) end)
wrong("bad argument #1 to 'sleep' " .. minutes, function() sb.player.sleep(0) end)
wrong("bad argument #1 to 'sleep' " .. minutes, function() sb.player.sleep("album") end)
wrong("bad argument #1 to 'sleep' " .. minutes, function() sb.player.sleep(true) end)
-- Called without a name (through pcall), a function is named by its full name.
lib.fails("bad argument #1 to 'songbox.queue.move' (number expected, got no value)", sb.queue.move)
-- A wrong argument changes nothing.
status = sb.player.status()
assert(#sb.queue.list() == 0 and status.volume == 100 and status["repeat"] == false and status.sleep == nil)
lib.ok("argument errors")

-- After the main chunk: the queue_changed events, one per change, versions rising.
sb.after(0, function()
  assert(#changes == changed, #changes .. " queue_changed events for " .. changed .. " changes")
  for i = 2, #changes do assert(changes[i] > changes[i - 1]) end
  assert(changes[#changes] == version())
  lib.ok("queue_changed events")
end)
