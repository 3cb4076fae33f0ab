-- Every track of the library as a Lua table, then a Lua predicate over them, then the same
-- filter as a query. Prints seconds for each step and the tracks per second.
local sb = require "songbox"
local clock = os.clock
local t0 = clock()
local tracks = sb.library.query("")
local t1 = clock()
local picked = 0
for _, t in ipairs(tracks) do
  if t.title and t.title:lower():find("love", 1, true) then picked = picked + 1 end
end
local t2 = clock()
local queried = #sb.library.query("title:love")
local t3 = clock()
print(string.format("tracks %d materialize %.3f s (%.0f tracks/s) lua-filter %.3f s (%d) query %.3f s (%d)",
  #tracks, t1 - t0, #tracks / (t1 - t0), t2 - t1, picked, t3 - t2, queried))
