-- Your most played artists, from the play counts of every track.
-- Usage: songbox run examples/lua/top-artists.lua [COUNT]
local sb = require "songbox"
-- "1 track", "2 tracks".
local function counted(n, one, many) return n .. " " .. (n == 1 and one or many) end
local count = tonumber(sb.args[1]) or 10

local plays, tracks = {}, {}
for _, track in ipairs(sb.library.find { plays = { min = 1 } }) do
  local artist = track.artist or "(unknown artist)"
  plays[artist] = (plays[artist] or 0) + track.plays
  tracks[artist] = (tracks[artist] or 0) + 1
end

local artists = {}
for artist in pairs(plays) do artists[#artists + 1] = artist end
table.sort(artists, function(a, b)
  if plays[a] ~= plays[b] then return plays[a] > plays[b] end
  return a < b
end)

if #artists == 0 then print("nothing played yet") end
for i = 1, math.min(count, #artists) do
  local artist = artists[i]
  -- songbox.text.pad counts terminal columns, not bytes: Hebrew names line up too.
  print(("%2d. %s %4d %s (%s)"):format(i, sb.text.pad(sb.text.truncate(artist, 30), 30), plays[artist],
    plays[artist] == 1 and "play " or "plays", counted(tracks[artist], "track", "tracks")))
end

-- The last 30 days, from the play history:
print("\nlast 30 days:")
for i, entry in ipairs(sb.history.top { since = "30d", limit = count }) do
  print(("%2d. %s - %s (%d)"):format(i, entry.track.artist or "?", entry.track.title or "?", entry.plays))
end
