-- A smart-playlist rule file to copy and change: each line defines a live playlist that is
-- evaluated whenever it is read, so it follows your plays, likes and ratings.
-- Try it:  songbox run examples/lua/smart-rules.lua   then   songbox playlist ls
-- Put your copy in ~/.config/songbox/plugins/ and the daemon applies it at every start.
-- Query language: docs/query-language.md.
local sb = require "songbox"

local rules = {
  { "Sixties",         "year:1960..1969 sort:year,album,track" },
  { "Hebrew love",     "אהבה sort:artist" },
  { "Short and sweet", "duration:..3:00 rating:4.. sort:-rating" },
  { "Often skipped",   "skips>=3 sort:-skips" },
  { "Never played",    "plays:=0 random" },
  { "Quick hour",      "random limit:60m" },
}

for _, rule in ipairs(rules) do
  local name, query = rule[1], rule[2]
  local ok, message = sb.smart(name, query)
  if ok then
    print(("%-20s %s"):format(name, query))
  else
    sb.log.warn(message)     -- a query that does not parse: the others still go in
  end
end

-- A rule no query can say, as a function: the most played track of each artist, most played
-- first. songbox keeps where the function is; reading the playlist (songbox ls
-- playlist:"Best of each artist", an MPD client, another script) runs this file again,
-- read-only, and calls it. It must return a list of tracks (or track ids).
assert(sb.smart("Best of each artist", function()
  local seen, picked = {}, {}
  for _, track in ipairs(sb.library.query("plays>0 sort:-plays,title")) do
    local artist = track.albumartist or track.artist or ""
    if not seen[artist] then
      seen[artist] = true
      picked[#picked + 1] = track
    end
  end
  return picked
end))
print(("%-20s %s"):format("Best of each artist", "(a function)"))
