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
-- The global can be shadowed by the script itself, not the module.
songbox = nil
assert(require("songbox").log ~= nil)
print("songbox table ok")
