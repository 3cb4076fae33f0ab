-- songbox.lyrics.get, songbox.library.art and art_bytes against a library LyricsArtAPITests.swift
-- scans: "synced" (SYLT lines and an embedded PNG, 40x30), "lrc" (an .lrc beside it, and a
-- cover.jpg in its folder), "bare" (neither). The argument is the PNG's bytes.
local sb = require "songbox"
local png = select(1, ...)

local function one(title)
  local found = sb.library.query('title:="' .. title .. '"')
  assert(#found == 1, title)
  return found[1]
end
local synced, lrc, bare = one("synced"), one("lrc"), one("bare")

-- lyrics.get: a track table or an id
local l = sb.lyrics.get(synced)
assert(l.source == "synced" and l.text == "first line\nשורה שנייה", l.text)
assert(#l.lines == 2 and l.lines[1].t == 1.0 and l.lines[1].text == "first line")
assert(l.lines[2].t == 62.34 and l.lines[2].text == "שורה שנייה")
local fromFile = sb.lyrics.get(lrc.id)
assert(fromFile.source == "lrc" and #fromFile.lines == 2 and fromFile.lines[2].t == 3.9, fromFile.lines[2].t)
assert(sb.lyrics.get(bare) == nil)
assert(not pcall(sb.lyrics.get, "synced"))

-- library.art: the facts, or nil
local art = sb.library.art(synced)
assert(art.source == "embedded" and art.mime == "image/png" and art.type == 3 and art.type_name == "front cover")
assert(art.width == 40 and art.height == 30 and art.size == #png)
local cover = sb.library.art(lrc)
assert(cover.source == "file" and cover.mime == "image/jpeg" and cover.path:match("/cover%.jpg$") and cover.type == nil)
assert(sb.library.art(bare) == nil)

-- library.art_bytes: slices from a 0-based offset; "" at the end
assert(sb.library.art_bytes(synced, 0, art.size) == png)
assert(sb.library.art_bytes(synced, 10, 5) == png:sub(11, 15))
assert(sb.library.art_bytes(synced, art.size, 10) == "")
local parts = {}
for offset = 0, art.size - 1, 1000 do parts[#parts + 1] = sb.library.art_bytes(synced, offset, 1000) end
assert(table.concat(parts) == png)
local none, message = sb.library.art_bytes(bare, 0, 10)
assert(none == nil and message == "songbox.library.art_bytes: the track has no picture", message)
local past, why = sb.library.art_bytes(synced, art.size + 1, 1)
assert(past == nil and why:find("past the end", 1, true), why)
-- Numbers from a script are checked before any arithmetic.
for _, bad in ipairs({ {-1, 10}, {0, -1}, {0, 2^40}, {math.maxinteger, 1}, {0.5, 1}, {0, 0/0}, {1/0, 1} }) do
  assert(not pcall(sb.library.art_bytes, synced, bad[1], bad[2]), tostring(bad[1]) .. " " .. tostring(bad[2]))
end
print("lyrics and art ok")
