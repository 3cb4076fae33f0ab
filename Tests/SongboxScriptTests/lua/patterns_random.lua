-- Random patterns (from atoms: classes, sets, %b, %f, anchors, captures, back-references,
-- quantifiers, malformed pieces, Hebrew bytes, NUL) over random subjects, through find, match,
-- gsub (string and function replacements) and gmatch. PatternTests runs it with the same seed in
-- the sandbox (songbox's matcher) and without (Lua's), and expects the same text. Arguments:
-- seed, cases. Bytes >= 128 and NUL are written as \xNNN so lines compare as text.
local seed, n = ...
seed, n = tonumber(seed), tonumber(n)
math.randomseed(seed)
local atoms = {"a","b","%a","%d","%s","%w",".","[ab]","[^a]","[%a-]","%b()","%f[%w]","(",")","()","%1","^","$","*","+","-","?","%","[","]","x","%%","%.","[a-c]","[]]","[^]]","%z","א","\0"}
local chars = {"a","b","c","(",")","1","2"," ","x","-","[","]","%","א","\0","ab","aaa"}
local function rnd(t, k) local s = {} for i = 1, math.random(0, k) do s[#s+1] = t[math.random(#t)] end return table.concat(s) end
local out = {}
local function esc(v) local s = tostring(v) local r = {} for i = 1, #s do local b = s:byte(i) r[i] = (b >= 128 or b == 0) and ("\\x" .. b) or string.char(b) end return table.concat(r) end
local function rec(...) local t = table.pack(...) for i = 1, t.n do t[i] = esc(t[i]) end out[#out+1] = table.concat(t, ",") end
for i = 1, n do
  local s, p = rnd(chars, 12), rnd(atoms, 6)
  local init = math.random(-15, 15)
  local ok, a, b, c, d = pcall(string.find, s, p, init)
  rec(i, "find", ok, ok and a or tostring(a):gsub("^.-:%d+: ", ""), b, c, d)
  ok, a, b, c = pcall(string.match, s, p, init)
  rec(i, "match", ok, ok and a or tostring(a):gsub("^.-:%d+: ", ""), b, c)
  ok, a, b = pcall(string.gsub, s, p, rnd({"%0","%1","x","%%","%2","y"}, 3), math.random(-1, 3))
  rec(i, "gsub", ok, ok and a or tostring(a):gsub("^.-:%d+: ", ""), b)
  ok, a = pcall(function() local r = {} local k = 0 for x, y in string.gmatch(s, p) do k = k + 1 r[#r+1] = tostring(x) .. "/" .. tostring(y) if k > 50 then break end end return table.concat(r, ";") end)
  rec(i, "gmatch", ok, ok and a or tostring(a):gsub("^.-:%d+: ", ""))
  ok, a, b = pcall(string.gsub, s, p, function(x) return #x > 1 and x:upper() or nil end)
  rec(i, "gsubf", ok, ok and a or tostring(a):gsub("^.-:%d+: ", ""), b)
end
return table.concat(out, "\n")
