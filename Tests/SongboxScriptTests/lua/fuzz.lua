-- Calls every function of the songbox module with every argument shape and hostile values,
-- each call under pcall: it must end in a Lua error or a result, never kill the process.
-- Run by RunCommandTests.everyFunctionSurvivesHostileValues through the binary, with a seed
-- (songbox.args[1]) so a failure reproduces: `songbox run --fast --output null fuzz.lua SEED`.
-- As a daemon plugin (DaemonTests.everyPluginFunctionSurvivesHostileValuesAndPaths: the seed in
-- `plugin.fuzz.seed`), every path argument gets hostile paths too (outside its folder, through
-- a link, devices, /proc): a plugin's files are fenced in, so none may be read or written. Each
-- function is called from a timer of its own there (each callback has its own budget).
local sb = require "songbox"
local daemon = sb.options and sb.options.seed ~= nil
local seed = tonumber(daemon and sb.options.seed or sb.args[1]) or 1

-- A small deterministic generator (a 31-bit LCG), the same on every machine.
local state = seed % 2147483647
local function random(n)
  state = (state * 48271) % 2147483647
  return state % n + 1
end

local cyclic = {}
cyclic.self = cyclic
local shared = {}
for _ = 1, 24 do shared = { shared, shared } end
local erroring = setmetatable({}, {
  __index = function() error("index metamethod") end,
  __tostring = function() error("tostring metamethod") end,
  __len = function() error("len metamethod") end,
})
local looping = setmetatable({}, {
  -- Loops a while, then errors: an endless one would stop the state (a documented result).
  __tostring = function() local n = 0 for _ = 1, 200000 do n = n + 1 end error("looped") end,
  __index = function() for _ = 1, 200000 do end return nil end,
})
local hostile = {
  math.mininteger, math.maxinteger, math.huge, -math.huge, 0 / 0, 1e300, -1e300, 0, -1, 1, 2 ^ 53, 0.5,
  "", ("x"):rep(1 << 20), "caf\xe9", "a\0b", "\255\254", "title:x", "(", "playlist:Nope",
  true, false, nil, {}, { 1, 2, 3 }, { a = 1 }, cyclic, shared, erroring, looping,
  print, function() error("callback error") end, coroutine.create(function() end),
  { math.mininteger, math.huge, 0 / 0 }, { id = math.mininteger }, { id = 1 / 0 }, { at = math.mininteger },
}
if daemon then
  -- A script the user runs has the user's rights, so paths are fuzzed only where they are fenced.
  for _, path in ipairs { "/etc/passwd", "../../../../../../../etc/passwd", "/dev/zero", "/proc/self/mem", "link-out",
                          "link-out/x", ".", "/", "sub/../../../x", "/tmp/fuzz-escape.m3u8" } do
    hostile[#hostile + 1] = path
  end
end
local function value() return hostile[random(#hostile)] end

-- Every function reachable from the module, by dotted name, in a stable order.
local functions = {}
local function collect(t, prefix)
  for key, v in pairs(t) do
    local name = prefix .. key
    if type(v) == "function" then functions[#functions + 1] = { name = name, fn = v }
    elseif type(v) == "table" and getmetatable(v) ~= nil then collect(v, name .. ".") end
  end
end
collect(sb, "songbox.")
table.sort(functions, function(a, b) return a.name < b.name end)

local shapes = {
  function(f) return f() end,
  function(f) return f(value()) end,
  function(f) return f(value(), value()) end,
  function(f) return f(value(), value(), value()) end,
  function(f) return f("Fuzz", value(), value()) end,
  function(f) return f({ value(), value() }) end,
  function(f) return f({ name = value(), at = value(), over = value(), to = value(), limit = value() }) end,
  function(f) return f(value(), { at = value(), replace = value(), format = value(), name = value() }) end,
}

local calls, errors = 0, 0
local function fuzz(entry)
  for _ = 1, 3 do
    for _, shape in ipairs(shapes) do
      local ok = pcall(shape, entry.fn)
      calls = calls + 1
      if not ok then errors = errors + 1 end
    end
  end
end
local function done()
  sb.player.stop()
  print(("fuzz done: %d functions, %d calls, %d errors"):format(#functions, calls, errors))
end

-- songbox.exit ends the run (called once, last); a plugin's own timers and handlers are left
-- alone there, or the fuzz would stop itself.
local skipped = { ["songbox.exit"] = true }
if daemon then
  for _, name in ipairs { "songbox.after", "songbox.every", "songbox.at", "songbox.on", "songbox.off" } do skipped[name] = true end
  local index = 0
  local function step()
    index = index + 1
    local entry = functions[index]
    if not entry then return done() end
    if not skipped[entry.name] then fuzz(entry) end
    sb.after(0, step)
  end
  sb.after(0, step)
else
  for _, entry in ipairs(functions) do
    if not skipped[entry.name] then fuzz(entry) end
  end
  done()
  print(pcall(sb.exit, math.huge))
end
