-- Values across the bridge, json, log, args, options, argument errors. Run by BridgeTests.swift.
local sb = require "songbox"
local function errors(expected, f, ...)
  local ok, err = pcall(f, ...)
  assert(not ok, "expected an error: " .. expected)
  assert(err == expected, "error was: " .. tostring(err))
end

-- json.encode
assert(sb.json.encode { b = 1, a = { 1, 2.5, "x", true } } == '{"a":[1,2.5,"x",true],"b":1}')
assert(sb.json.encode {} == "{}")
assert(sb.json.encode "é\n\"" == '"é\\n\\""')
assert(sb.json.encode(nil) == "null")
assert(sb.json.encode { 1, nil, 3 } == "[1,null,3]")
assert(sb.json.encode({ a = { b = 1 } }, { pretty = true }) == '{\n  "a": {\n    "b": 1\n  }\n}')
-- Soft failures: nil, message.
local cycle = {}
cycle.self = cycle
local s, err = sb.json.encode(cycle)
assert(s == nil and err == "table contains a cycle", tostring(err))
s, err = sb.json.encode { f = print }
assert(s == nil and err == "cannot convert a function value", tostring(err))
s, err = sb.json.encode { [true] = 1 }
assert(s == nil and err == "cannot convert a table with a boolean key", tostring(err))
s, err = sb.json.encode { 1, x = 2 }
assert(s == nil and err:find("both array items and string keys", 1, true), tostring(err))
s, err = sb.json.encode(0 / 0)
assert(s == nil and err:find("cannot encode", 1, true), tostring(err))
local deep = {}
for _ = 1, 200 do deep = { deep } end
s, err = sb.json.encode(deep)
assert(s == nil and err:find("deeper than 100", 1, true), tostring(err))

-- json.decode
local v = sb.json.decode '{"x": [1, 2.5, "\\u00e9\\ud83c\\udfb5"], "y": null, "z": {"t": true, "f": false}}'
assert(v.x[1] == 1 and math.type(v.x[1]) == "integer" and v.x[2] == 2.5 and v.x[3] == "é🎵")
assert(v.y == nil and v.z.t == true and v.z.f == false)
assert(sb.json.decode "[]"[1] == nil and sb.json.decode '"s"' == "s" and sb.json.decode "-12" == -12)
local value, message = sb.json.decode "{bad"
assert(value == nil and message:find("invalid JSON at byte 2", 1, true), tostring(message))
value, message = sb.json.decode "[1] 2"
assert(value == nil and message:find("after the value", 1, true), tostring(message))
assert(sb.json.decode(sb.json.encode { list = { 1, 2, 3 }, name = "x" }).list[3] == 3)

-- Lua-standard argument errors.
errors("bridge.lua:46: bad argument #1 to 'decode' (string expected, got nil)", function() sb.json.decode(nil) end)
errors("bridge.lua:47: bad argument #1 to 'decode' (string expected, got no value)", function() sb.json.decode() end)
errors("bridge.lua:48: bad argument #2 to 'encode' (table expected, got number)", function() sb.json.encode({}, 5) end)
errors("bad argument #1 to 'songbox.json.decode' (string expected, got table)", sb.json.decode, {})
assert(sb.json.decode(42) == 42, "numbers are accepted where strings are, as in Lua")

-- log: any values, joined like print.
sb.log.info("info", 1, nil, true)
sb.log.debug("debug")
sb.log.warn("warn")
sb.log.error({}) -- tostring of a table

-- args, options, dry_run
assert(#sb.args == 2 and sb.args[1] == "one" and sb.args[2] == "two")
assert(select("#", ...) == 2 and select(1, ...) == "one")
assert(sb.options.volume == 40 and sb.options.name == "x" and sb.options.list[2] == "b")
assert(sb.dry_run == false)
print("bridge ok")
return 1, "two", { 3 }
