-- songbox.player.announce{say = TEXT}: checked options, refused while nothing plays, the text
-- said by espeak-ng over the music; the place goes on, nothing counts. Run by
-- PlayerScriptTests.swift (which finds the speech in the WAV output) with the text as
-- songbox.args[1].
local sb = require "songbox"
local lib = require "player-lib"
local text = assert(sb.args[1])
local ok, why = sb.player.announce { say = text }
assert(ok == nil and why:find("nothing plays"), why)
lib.fails("bad argument #1 to 'songbox.player.announce' ('say' must be a string, got table)", sb.player.announce, { say = {} })
lib.fails("a file, or the option say = TEXT: one of them", sb.player.announce, "/a.wav", { say = text })
lib.fails("a file, or the option say = TEXT: one of them", sb.player.announce, {})
lib.fails("there is no text to say", sb.player.announce, { say = " " })
lib.fails("unknown option 'loud' (options: duck, chime, say)", sb.player.announce, { say = text, loud = true })
local events = lib.record("track_started", "track_ended", "announcement_failed")
sb.queue.add({ lib.track("twenty") })
sb.player.play()
sb.after(2, function() assert(sb.player.announce { say = text, duck = -20 } == true) end)
sb.after(8, function()
  assert(#events == 1 and events[1].event.type == "track_started", "only the music's start")
  assert(math.abs(sb.player.status().elapsed - 8) < 0.001, "the place went on")
  sb.player.stop()
  lib.ok("say")
end)
