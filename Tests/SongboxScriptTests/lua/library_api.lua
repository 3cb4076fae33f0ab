-- songbox.library / history / playlist / smart against the example library (examples/music,
-- 16 tracks). LibraryAPITests.swift scans it and records plays first: "Paper Boats" 3 plays,
-- "Morning Light" 1 play and 1 skip. The second argument is a temporary folder.
local sb = require "songbox"
local folder = select(1, ...)

local function errors(expected, f, ...)
  local ok, err = pcall(f, ...)
  assert(not ok, "expected an error: " .. expected)
  -- Called through pcall, Lua names the function by its module path ('songbox.library.get'):
  -- keep the last part, as in a direct call.
  err = tostring(err):gsub("to 'songbox%.([%w_.]+)'", function(n) return "to '" .. n:match("[%w_]+$") .. "'" end)
  assert(type(err) == "string" and err:find(expected, 1, true), "error was: " .. tostring(err))
end
local function soft(expected, value, message)
  assert(value == nil, "expected nil, got " .. tostring(value))
  assert(message == expected, "message was: " .. tostring(message))
end
local titles = require("tracklists").titles

-- library.query
local all = sb.library.query("")
assert(#all == 16, #all)
local boats = sb.library.query('title:"paper boats"')
assert(#boats == 1)
local b = boats[1]
assert(b.title == "Paper Boats" and b.artist == "The Lanterns" and b.album == "Morning Light")
assert(math.type(b.id) == "integer" and b.path:find("Paper Boats.mp3", 1, true))
assert(b.plays == 3 and b.skips == 0 and b.liked == false and b.rating == nil)
assert(b.added:match("^%d%d%d%d%-%d%d%-%d%dT%d%d:%d%d:%d%dZ$"), b.added)
assert(b.last_played:match("^%d%d%d%d%-%d%d%-%d%dT"), b.last_played)
assert(type(b.duration) == "number" and b.duration > 3)
assert(b.comment ~= nil and b.isrc ~= nil and b.has_picture == false and b.size > 0 and b.samplerate > 0)
assert(#sb.library.query("אהבה") >= 3)
local top = sb.library.query("sort:-plays limit:2")
assert(titles(top) == "Paper Boats|Morning Light", titles(top))
soft("songbox.library.query: unknown field 'colour'", sb.library.query("colour:red"))
errors("bad argument #1 to 'query' (string expected, got no value)", sb.library.query)
errors("bad argument #1 to 'query' (string expected, got table)", sb.library.query, {})

-- library.find
local found = sb.library.find { artist = "the lanterns", sort = "title" }
assert(titles(found) == "All the Lovers Came Home|Love in Spring|Morning Light|Paper Boats", titles(found))
assert(#sb.library.find { artist = "lanterns" } == 0) -- whole field, not a substring
assert(#sb.library.find { plays = { min = 1 } } == 2)
assert(titles(sb.library.find { plays = { min = 1 }, sort = "-plays", limit = 1 }) == "Paper Boats")
assert(#sb.library.find { year = { min = 1900, max = 2100 } } == 16)
assert(#sb.library.find { artist = { "The Lanterns", "Mabel Grey" } } == 7)
assert(#sb.library.find { liked = true } == 0)
assert(#sb.library.find { title = 'He said "hi" \\ bye' } == 0) -- quoting is safe
assert(#sb.library.find { added = { min = "-30d" } } == 16)
assert(#sb.library.find {} == 16)
assert(#sb.library.find { random = true, limit = 3 } == 3)
soft("songbox.library.find: unknown field 'colour'", sb.library.find { colour = "red" })
errors("bad argument #1 to 'find' (table expected, got string)", sb.library.find, "x")
errors("bad argument #1 to 'find' (field 'plays': a range has 'min' and 'max', not 'low')", sb.library.find, { plays = { low = 1 } })
errors("bad argument #1 to 'find' ('sort' must be", sb.library.find, { sort = "plays desc" })
errors("bad argument #1 to 'find' ('limit' must be", sb.library.find, { limit = true })

-- library.get
local got = sb.library.get(b.id)
assert(got.id == b.id and got.title == "Paper Boats")
assert(sb.library.get(999999) == nil)
errors("bad argument #1 to 'get' (number expected, got string)", sb.library.get, "x")

-- library.set
assert(sb.library.set(b.id, { rating = 5, liked = true, title = "Paper Boats (edit)", year = 1999 }) == true)
got = sb.library.get(b.id)
assert(got.rating == 5 and got.liked == true and got.title == "Paper Boats (edit)" and got.year == 1999)
assert(sb.library.set(b, { title = "", year = false }) == true) -- a track table works too; "" / false clear
got = sb.library.get(b.id)
assert(got.title == "Paper Boats" and got.year ~= 1999 and got.rating == 5)
soft("songbox.library.set: no track with id 999999", sb.library.set(999999, { rating = 1 }))
errors("bad argument #2 to 'set' (unknown field 'colour' (editable: title, artist, album, genre, year, rating, liked, language))",
  sb.library.set, b.id, { colour = "red" })
errors("bad argument #2 to 'set' ('liked' must be a boolean, got string)", sb.library.set, b.id, { liked = "yes" })
errors("bad argument #2 to 'set' (rating must be 1 to 5", sb.library.set, b.id, { rating = 9 })
errors("bad argument #2 to 'set' ('title' must be a string", sb.library.set, b.id, { title = 3 })
errors("bad argument #1 to 'set' (track or id expected, got string)", sb.library.set, "x", {})

-- library.stats
local stats = sb.library.stats()
assert(stats.tracks == 16 and stats.artists == 5 and stats.plays == 4 and stats.skips == 1, sb.json.encode(stats))
assert(stats.duration > 0 and stats.size > 0 and #stats.folders == 1 and stats.database_size > 0)
assert(stats.database:find("library.db", 1, true))

-- history.recent / top / plays
local recent = sb.history.recent { limit = 2 }
assert(#recent == 2 and recent[1].kind == "skip" and recent[1].title == "Morning Light", sb.json.encode(recent[1]))
assert(recent[1].reason == "skipped" and recent[1].track.id == recent[1].track_id and recent[1].at:match("T"))
assert(#sb.history.recent() == 5)
local best = sb.history.top { since = "30d", limit = 10 }
assert(#best == 2 and best[1].plays == 3 and best[1].track.title == "Paper Boats" and best[2].plays == 1)
assert(best[1].track_id == b.id and best[1].last_played:match("T"))
assert(#sb.history.top { since = "2w" } == 2 and #sb.history.top { since = "36h" } == 2)
assert(#sb.history.top { since = "12h" } == 0)
assert(#sb.history.top { since = 30 } == 2 and #sb.history.top() == 2)
local none = sb.history.top { since = 0.0001 }
assert(#none == 0, sb.json.encode(none)) -- the plays are a day old
local plays = sb.history.plays(b)
assert(#plays == 3 and plays[1].kind == "play" and plays[1].played > 0)
assert(#sb.history.plays(b.id) == 3)
soft("songbox.history.plays: no track with id 999999", sb.history.plays(999999))
errors("bad argument #1 to 'top' ('since' must be like", sb.history.top, { since = "soon" })
errors("bad argument #1 to 'recent' (unknown option 'count' (known: limit))", sb.history.recent, { count = 1 })
errors("bad argument #1 to 'recent' (table expected, got number)", sb.history.recent, 5)
errors("bad argument #1 to 'plays' (track or id expected, got no value)", sb.history.plays)

-- playlist.save / get / list
local lanterns = sb.library.find { artist = "The Lanterns", sort = "track" }
assert(sb.playlist.save("Lanterns", lanterns) == true)
soft("songbox.playlist.save: a saved playlist named 'Lanterns' already exists", sb.playlist.save("Lanterns", {}))
assert(sb.playlist.save("Lanterns", { lanterns[1], lanterns[2].id }, { replace = true }))
local pl = sb.playlist.get("Lanterns")
assert(pl.name == "Lanterns" and pl.kind == "saved" and #pl.tracks == 2 and pl.tracks[2].id == lanterns[2].id)
assert(pl.created:match("T") and pl.duration > 0 and pl.query == nil)
soft("songbox.playlist.get: no playlist named 'Nope'", sb.playlist.get("Nope"))
assert(sb.playlist.save("From history", sb.history.recent()) == true) -- history entries carry track_id
assert(#sb.playlist.get("From history").tracks == 5)
errors("bad argument #2 to 'save' (item 1 is not a track or an id (string))", sb.playlist.save, "X", { "a" })
errors("bad argument #3 to 'save' ('replace' must be a boolean, got number)", sb.playlist.save, "X", {}, { replace = 1 })
errors("bad argument #1 to 'get' (string expected, got no value)", sb.playlist.get)

-- playlist.add (1-based `at`), remove, move
assert(sb.playlist.add("Lanterns", { lanterns[3] }))                   -- 1 2 3
assert(sb.playlist.add("Lanterns", { lanterns[4].id }, { at = 1 }))     -- 4 1 2 3
local ids = {}
for i, t in ipairs(sb.playlist.get("Lanterns").tracks) do ids[i] = t.id end
assert(ids[1] == lanterns[4].id and ids[2] == lanterns[1].id and ids[4] == lanterns[3].id)
soft("songbox.playlist.add: position 10 is outside playlist 'Lanterns' (use 1 to 5)", sb.playlist.add("Lanterns", { b }, { at = 10 }))
soft("songbox.playlist.add: position 0 is outside playlist 'Lanterns' (use 1 to 5)", sb.playlist.add("Lanterns", { b }, { at = 0 }))
soft("songbox.playlist.move: position 5 is outside playlist 'Lanterns' (use 1 to 4)", sb.playlist.move("Lanterns", 5, 1))
assert(sb.playlist.move("Lanterns", 1, 4))                              -- 1 2 3 4
assert(sb.playlist.get("Lanterns").tracks[4].id == lanterns[4].id)
assert(sb.playlist.remove("Lanterns", { 1, 2 }))                        -- 3 4
assert(sb.playlist.remove("Lanterns", 1))                               -- 4
pl = sb.playlist.get("Lanterns")
assert(#pl.tracks == 1 and pl.tracks[1].id == lanterns[4].id)
local value, message = sb.playlist.remove("Lanterns", { 5 })
assert(value == nil and message == "songbox.playlist.remove: position 5 is outside playlist 'Lanterns' (use 1 to 1)", message)
soft("songbox.playlist.move: no playlist named 'Nope'", sb.playlist.move("Nope", 1, 2))
soft("songbox.playlist.add: no playlist named 'Nope'", sb.playlist.add("Nope", { b }))
errors("bad argument #2 to 'move' (number expected, got string)", sb.playlist.move, "Lanterns", "1", 2)
errors("bad argument #2 to 'remove' (position 1 is not an integer (string))", sb.playlist.remove, "Lanterns", { "x" })
errors("bad argument #3 to 'add' (unknown option 'position' (known: at))", sb.playlist.add, "Lanterns", {}, { position = 1 })

-- smart
assert(sb.smart("Most played", "sort:-plays plays>0 limit:10") == true)
pl = sb.playlist.get("Most played")
assert(pl.kind == "smart" and pl.query == "sort:-plays plays>0 limit:10" and #pl.tracks == 2)
assert(sb.smart("Most played", "plays>2") == true) -- updating a smart playlist is fine
assert(#sb.playlist.get("Most played").tracks == 1)
soft("songbox.playlist.remove: cannot remove tracks from 'Most played': it is a smart playlist, its tracks come from its query",
  sb.playlist.remove("Most played", 1))
soft("songbox.smart: unknown field 'colour'", sb.smart("Bad", "colour:red"))
errors("bad argument #2 to 'smart' (string or function expected, got no value)", sb.smart, "X")
errors("bad argument #1 to 'smart' (string expected, got number)", sb.smart, 1, "plays>0")

-- list
local list = sb.playlist.list()
assert(#list == 3, #list)
local byName = {}
for _, p in ipairs(list) do byName[p.name] = p end
assert(byName["Lanterns"].kind == "saved" and byName["Lanterns"].tracks == 1)
assert(byName["Most played"].kind == "smart" and byName["Most played"].query == "plays>2" and byName["Most played"].tracks == 1)

-- rename / delete
assert(sb.playlist.rename("From history", "History") == true)
assert(sb.playlist.get("History") and sb.playlist.get("From history") == nil)
soft("songbox.playlist.rename: a saved playlist named 'Lanterns' already exists", sb.playlist.rename("History", "Lanterns"))
assert(sb.playlist.delete("History") == true)
soft("songbox.playlist.delete: no playlist named 'History'", sb.playlist.delete("History"))
errors("bad argument #2 to 'rename' (string expected, got no value)", sb.playlist.rename, "x")
errors("bad argument #1 to 'delete' (string expected, got table)", sb.playlist.delete, {})

-- export / import round trips
assert(sb.playlist.save("Lanterns", lanterns, { replace = true }))
assert(sb.playlist.export("Lanterns", folder .. "/lanterns.m3u8") == 4)
assert(sb.playlist.export("Lanterns", folder .. "/lanterns.txt", { format = "json" }) == 4)
local report = sb.playlist.import(folder .. "/lanterns.m3u8", { name = "Lanterns again" })
assert(report.name == "Lanterns again" and report.total == 4 and report.matched == 4 and #report.unmatched == 0)
report = sb.playlist.import(folder .. "/lanterns.txt", { name = "Lanterns JSON", format = "json" })
assert(report.matched == 4 and report.ids[1] == lanterns[1].id)
for i, t in ipairs(sb.playlist.get("Lanterns JSON").tracks) do assert(t.id == lanterns[i].id) end
soft("songbox.playlist.import: a saved playlist named 'Lanterns' already exists", sb.playlist.import(folder .. "/lanterns.m3u8", { name = "Lanterns" }))
assert(sb.playlist.import(folder .. "/lanterns.m3u8", { name = "Lanterns", replace = true }).matched == 4)
soft("songbox.playlist.import: no such playlist file", sb.playlist.import(folder .. "/missing.m3u8"))
soft("songbox.playlist.export: no playlist named 'Nope'", sb.playlist.export("Nope", folder .. "/x.m3u8"))
errors("bad argument #3 to 'export' ('format' must be \"m3u8\" or \"json\")", sb.playlist.export, "Lanterns", folder .. "/x", { format = "xspf" })
errors("bad argument #2 to 'import' ('name' must be a string, got number)", sb.playlist.import, "x.m3u8", { name = 1 })
errors("bad argument #1 to 'import' (string expected, got no value)", sb.playlist.import)

print("library api ok")
