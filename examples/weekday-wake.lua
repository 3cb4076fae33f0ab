-- Weekday wake-up: an alarm on weekdays at 06:45 that plays the "wake-up" mood (the whole
-- library shuffled until `songbox analyze` and the moods plugin can pick), rising over
-- 20 minutes on a logarithmic curve to volume 70. Run it once to keep the alarm; the
-- daemon's alarm plugin sounds it from then on.
--
--   songbox run examples/weekday-wake.lua [HH:MM]
--   songbox alarm test weekday-wake          -- the whole alarm on a fast clock
local sb = require "songbox"
local at = (...) or "06:45"
local ok, message = sb.alarm.add("weekday-wake", {
  when = "mon-fri " .. at,
  mood = sb.mood and "wake-up" or nil,
  start_volume = 0, volume = 70, fade = 20 * 60, curve = "log",
  snooze = 9 * 60, timeout = 60 * 60,
})
if not ok then error(message) end
local next, label = sb.time.next("mon-fri " .. at)
print(("weekday-wake: kept; next at %s"):format(next and label or "never"))
-- A daemon that runs now reads the alarms again at `songbox alarm enable weekday-wake` (or at
-- its next start or SIGHUP).
