-- songbox.smart with a function: a live smart playlist whose tracks a Lua function gives. Run by
-- SmartFunctionTests.swift on the example library (16 tracks, 5 artists) after it recorded plays:
-- "Paper Boats" (The Lanterns) 3, "Old Roads" (Mabel Grey) 2, "שיר לילה" (מקהלת השחר) 1.
-- Reading a playlist this script defined runs the function here, in this state.
local sb = require "songbox"

local function soft(expected, value, message)
  assert(value == nil, "expected nil, got " .. tostring(value))
  assert(type(message) == "string" and message:find(expected, 1, true), "message was: " .. tostring(message))
end
local function errors(expected, f, ...)
  local ok, err = pcall(f, ...)
  assert(not ok and tostring(err):find(expected, 1, true), "error was: " .. tostring(err))
end
local titles = require("tracklists").titles

-- The most played track of each artist that has been played, most played first: not a query.
assert(sb.smart("Best of each", function()
  local seen, picked = {}, {}
  for _, t in ipairs(sb.library.query("plays>0 sort:-plays,title")) do
    if not seen[t.artist] then
      seen[t.artist] = true
      picked[#picked + 1] = t
    end
  end
  return picked
end) == true)

local pl = sb.playlist.get("Best of each")
assert(pl.kind == "smart" and pl.query == nil and pl.script:match("/smart_functions%.lua$"), tostring(pl.script))
-- In the function's order.
assert(titles(pl.tracks) == "Paper Boats|Old Roads|שיר לילה", titles(pl.tracks))
-- Anywhere a playlist is: in queries (membership; the query's own order) and in other smart playlists.
assert(titles(sb.library.query('playlist:"Best of each" sort:title')) == "Old Roads|Paper Boats|שיר לילה")
assert(#sb.library.query('playlist:"Best of each" -artist:lanterns') == 2)
assert(sb.smart("Best of each, but Hebrew", 'playlist:"Best of each" -artist:lanterns -artist:mabel') == true)
assert(titles(sb.playlist.get("Best of each, but Hebrew").tracks) == "שיר לילה")

-- Listed with its size and script.
local listed
for _, p in ipairs(sb.playlist.list()) do if p.name == "Best of each" then listed = p end end
assert(listed.kind == "smart" and listed.tracks == 3 and listed.script == pl.script and listed.problem == nil)

-- Ids work as well as tracks; a function may give a track twice, or nothing.
local first = sb.library.query("sort:title limit:1")[1]
assert(sb.smart("Twice", function() return { first.id, first } end))
assert(#sb.playlist.get("Twice").tracks == 2)
assert(sb.smart("Nothing", function() return {} end))
assert(#sb.playlist.get("Nothing").tracks == 0)

-- Defining it again replaces the function (a plugin does this at every start).
assert(sb.smart("Nothing", function() return { first } end))
assert(#sb.playlist.get("Nothing").tracks == 1)

-- A function that fails, or gives something else than tracks: a clear message, nothing else.
assert(sb.smart("Broken", function() error("no mood today") end))
soft("smart_functions.lua:56: no mood today", sb.playlist.get("Broken"))
soft("smart playlist 'Broken'", sb.library.query('playlist:"Broken"'))
assert(sb.smart("Text", function() return "plays>0" end))
soft("the function gave string, not a list of tracks", sb.playlist.get("Text"))
assert(sb.smart("Strings", function() return { "Paper Boats" } end))
soft("item 1 of the list the function gave is string, not a track or a track id", sb.playlist.get("Strings"))
assert(sb.smart("Ghost", function() return { 999999 } end))
soft("gave track id 999999, which is not in the library", sb.playlist.get("Ghost"))
-- A broken one shows its problem in the list; the others are still listed.
local problems = {}
for _, p in ipairs(sb.playlist.list()) do problems[p.name] = p.problem end
assert(problems["Broken"]:find("no mood today", 1, true) and problems["Best of each"] == nil)

-- Functions only read: writes are refused while one runs.
assert(sb.smart("Writer", function() sb.playlist.save("Sneaky", {}) return {} end))
soft("songbox.playlist.save refused: smart playlist 'Writer' is being evaluated, which only reads", sb.playlist.get("Writer"))
soft("no playlist named 'Sneaky'", sb.playlist.get("Sneaky"))
-- Also what writes only with an argument: reading the volume works, setting it is refused.
assert(sb.smart("Loud", function() assert(sb.player.volume()) sb.player.volume(100) return {} end))
soft("songbox.player.volume refused: smart playlist 'Loud' is being evaluated, which only reads", sb.playlist.get("Loud"))

-- A playlist that reads itself, directly or through another, is a cycle, not a hang.
assert(sb.smart("Ouroboros", function() return assert(sb.playlist.get("Ouroboros")).tracks end))
soft("smart playlist 'Ouroboros' would include itself: 'Ouroboros' → 'Ouroboros'", sb.playlist.get("Ouroboros"))
assert(sb.smart("Ping", function() return assert(sb.library.query('playlist:"Pong"')) end))
assert(sb.smart("Pong", function() return assert(sb.library.query('playlist:"Ping"')) end))
soft("'Ping' → 'Pong' → 'Ping'", sb.playlist.get("Ping"))

-- From a coroutine too.
local co = coroutine.wrap(function() return #sb.playlist.get("Best of each").tracks end)
assert(co() == 3)

-- Wrong arguments are Lua errors.
errors("bad argument #1 to 'songbox.smart' (string expected, got nil)", sb.smart, nil, function() end)
errors("bad argument #2 to 'songbox.smart' (string or function expected, got table)", sb.smart, "X", {})
-- A saved playlist is not replaced by a smart one.
assert(sb.playlist.save("Keep", { first }))
soft("songbox.smart: a saved playlist named 'Keep' already exists", sb.smart("Keep", function() return {} end))

print("smart functions ok")
