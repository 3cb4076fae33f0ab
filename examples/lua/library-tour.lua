-- A tour of songbox.library and songbox.history: reading, finding, editing.
-- Usage: songbox run examples/lua/library-tour.lua [--dry-run]
local sb = require "songbox"
-- "1 track", "2 tracks".
local function count(n, one, many) return n .. " " .. (n == 1 and one or many) end

local stats = sb.library.stats()
print(("%s by %s on %s, %.1f minutes"):format(count(stats.tracks, "track", "tracks"),
  count(stats.artists, "artist", "artists"), count(stats.albums, "album", "albums"), stats.duration / 60))

-- The query language, as in `songbox ls`:
for _, t in ipairs(sb.library.query("year:1960..1979 sort:year limit:5")) do
  print(t.id, t.year, t.artist, t.title)
end

-- The same kind of search as a table: exact (folded) text, ranges, sort and limit.
local oldies = sb.library.find { year = { max = 1979 }, sort = "-plays", limit = 3 }
print(#oldies .. " oldies, most played first")

-- One track by id; nil when there is none.
local first = sb.library.query("sort:id limit:1")[1]
if first then
  local track = sb.library.get(first.id)
  print(track.title, track.duration .. " s", track.added)
  -- An edit lives in the database, never in the file. Refused under --dry-run.
  if not sb.dry_run then
    assert(sb.library.set(track.id, { rating = 4, liked = true }))
    assert(sb.library.set(track.id, { rating = false, liked = false })) -- and back
  end
end

-- The history: the last plays, and the plays of one track.
for _, entry in ipairs(sb.history.recent { limit = 5 }) do
  print(entry.at, entry.kind, entry.reason, entry.artist, entry.title)
end
if first then print(#sb.history.plays(first) .. " plays of " .. (first.title or first.path)) end
