-- Every track of the library as a Lua table, twice: the first call reads the database (cold),
-- the second finds the tables kept since (warm). Then a Lua predicate over them, then the same
-- filter as a query. Prints seconds for each step and the tracks per second.
local sb = require "songbox"
local clock = os.clock
local t0 = clock()
local tracks = sb.library.query("")
local t1 = clock()
tracks = nil
local t2 = clock()
tracks = sb.library.query("")
local t3 = clock()
local picked = 0
for _, t in ipairs(tracks) do
  if t.title and t.title:lower():find("love", 1, true) then picked = picked + 1 end
end
local t4 = clock()
local queried = #sb.library.query("title:love")
local t5 = clock()
print(string.format("tracks %d cold %.3f s (%.0f tracks/s) warm %.3f s (%.0f tracks/s) lua-filter %.3f s (%d) query %.3f s (%d)",
  #tracks, t1 - t0, #tracks / (t1 - t0), t3 - t2, #tracks / (t3 - t2), t4 - t3, picked, t5 - t4, queried))
