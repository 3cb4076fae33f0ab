-- Alarms: sounds the alarms kept in the library (`songbox alarm add`, `songbox.alarm.add`) at
-- their times, fading in from a start volume to a target, repeating the source until dismissed
-- or timed out, and never failing silently: a few seconds after sounding it checks that audio
-- flows, and if not plays the bundled alarm tone, or moves to the next configured output when
-- this one failed. What was playing before (queue, place, volume, modes, output) comes back
-- after the alarm. See docs/alarms.md.
--
-- Messages on the `alarm` channel (`mpc sendmessage alarm snooze`, Home Assistant, a door
-- sensor, or `songbox.alarm.fire(name)` from another plugin): `fire:NAME`, `snooze`,
-- `dismiss`, `reload` (after the CLI changed the alarms).
--
-- `songbox run --fast --output null plugins/alarm.lua test NAME [SNOOZE_AT]` (what `songbox alarm
-- test` and the daemon's `alarmtest` run, on a copy of the library): sounds NAME at once on a fast
-- clock and prints the timeline as JSON (`AlarmTest` in Swift reads it).
local sb = require "songbox"

local check_after = tonumber(sb.options.check_after) or 5   -- plugin.alarm.check_after (seconds)
local scheduled = {}    -- name -> handle of its songbox.at
local sounding = nil    -- the alarm sounding now: { alarm, before, timers }
local testing = ...     -- "test" when run by `songbox alarm test`
local test_name, test_snooze = select(2, ...)
local timeline = {}

local test_start = nil   -- the wall clock when the test began (a fast run's: the script's clock)
local function note(kind, fields)
  if testing ~= "test" then return end
  local now = sb.time.now()
  test_start = test_start or now
  local entry = { t = now - test_start, kind = kind, volume = sb.player.status().volume }
  for k, v in pairs(fields or {}) do entry[k] = v end
  local last = timeline[#timeline]
  -- A track that starts again and again (the alarm repeats its source): once, with a count.
  if kind == "track" and last and last.kind == "track" and last.track == entry.track then
    last.times = (last.times or 1) + 1
    return
  end
  timeline[#timeline + 1] = entry
end

local function announce(alarm, phase, details)
  details = details or {}
  local why = (details.to and (" to " .. details.to) or "") .. (details.why and (": " .. details.why) or "")
  if phase == "failed" or phase == "fallback" or phase == "missed" then
    sb.log.warn(("alarm %s: %s%s"):format(alarm.name, phase, why))
  else
    sb.log.info(("alarm %s: %s%s"):format(alarm.name, phase, why))
  end
  sb.alarm.announce(alarm.name, phase, details)
  note("alarm", { phase = phase, why = details.why, to = details.to })
end

-- What plays: the alarm's query, playlist or mood (a mood needs the mood plugin's helpers).
local function source(alarm)
  if alarm.playlist then
    local list, message = sb.playlist.get(alarm.playlist)
    if not list then return {}, message end
    return list.tracks, nil
  end
  if alarm.mood then
    local moods = sb.mood
    if not moods or not moods.playlist then return {}, "moods are not available in this songbox" end
    local ok, tracks = pcall(moods.playlist, { mood = alarm.mood, minutes = 60 })
    if not ok then return {}, tostring(tracks) end
    return tracks or {}, nil
  end
  local tracks, message = sb.library.query(alarm.query or "")
  return tracks or {}, message
end

-- The player as it was, to put back after the alarm.
local function capture()
  local status = sb.player.status()
  local items = {}
  for i, item in ipairs(sb.queue.list()) do items[i] = { id = item.id, lane = item.lane } end
  -- Where playback is heading: a pause pressed a moment ago is a pause.
  return { items = items, position = status.position, elapsed = status.elapsed, state = status.heading or status.state,
           volume = status.volume, output = status.output_index, modes = { ["repeat"] = status["repeat"], random = status.random,
           single = status.single, consume = status.consume } }
end

local function restore(before)
  sb.player.stop()
  sb.queue.clear()
  -- Back on the output it played on (an alarm that fell back does not move the music for good).
  if before.output and sb.player.status().output_index ~= before.output then sb.player.use_output(before.output) end
  sb.player.set(before.modes)
  sb.player.volume(before.volume)
  -- Each lane as it was (autoplay's additions stay autoplay's), in order; the new queue id of
  -- each item by its old place. An item that is no library track (the tone) is not put back.
  local queued = {}
  for _, lane in ipairs({ "user", "autoplay" }) do
    local ids, places = {}, {}
    for place, item in ipairs(before.items) do
      if item.id > 0 and (item.lane or "user") == lane then ids[#ids + 1], places[#places + 1] = item.id, place end
    end
    if #ids > 0 then
      for k, id in ipairs(sb.queue.add(ids, { lane = lane }) or {}) do queued[places[k]] = id end
    end
  end
  local item = before.position and queued[before.position]
  if item and before.state == "playing" then
    sb.player.play(item)
    if before.elapsed and before.elapsed > 0 then sb.player.seek(before.elapsed) end
  elseif item then
    -- Paused (or stopped at a place): back at that place, silent; play goes on from there.
    sb.player.cue(item, before.elapsed or 0)
  end
end

local function cancel_timers()
  if not sounding then return end
  for _, timer in ipairs(sounding.timers) do timer:off() end
  sounding.timers = {}
end

local function stop(phase)
  if not sounding then return false end
  local alarm, before = sounding.alarm, sounding.before
  cancel_timers()
  sounding = nil
  restore(before)
  announce(alarm, phase)
  return true
end

local function flowing()
  local status = sb.player.status()
  if status.output_error then return false, "the output failed: " .. status.output_error end
  if status.state ~= "playing" then return false, "nothing plays (" .. status.state .. ")" end
  return true
end

-- The first configured output after the one in use that this alarm has not tried.
local function next_output(tried)
  local current = sb.player.status().output_index or 1
  for _, output in ipairs(sb.player.outputs()) do
    if output.index > current and not tried[output.index] then return output end
  end
end

-- A few seconds after sounding: does audio flow? If not, in turn: when the output failed, the
-- next configured output (with what was playing); when nothing plays (an empty source,
-- unreadable files), the bundled alarm tone; and when nothing is left to try, the alarm says
-- it failed (in the log and as an event), never silently.
local function check(alarm)
  local ok, why = flowing()
  if ok then note("check", { ok = true }); return end
  note("check", { ok = false, why = why })
  local tried = sounding.tried
  local output = sb.player.status().output_error and next_output(tried.outputs)
  if output then
    tried.outputs[output.index] = true
    announce(alarm, "fallback", { why = why, to = output.output })
    local moved, message = sb.player.use_output(output.index)
    if not moved then sb.log.warn(("alarm %s: %s"):format(alarm.name, message)) end
    if sb.player.status().state ~= "playing" then sb.player.play { reason = "alarm" } end
  elseif not tried.tone then
    tried.tone = true
    announce(alarm, "fallback", { why = why, to = "the alarm tone" })
    sb.player.stop()
    sb.queue.clear()
    local id, message = sb.alarm.tone()
    if not id then announce(alarm, "failed", { why = message }); return end
    sb.player.set { ["repeat"] = true, single = false }
    sb.player.volume(alarm.volume)
    sb.player.play(id, { reason = "alarm" })
  else
    announce(alarm, "failed", { why = why })
    return
  end
  table.insert(sounding.timers, sb.after(check_after, function() check(alarm) end))
end

-- The alarm's `say` ("It is %H:%M"), said over its music once that is up (at the end of its
-- fade-in), with the time as it is then.
local function speak_when_up(alarm)
  if not alarm.say then return end
  table.insert(sounding.timers, sb.after(alarm.fade, function()
    local said, why = sb.alarm.speak(alarm.name)
    if said then
      sb.log.info(("alarm %s: said '%s'"):format(alarm.name, said))
      note("say", { said = said })
    else
      sb.log.warn(("alarm %s: not said: %s"):format(alarm.name, why))
    end
  end))
end

local function start_music(alarm, tracks)
  sb.queue.clear()
  if #tracks > 0 then sb.queue.add(tracks) end
  -- The whole library (no query given) in a new order each morning.
  if not (alarm.query or alarm.playlist or alarm.mood) then sb.queue.shuffle() end
  sb.player.set { ["repeat"] = true, random = false, single = false, consume = false }
  sb.player.volume(alarm.start_volume)
  sb.player.play { reason = "alarm" }
  if alarm.fade > 0 then
    sb.player.fade { to = alarm.volume, over = alarm.fade, curve = alarm.curve }
  else
    sb.player.volume(alarm.volume)
  end
end

local function sound(alarm, info)
  if sounding then
    sb.log.warn(("alarm %s: not sounded, alarm %s is sounding"):format(alarm.name, sounding.alarm.name))
    return false
  end
  local tracks, why = source(alarm)
  local before = capture()
  sounding = { alarm = alarm, before = before, timers = {}, tried = { outputs = { [before.output or 1] = true } } }
  start_music(alarm, tracks)
  announce(alarm, "sounding", { tracks = #tracks, late = info and info.late or 0, why = why })
  speak_when_up(alarm)
  table.insert(sounding.timers, sb.after(check_after, function() check(alarm) end))
  table.insert(sounding.timers, sb.after(alarm.timeout, function() stop("timeout") end))
  return true
end

local function snooze()
  if not sounding then return false end
  local alarm = sounding.alarm
  cancel_timers()
  sb.player.pause()
  local back = sb.after(alarm.snooze, function()
    if not sounding then return end
    sounding.timers = {}
    sb.player.volume(alarm.start_volume)
    sb.player.resume()
    if alarm.fade > 0 then sb.player.fade { to = alarm.volume, over = alarm.fade, curve = alarm.curve } end
    announce(alarm, "sounding", { snoozed = true })
    speak_when_up(alarm)
    table.insert(sounding.timers, sb.after(check_after, function() check(alarm) end))
    table.insert(sounding.timers, sb.after(alarm.timeout, function() stop("timeout") end))
  end)
  table.insert(sounding.timers, back)
  announce(alarm, "snoozed", { minutes = alarm.snooze / 60 })
  return true
end

local function find(name)
  for _, alarm in ipairs(sb.alarm.list() or {}) do
    if alarm.name == name then return alarm end
  end
end

-- Every enabled alarm on its schedule (again: after `reload`).
local function load()
  for _, handle in pairs(scheduled) do handle:off() end
  scheduled = {}
  for _, alarm in ipairs(sb.alarm.list() or {}) do
    if alarm.enabled then
      local ok, handle = pcall(sb.at, alarm.when, function(info) sound(alarm, info) end, {
        name = "alarm:" .. alarm.name, grace = alarm.grace,
        missed = function(info) announce(alarm, "missed", { scheduled = info.at, late = info.late }) end,
      })
      if ok then
        scheduled[alarm.name] = handle
        local next, label = sb.time.next(alarm.when)
        if next then announce(alarm, "scheduled", { at = label }) end
      else
        sb.log.error(("alarm %s: %s"):format(alarm.name, handle))
      end
    end
  end
end

sb.subscribe("alarm")
sb.on("message", function(event)
  if event.channel ~= "alarm" then return end
  local text = event.text
  local name = text:match("^fire:(.+)$")
  if name then
    local alarm = find(name)
    if alarm then sound(alarm) else sb.log.warn(("alarm: no alarm named '%s' to fire"):format(name)) end
  elseif text == "snooze" then
    if not snooze() then sb.log.info("alarm: nothing to snooze") end
  elseif text == "dismiss" then
    if not stop("dismissed") then sb.log.info("alarm: nothing to dismiss") end
  elseif text == "reload" then
    load()
  else
    sb.log.warn(("alarm: unknown message '%s' (fire:NAME, snooze, dismiss, reload)"):format(text))
  end
end)
sb.on("shutdown", function() if sounding then stop("dismissed") end end)

if testing == "test" then
  local alarm = find(test_name or "")
  if not alarm then
    print(("no alarm named '%s'"):format(tostring(test_name)))
    sb.exit(2)
    return
  end
  sb.on("track_started", function(event)
    local track = event.track or {}
    note("track", { track = track.title or (track.path or "?"):match("[^/]*$") })
  end)
  -- The volume along the fade, every tenth of it (or every minute without one).
  local step = alarm.fade > 0 and alarm.fade / 10 or 60
  local steps
  steps = sb.every(step, function()
    if sounding then note("volume") end
    -- Past the fade the volume stays: one line said it.
    if alarm.fade > 0 and test_start and sb.time.now() - test_start > alarm.fade then steps:off() end
  end)
  sb.on("alarm", function(event)
    if event.phase == "timeout" or event.phase == "dismissed" or event.phase == "failed" then
      steps:off()
      print(sb.json.encode(timeline))
      -- The test is over; an alarm that could not sound at all fails it.
      sb.exit(event.phase == "failed" and 1 or 0)
    end
  end)
  sound(alarm)
  -- `alarm test --snooze-at`: snooze pressed once, to see the alarm come back.
  local snooze_at = tonumber(test_snooze or "")
  if snooze_at then sb.after(snooze_at, snooze) end
else
  load()
end
