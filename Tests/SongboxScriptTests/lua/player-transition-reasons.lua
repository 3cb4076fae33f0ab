-- The reasons songbox.player.on_transition is asked with, and track_started's: `alarm` between
-- the tracks of an alarm's music (player.play{reason = "alarm"}, until a stop), `autoplay` into
-- a track autoplay added, `natural` otherwise; `skip` for a skip to the next one. Run by
-- PlayerScriptTests.swift.
local sb = require "songbox"
local lib = require "player-lib"
local three = lib.track("three")

local asked = {}
sb.player.on_transition(function(from, to, ctx)
  asked[#asked + 1] = ("%s>%s %s"):format(from.queue_id, to.queue_id, ctx.reason)
end)
local started = {}
sb.on("track_started", function(e) started[#started + 1] = e.reason end)
lib.fails("'reason' is \"user\" or \"alarm\", got wake", sb.player.play, { reason = "wake" })
lib.fails("unknown option 'why' (options: reason)", sb.player.play, nil, { why = "alarm" })

-- An alarm's music: two tracks.
local a = sb.queue.add({ three, three })
assert(sb.player.play { reason = "alarm" })
sb.after(7, function()
  sb.player.stop()
  sb.queue.clear()
  -- Then the user's track, and one autoplay added.
  local b = sb.queue.add({ three })
  local c = sb.queue.add({ three }, { lane = "autoplay" })
  sb.player.play()
  sb.after(7, function()
    print("ids " .. table.concat({ a[1], a[2], b[1], c[1] }, " "))
    print("asked " .. table.concat(asked, ", "))
    print("started " .. table.concat(started, ", "))
    lib.ok("reasons")
  end)
end)
