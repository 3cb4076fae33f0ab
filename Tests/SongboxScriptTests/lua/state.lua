-- songbox.state: values kept across runs. StateTests.swift runs this file in a runtime, then in a
-- fresh one on the same database (a restart), with the phase as the first argument.
local sb = require "songbox"
local phase = ...

local function errors(expected, f, ...)
  local ok, err = pcall(f, ...)
  assert(not ok and tostring(err):find(expected, 1, true), "error was: " .. tostring(err))
end

if phase == "first" then
  assert(sb.state.get("runs") == nil)
  assert(sb.state.set("runs", 1) == true)
  assert(sb.state.set("snooze", { minutes = 9, days = { "mon", "tue" }, last = "2026-11-22T07:00:00Z", on = true }))
  assert(sb.state.set("אזעקה", "בוקר"))
  assert(sb.state.set("gone", 3.5))
  assert(sb.state.set("gone", nil))               -- nil removes
  assert(sb.state.get("runs") == 1 and math.type(sb.state.get("runs")) == "integer")
  -- Wrong arguments and values that cannot be kept: Lua errors.
  errors("bad argument #1 to 'songbox.state.set' (string expected, got no value)", sb.state.set)
  errors("bad argument #1 to 'songbox.state.get' (a key cannot be empty)", sb.state.get, "")
  errors("bad argument #2 to 'songbox.state.set'", sb.state.set, "f", function() end)
  errors("value too large to keep", sb.state.set, "big", string.rep("x", 2 * 1024 * 1024))
  print("first ok")
else
  local runs = sb.state.get("runs")
  assert(runs == 1, tostring(runs))
  assert(sb.state.set("runs", runs + 1))
  local snooze = sb.state.get("snooze")
  assert(snooze.minutes == 9 and snooze.days[2] == "tue" and snooze.on == true and snooze.last == "2026-11-22T07:00:00Z")
  assert(sb.state.get("אזעקה") == "בוקר")
  assert(sb.state.get("gone") == nil)
  local keys = table.concat(sb.state.keys(), ",")
  assert(keys == "runs,snooze,אזעקה", keys)
  print("second ok")
end
