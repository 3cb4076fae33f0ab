-- The songbox table is read-only and its own per state. Run by SandboxTests.swift.
local function refuses(pattern, f, ...)
  local ok, err = pcall(f, ...)
  assert(not ok, "expected an error matching " .. pattern)
  assert(tostring(err):find(pattern, 1, true), "unexpected error: " .. tostring(err))
end

assert(type(songbox) == "table" and type(songbox.log) == "table")
refuses("songbox is read-only (cannot set 'log')", function() songbox.log = nil end)
refuses("songbox is read-only (cannot set 'x')", function() songbox.x = 1 end)
refuses("songbox.log is read-only (cannot set 'info')", function() songbox.log.info = print end)
refuses("songbox.json is read-only", function() songbox.json.encode = nil end)
refuses("songbox tables are read-only", rawset, songbox, "log", {})
refuses("songbox tables are read-only", rawset, songbox.log, "info", print)
refuses("cannot change a protected metatable", setmetatable, songbox, nil)
refuses("read-only", table.insert, songbox, 1)
assert(getmetatable(songbox) == "songbox")
assert(rawget(songbox, "log") == nil, "the proxy holds nothing itself")
assert(type(songbox.log.info) == "function")
-- pairs walks the real table.
local names = {}
for name in pairs(songbox.json) do names[#names + 1] = name end
table.sort(names)
assert(table.concat(names, ",") == "decode,encode", table.concat(names, ","))
-- No route hands out a writable table behind a proxy (issue 17, hole 5): pairs' state value is
-- the proxy itself, for songbox and for every sub-table; next and rawget see an empty proxy.
local function check(proxy, path)
  local iterator, state, first = pairs(proxy)
  assert(state == proxy and first == nil, path .. ": pairs handed out another table")
  assert(next(proxy) == nil and rawget(proxy, "x") == nil, path .. ": the proxy holds something")
  refuses("read-only", function() state.patched = true end)
  refuses("songbox tables are read-only", rawset, state, "patched", true)
  local count = 0
  for key, value in iterator, state, first do
    count = count + 1
    if type(value) == "table" and getmetatable(value) ~= nil then check(value, path .. "." .. key) end
  end
  assert(count > 0 or path == "songbox.args", path .. ": pairs walks nothing")
end
check(songbox, "songbox")
assert(require("songbox").json.encode({ 1 }) == "[1]", "the module is as it was")
-- The global can be shadowed by the script itself, not the module.
songbox = nil
assert(require("songbox").log ~= nil)
print("songbox table ok")
