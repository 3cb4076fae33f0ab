-- Forgotten: tracks you liked or rated 4 or 5 that have not been played for 90 days
-- (or never), the longest-unplayed first.
local sb = require "songbox"
assert(sb.smart("Forgotten", "(liked:yes OR rating>=4) -last_played:-90d.. sort:last_played"))
sb.log.info("smart playlist 'Forgotten' is ready")
