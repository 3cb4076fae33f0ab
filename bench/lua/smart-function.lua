-- Two smart playlists of the same 200 tracks: a function that reads the whole library, and a
-- query. bench/lua-run defines them, then times `songbox ls playlist:NAME` for each.
local sb = require "songbox"
-- Every 100th track of the library, by id: a function that reads the whole library.
assert(sb.smart("Every hundredth", function()
  local picked = {}
  for i, t in ipairs(sb.library.query("sort:id")) do if i % 100 == 0 then picked[#picked + 1] = t end end
  return picked
end))
assert(sb.smart("Every hundredth (query)", "id:..20000 sort:id limit:200"))
