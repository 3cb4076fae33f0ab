-- songbox.player.announce: refused while nothing plays, checked options, queued in order over
-- the music (the chime first); the queue and the place go on, nothing counts. Run by
-- PlayerScriptTests.swift with the announcement file's path as songbox.args[1].
local sb = require "songbox"
local lib = require "player-lib"
local file = assert(sb.args[1])
local ok, why = sb.player.announce(file)
assert(ok == nil and why:find("nothing plays"), why)
lib.fails("bad argument #2 to 'songbox.player.announce' (unknown option 'loud' (options: duck, chime, say))",
  sb.player.announce, file, { loud = true })
lib.fails("'duck' is dB from -60 to 0", sb.player.announce, file, { duck = 3 })
lib.fails("a file expected", sb.player.announce, "http://example.invalid/a.mp3")
local events = lib.record("track_started", "track_ended", "announcement_failed")
sb.queue.add({ lib.track("twenty") })
sb.player.play()
sb.after(2, function()
  assert(sb.player.announce(file, { duck = -20, chime = true }) == true)
  assert(sb.player.announce("/nowhere/gone.wav") == true)
end)
sb.after(8, function()
  local names = {}
  for _, entry in ipairs(events) do
    names[#names + 1] = entry.event.type .. (entry.event.source and (" " .. entry.event.source) or "")
  end
  print(table.concat(names, ", "))
  assert(math.abs(sb.player.status().elapsed - 8) < 0.001, "the place went on")
  sb.player.stop()
  lib.ok("announce")
end)
