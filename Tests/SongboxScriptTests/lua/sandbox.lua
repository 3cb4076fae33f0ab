-- The sandbox: what is absent, what refuses, what stays. Run by SandboxTests.swift.
local function refuses(pattern, f, ...)
  local ok, err = pcall(f, ...)
  assert(not ok, "expected an error matching " .. pattern)
  assert(tostring(err):find(pattern, 1, true), "unexpected error: " .. tostring(err))
end

-- Absent.
for _, name in ipairs { "io", "debug", "package", "dofile", "loadfile", "warn", "module", "unpack" } do
  assert(_G[name] == nil, name .. " should be absent")
end
for _, name in ipairs { "execute", "exit", "getenv", "remove", "rename", "tmpname", "setlocale" } do
  assert(os[name] == nil, "os." .. name .. " should be absent")
end
assert(string.dump == nil and ("").dump == nil, "string.dump should be absent")
assert(type(os.time()) == "number" and type(os.clock()) == "number" and os.date("%Y", 0) == "1970")
assert(os.difftime(10, 4) == 6)

-- Bytecode, in every load mode: a binary chunk is refused whatever the mode says.
local binary = "\27LuaT\0\25\147\13\10\26\10\4\8\8xV\0\0\0\0\0\0\0\0\0\0\0(w@"
for _, mode in ipairs { "b", "bt", "t" } do
  local f, err = load(binary, "=bytes", mode)
  assert(f == nil and err:find("attempt to load a binary chunk", 1, true), mode .. ": " .. tostring(err))
end
local f, err = load(binary)
assert(f == nil and err:find("binary chunk", 1, true), "nil mode: " .. tostring(err))
local pieces = { "\27Lua", "T\0" }
f, err = load(function() return table.remove(pieces, 1) end, "=reader", "b")
assert(f == nil and err:find("binary chunk", 1, true), "reader: " .. tostring(err))
assert(load("return 1 + 1", "=text", "b")() == 2, "text loads even when 'b' is asked for")
local env = { x = 5 }
assert(load("return x", "=env", "t", env)() == 5, "load keeps its env argument")

-- The collector cannot be stopped or forced.
assert(type(collectgarbage("count")) == "number")
for _, option in ipairs { "collect", "stop", "restart", "step", "incremental", "generational", "isrunning" } do
  refuses("not allowed in the sandbox", collectgarbage, option)
end
refuses("not allowed in the sandbox", collectgarbage)

-- No finalizers.
refuses("__gc metamethods are not allowed", setmetatable, {}, { __gc = function() while true do end end })
refuses("__gc metamethods are not allowed", setmetatable, {}, { __gc = true })
local mt = {}
local object = setmetatable({}, mt)
mt.__gc = function() while true do end end  -- too late: the object was not marked for finalization
assert(getmetatable(object) == mt)

-- require: Lua modules from the configured folders only.
refuses("not found", require, "io")
refuses("not found", require, "debug")
refuses("not a valid module name", require, "../etc/passwd")
refuses("not a valid module name", require, "/etc/passwd")
assert(require "songbox" == songbox)
assert(require "string" == string)

-- C-level loops that run no Lua instructions.
assert(string.rep("", 1e18) == "", "empty rep returns at once")
assert(string.rep("ab", 3, ",") == "ab,ab,ab")

-- Wrapped functions behave as Lua's until a limit stops the script.
assert(select(2, xpcall(error, function(m) return "handled " .. m end, "x")) == "handled x")
local ok, err = pcall(coroutine.wrap(function() error("inner") end))
assert(not ok and err:find("sandbox.lua:%d+: inner"), err)
local gen = coroutine.wrap(function() for i = 1, 3 do coroutine.yield(i) end end)
assert(gen() == 1 and gen() == 2 and gen() == 3)
local closed = false
local co = coroutine.create(function()
  local _ <close> = setmetatable({}, { __close = function() closed = true end })
  coroutine.yield()
end)
coroutine.resume(co)
assert(coroutine.close(co) and closed)
local t = { 3, 1, 2 }
table.insert(t, 4); table.insert(t, 1, 0)
assert(table.concat(t, ",") == "0,3,1,2,4" and table.remove(t, 1) == 0 and table.remove(t) == 4)
assert(table.concat(table.move({ 1, 2, 3 }, 1, 3, 2, {}), ",", 2, 4) == "1,2,3")

-- Pattern matching (songbox's budget-charging copy of Lua's) behaves as Lua's.
assert(("hello world"):find("o w") == 5 and select(2, ("hello world"):find("wor", 1, true)) == 9)
assert(("key = value"):match("^(%w+)%s*=%s*(%w+)$") == "key")
assert(select(2, ("a,b,,c"):gsub(",", ";")) == 3 and ("abc"):gsub("%w", "%0%0") == "aabbcc")
local words = {}
for w in ("one two  three"):gmatch("%a+") do words[#words + 1] = w end
assert(table.concat(words, "|") == "one|two|three")
assert(("THE (quick) fox"):find("%((%a+)%)") == 5 and ("x"):rep(3, "-") == "x-x-x")
assert(not pcall(string.find, "x", "[a"), "malformed patterns still raise")

print("sandbox ok")
