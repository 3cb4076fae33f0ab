-- Top 10: the ten most played tracks, as a live smart playlist ("songbox ls playlist:'Top 10'").
-- Run once with `songbox run plugins/top10.lua`; the daemon runs it at every start.
local sb = require "songbox"
assert(sb.smart("Top 10", "sort:-plays plays>0 limit:10"))
sb.log.info("smart playlist 'Top 10' is ready")
