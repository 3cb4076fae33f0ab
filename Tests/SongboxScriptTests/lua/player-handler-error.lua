-- A failing handler or timer is reported as file:line: message; the others still run, playback
-- goes on, and `songbox run` exits with status 1. Run by PlayerScriptTests.swift.
local sb = require "songbox"
sb.on("track_started", function() print("first handler") end)
sb.on("track_started", function() error("boom in a handler") end)
sb.on("track_started", function() print("third handler") end)
sb.after(1, function() local t = nil; return t.x end)
sb.after(2, function() print("timer after the failing one") end)
sb.on("track_ended", function(e) print("ended " .. e.reason) end)
sb.queue.add(sb.library.query('path:"/three.mp3"'))
sb.player.play()
