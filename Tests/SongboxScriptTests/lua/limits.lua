-- One sandbox escape per name; each must be stopped by a limit. Run by LimitTests.swift.
local which = ...
local escapes = {
  loop = function() while true do end end,
  pcall_loop = function()
    while true do pcall(function() while true do end end) end
  end,
  pcall_catch_all = function()
    for _ = 1, 1e12 do
      local ok, err = pcall(function() local x = 0 while true do x = x + 1 end end)
      assert(not ok)
    end
  end,
  xpcall_handler = function()
    xpcall(function() while true do end end, function() while true do end end)
    while true do end
  end,
  coroutine_loop = function()
    local co = coroutine.create(function() while true do end end)
    print(coroutine.resume(co))
    while true do coroutine.resume(coroutine.create(function() while true do end end)) end
  end,
  coroutine_wrap = function() coroutine.wrap(function() while true do end end)() end,
  -- A tree of coroutines, each catching its children's errors with resume and going on, making
  -- new ones and calling the bridge (issue 17, hole 1).
  coroutine_tree = function()
    local function grow()
      while true do
        for _ = 1, 4 do
          coroutine.resume(coroutine.create(grow))
          pcall(coroutine.wrap(grow))
          pcall(songbox.tick)
        end
        local x = 0
        for _ = 1, 100000 do x = x + 1 end
      end
    end
    grow()
  end,
  yield_loop = function()
    local co = coroutine.wrap(function() while true do coroutine.yield() end end)
    while true do co() end
  end,
  sort_comparator = function()
    local t = {}
    for i = 1, 100 do t[i] = i end
    table.sort(t, function(a, b) while true do end end)
  end,
  gsub_callback = function() string.gsub("abc", ".", function() while true do end end) end,
  gsub_pcall = function()
    while true do pcall(string.gsub, "abc", ".", function() while true do end end) end
  end,
  close_in_coroutine = function()
    local co = coroutine.create(function()
      local _ <close> = setmetatable({}, { __close = function() while true do end end })
      while true do end
    end)
    coroutine.resume(co)
    coroutine.close(co)
    while true do end
  end,
  close_in_wrap = function()
    local f = coroutine.wrap(function()
      local _ <close> = setmetatable({}, { __close = function() while true do end end })
      while true do end
    end)
    pcall(f)
    while true do end
  end,
  close_loop = function()
    local _ <close> = setmetatable({}, { __close = function() while true do end end })
    error("unwind")
  end,
  pattern_backtracking = function()
    local s = string.rep("a", 5000)
    return s:find(string.rep("a-", 12) .. "b")
  end,
  pattern_gmatch = function()
    for _ in string.rep("a", 5000):gmatch(string.rep("a*", 12) .. "b") do end
  end,
  plain_find = function()
    local s = string.rep("a", 4e6)
    return s:find(string.rep("a", 2e6) .. "b", 1, true)
  end,
  table_move = function() table.move({}, 1, 1e15, 1, {}) end,
  table_insert_len = function()
    local t = setmetatable({}, { __len = function() return 1e15 end })
    table.insert(t, 1, "x")
  end,
  string_rep = function() local s = string.rep("x", 1e9) end,
  string_rep_pcall = function()
    assert(not pcall(string.rep, "x", 1e9))
    local t = {}
    for i = 1, 1e9 do t[i] = i end
  end,
  table_growth = function() local t = {} for i = 1, 1e9 do t[i] = i end end,
  string_doubling = function() local s = "x" while true do s = s .. s end end,
  string_table = function() local t = {} for i = 1, 1e9 do t[i] = tostring(i) .. "xxxxxxxxxxxxxxxx" end end,
  memory_pcall = function()
    while true do pcall(function() local t = {} for i = 1, 1e9 do t[i] = i end end) end
  end,
  recursion = function() local function f() return 1 + f() end return f() end,
  pattern_gsub = function()
    return (string.rep("a", 5000) .. "\n"):rep(4):gsub(string.rep("a-", 12) .. "b", "x")
  end,
  pattern_match = function()
    while true do pcall(string.match, string.rep("a", 5000), string.rep("a*", 12) .. "b") end
  end,
  pattern_balance = function()
    local s = string.rep("(", 100000)
    while true do s:find("%b()") end
  end,
  pattern_backref = function()
    local s = string.rep("a", 100000)
    while true do s:find("(a+)%1b") end
  end,
}
escapes[which]()
