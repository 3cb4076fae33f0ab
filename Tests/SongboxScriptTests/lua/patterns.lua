-- Differential corpus for the sandbox's pattern functions (Sources/CLuaShim/luapattern.c).
-- Returns a canonical text of every result; PatternTests.swift runs it sandboxed (songbox's
-- matcher) and unsandboxed (Lua's own functions) and expects the same text.
local out, cases = {}, 0

-- Bytes outside printable ASCII as \ddd (built byte by byte, without the functions under test).
local function quote(s)
  local parts = {}
  for i = 1, #s do
    local b = string.byte(s, i)
    parts[i] = (b < 32 or b > 126 or b == 34 or b == 92) and ("\\" .. b .. ";") or string.char(b)
  end
  return '"' .. table.concat(parts) .. '"'
end

local function show(v)
  local t = type(v)
  if t == "string" then return quote(v) end
  if t == "number" then return math.type(v) .. ":" .. tostring(v) end
  return t .. ":" .. tostring(v)
end

-- The message without its "file:line: " prefix.
local function strip(message)
  message = tostring(message)
  local colon = message:find(":%d+: ")
  if colon then message = message:sub(message:find(" ", colon, true) + 1) end
  return message
end

local function record(label, ok, ...)
  cases = cases + 1
  local parts = { label, ok and "ok" or "error" }
  if not ok then
    parts[#parts + 1] = strip((...))
  else
    for i = 1, select("#", ...) do parts[#parts + 1] = show((select(i, ...))) end
  end
  out[#out + 1] = table.concat(parts, " | ")
end

local function all_matches(s, p, init)
  local list = {}
  for a, b, c in string.gmatch(s, p, init) do
    list[#list + 1] = show(a) .. "," .. show(b) .. "," .. show(c)
    if #list > 200 then break end
  end
  return table.concat(list, ";"), #list
end

local function label(name, s, p, extra)
  return name .. "(" .. show(s) .. "," .. show(p) .. (extra and ("," .. extra) or "") .. ")"
end

-- 1. A cross product: every subject with every pattern, through all four functions.
local subjects = {
  "", "a", "aaa", "hello world", "  Hello, World!  ", "The Beatles - Abbey Road (Remastered 2009)",
  "01 - Track Name.mp3", "key = value", "THE END", "a.b.c", "x(y(z)w)v", "[brackets] and %percent%",
  "שלום עולם", "Ünïcödé tëxt", "tab\tnew\nline", "abc123def456", "f(a,b) g(c) h()", "aXbXc",
  "the the quick quick fox", "\0nul\0bytes", "--dashes--", "$dollar^caret", "THE the The tHe",
}
local patterns = {
  "", "a", "^a", "a$", "^$", ".", "..", "^.-$", "%a+", "%A+", "%d+", "%D", "%l+", "%u+", "%s+", "%S+",
  "%w+", "%W+", "%p", "%P+", "%x+", "%X", "%c", "%C+", "%g+", "%G", "[aeiou]", "[^aeiou]+", "[a-z]+",
  "[%a%d]+", "[%-%]]", "[]]", "[^]]+", "[a-]", "[-a]", "[%w_]+", "a*", "a-", "a?", "a+b", "x*y",
  "(%a+)", "(%a+) (%a+)", "()", "()a()", "(a*(.)%w(%s*))", "(%a+)%s+%1", "(.)%1", "%f[%w]%w+",
  "%f[%W]", "%f[%a]", "%f[%z]", "%f[^%z]", "%b()", "%b[]", "%b%%", "^(%s*)(.-)(%s*)$", "(.-)%s*=%s*(.*)",
  "%.mp3$", "^%d%d", "%-+", "%$", "%^", "%%", "$", "^", "a$b", "[%s%p]+", "[\128-\255]+", "[א-ת]",
  "\215[\144-\170]", "(h)(e)(l)(l)(o)", "%w+()", "%z", "[%z]", "\0", "%x%x?%x?", ".-b", ".*c", "[^%s]-%s",
  "(a)(b)?", "%(", "%)", "%[", "%b\"\"", "T[Hh]E", "^(%u)(%l*)",
}
for _, s in ipairs(subjects) do
  for _, p in ipairs(patterns) do
    record(label("find", s, p), pcall(string.find, s, p))
    record(label("match", s, p), pcall(string.match, s, p))
    record(label("gmatch", s, p), pcall(all_matches, s, p))
    record(label("gsub", s, p, "<%0>"), pcall(string.gsub, s, p, "<%0>"))
  end
end

-- 2. Start positions: negative, zero, past the end.
local inits = { -100, -5, -1, 0, 1, 2, 3, 5, 11, 12, 13, 100, math.mininteger, math.maxinteger }
for _, s in ipairs({ "", "hello world", "aaa" }) do
  for _, p in ipairs({ "", "o", "^h", "l+", "()", "$", "%w*", "o w", "[ow]" }) do
    for _, init in ipairs(inits) do
      record(label("find", s, p, init), pcall(string.find, s, p, init))
      record(label("findplain", s, p, init), pcall(string.find, s, p, init, true))
      record(label("match", s, p, init), pcall(string.match, s, p, init))
      record(label("gmatch", s, p, init), pcall(all_matches, s, p, init))
    end
  end
end

-- 3. Plain find with special characters (and patterns without any, searched plainly anyway).
for _, c in ipairs({
  { "a.b.c", "." }, { "a.b.c", ".", true }, { "100%", "%", true }, { "x(y)", "(", true }, { "x(y)", "(y)", true },
  { "[a]", "[a]", true }, { "^start", "^s", true }, { "end$", "d$", true }, { "a+b", "+b", true },
  { "a-b", "-", true }, { "aaaab", "aab" }, { "abcabcabd", "abd" }, { "", "", true }, { "abc", "", true },
  { "abc", "abcd", true }, { "ab\0cd", "\0c", true }, { "ab\0cd", "\0c" }, { "שלום עולם", "עולם", true },
}) do
  record(label("find", c[1], c[2], tostring(c[3])), pcall(string.find, c[1], c[2], 1, c[3]))
end

-- 4. gsub replacements: strings with %0-%9 and %%, tables, functions, false/nil, numbers, n.
local function upper(x) return x:upper() end
local function keep_odd(x) if #x % 2 == 1 then return false end return "<" .. x .. ">" end
local function count_args(...) return tostring(select("#", ...)) end
local function give_number(x) return #x end
local map = { hello = "HI", world = false, the = 42, ["a"] = "A" }
local replacements = {
  { "r:%1-%0", "%1-%0" }, { "r:%%", "%%" }, { "r:%2%1", "%2%1" }, { "r:plain", "[x]" }, { "r:empty", "" },
  { "r:number", 7 }, { "r:float", 1.5 }, { "f:upper", upper }, { "f:keep_odd", keep_odd }, { "f:count", count_args },
  { "f:number", give_number }, { "f:nil", function() end }, { "t:map", map }, { "r:%", "%" }, { "r:%x", "%x" },
  { "r:%9", "%9" }, { "r:%3", "%3" },
}
local gsub_cases = {
  { "hello world", "(%w+)" }, { "hello world", "%w+" }, { "hello world", "(%w+) (%w+)" }, { "hello world", "" },
  { "hello world", "()" }, { "hello world", "(o)()" }, { "the cat the hat", "the" }, { "aaa", "a*" }, { "abc", "b*" },
  { "abc", "^a" }, { "abc", "^" }, { "abc", "$" }, { "שלום עולם", "[\128-\255]+" }, { "", "" }, { "", "x" },
  { "a,b,,c", "[^,]*" }, { "one two  three", "%s+" }, { "x = 1, y = 2", "(%w+)%s*=%s*(%w+)" },
}
for _, c in ipairs(gsub_cases) do
  for _, r in ipairs(replacements) do
    record(label("gsub", c[1], c[2], r[1]), pcall(string.gsub, c[1], c[2], r[2]))
  end
  for _, n in ipairs({ -1, 0, 1, 2, 100 }) do
    record(label("gsub", c[1], c[2], "n=" .. n), pcall(string.gsub, c[1], c[2], "#", n))
  end
end
record("gsub bad value", pcall(string.gsub, "abc", "%w", function() return {} end))
record("gsub bad table value", pcall(string.gsub, "abc", "%w", { a = true }))
record("gsub no replacement", pcall(string.gsub, "abc", "%w"))
record("gsub boolean replacement", pcall(string.gsub, "abc", "%w", true))
record("gsub number subject", pcall(string.gsub, 12345, "%d", "%0%0", 2))
record("gsub callback error", pcall(string.gsub, "abc", "%w", function() error("boom") end))
record("gsub float n", pcall(string.gsub, "abc", "%w", "x", 1.5))

-- 5. Malformed patterns and limits.
local malformed = {
  "%", "a%", "[a", "[", "[^", "[%", "[a-", "%f", "%fa", "%f[a", "%b", "%ba", "(", "(a", "a)", ")", "%1",
  "(a)%2", "(a%1)", "%0", "(()", "((a)", string.rep("(a)", 33), string.rep("()", 32), string.rep("a?", 300),
  string.rep("(", 40) .. string.rep(")", 40), "[%a-z]", "[]", "[^]", "x[", "(a)%1%9",
}
for _, p in ipairs(malformed) do
  local s = string.rep("a", 300)
  record(label("find", "a*300", p), pcall(string.find, s, p))
  record(label("match", "a*300", p), pcall(string.match, s, p))
  record(label("gmatch", "a*300", p), pcall(all_matches, s, p))
  record(label("gsub", "a*300", p), pcall(string.gsub, s, p, "x"))
  record(label("match", "aab", p), pcall(string.match, "aab", p))
end

-- 6. Argument errors and conversions.
record("find no args", pcall(string.find))
record("find nil pattern", pcall(string.find, "abc"))
record("find table", pcall(string.find, {}, "a"))
record("find number subject", pcall(string.find, 123456, "45"))
record("find number pattern", pcall(string.find, "a123", 23))
record("find float init", pcall(string.find, "abc", "b", 1.5))
record("find string init", pcall(string.find, "abc", "b", "2"))
record("match bad init", pcall(string.match, "abc", "b", {}))
record("gmatch no pattern", pcall(string.gmatch, "abc"))
record("method find", pcall(function() return ("hello"):find("l+") end))
record("method gsub", pcall(function() return ("hello"):gsub("l", "L") end))
record("method bad self", pcall(function() local t = setmetatable({}, { __index = string }) return t:find("x") end))

-- 7. gmatch iterators: across calls, interleaved, after the end, anchors literal.
do
  local it = ("one two three"):gmatch("%a+")
  local a, b = it(), it()
  local it2 = ("x y"):gmatch("%a")
  local c, d = it2(), it()
  record("gmatch interleaved", true, a, b, c, d, it(), it(), it2(), it2())
  record("gmatch anchor", pcall(all_matches, "^a^a", "^a"))
  record("gmatch empty", pcall(all_matches, "abc", ""))
  record("gmatch empty init", pcall(all_matches, "abc", "", 4))
  record("gmatch empty past", pcall(all_matches, "abc", "", 10))
  record("gmatch captures", pcall(all_matches, "k1=v1, k2=v2", "(%w+)=(%w+)"))
  record("gmatch positions", pcall(all_matches, "hello", "()l()"))
  local co = coroutine.wrap(function(iter) coroutine.yield(iter()) return iter() end)
  local shared = ("p q r"):gmatch("%a")
  record("gmatch coroutine", true, co(shared), shared(), co())
end
record("cases", true, cases + 1)
return table.concat(out, "\n")
