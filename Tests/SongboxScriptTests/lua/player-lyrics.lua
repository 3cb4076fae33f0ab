-- lyric events end to end: each synchronised line of an .lrc beside the track is announced at
-- the sample it starts on (`songbox.player.status().elapsed` in the handler, the audio clock),
-- across a gapless track change and a seek. Run by PlayerScriptTests.swift with three.lrc and
-- thirty.lrc written beside the tones before the scan.
local sb = require "songbox"
local lib = require "player-lib"
local three, thirty = lib.track("three"), lib.track("thirty")
local rate = 44100

-- The library read the files: thirty.lrc's offset (+250 ms shows lines earlier) and its line
-- with two timestamps.
local lyrics = { [three.id] = assert(sb.lyrics.get(three)), [thirty.id] = assert(sb.lyrics.get(thirty)) }
local times = {}
for i, line in ipairs(lyrics[thirty.id].lines) do times[i] = line.t end
assert(table.concat(times, " ") == "1.0 4.75 9.873 19.75 25.25", table.concat(times, " "))
lib.ok("lrc read")

local heard = {}
local seeked
sb.on("lyric", function(e)
  local status = sb.player.status()
  heard[#heard + 1] = { track = e.track.id, queue_id = e.track.queue_id, index = e.index, text = e.text, t = e.t,
                        elapsed = status.elapsed, clock = status.clock, after_seek = seeked ~= nil }
end)
sb.on("seeked", function(e) seeked = e end)
local started = {}
sb.on("track_started", function(e) started[e.track.id] = lib.clock() end)

sb.queue.add({ three, thirty })
sb.player.play()
-- 12 s into thirty (it starts when three ends, at 3 s): on to 22 s, past lines 4 and 5's start.
sb.after(15, function() assert(sb.player.seek(22) == 22) end)

--- The frame a line at `t` seconds starts on: its milliseconds × rate, to the nearest frame.
local function frame(t)
  local ms = math.floor(t * 1000 + 0.5)
  return (ms * rate + 500) // 1000
end

sb.on("stopped", function()
  local seen = {}
  for _, h in ipairs(heard) do
    local line = lyrics[h.track].lines[h.index]
    assert(line, "no line " .. tostring(h.index) .. " in track " .. tostring(h.track))
    assert(h.t == line.t and h.text == line.text, "line " .. h.index .. ": " .. h.text .. " at " .. h.t)
    seen[#seen + 1] = (h.track == three.id and "three" or "thirty") .. ":" .. h.index
  end
  assert(table.concat(seen, " ") == "three:1 three:2 thirty:1 thirty:2 thirty:3 thirty:4 thirty:5", table.concat(seen, " "))
  assert(heard[6].text == "Chorus" and heard[5].text == "שורה בעברית", heard[5].text)
  lib.ok("each line once, with its words")

  for i, h in ipairs(heard) do
    local at = math.floor(h.elapsed * rate + 0.5)
    if h.after_seek and h.index == 4 then
      -- The line in effect where the seek landed, announced there once (it began at 19.75 s).
      assert(at == 22 * rate, "line in effect after the seek at frame " .. at)
    else
      assert(at == frame(h.t), string.format("event %d (line %d, %.3f s) at frame %d, not %d", i, h.index, h.t, at, frame(h.t)))
      -- And on the audio clock: the track's start plus the line's time, to the sample.
      if not h.after_seek then lib.at(h.clock, started[h.track] + frame(h.t) / rate, "clock of event " .. i) end
    end
  end
  lib.at(started[thirty.id], 3, "gapless start of thirty")
  lib.ok("at their samples")
end)
