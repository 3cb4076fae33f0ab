-- Changes everything it can reach; isolation_b.lua, in another state, must see none of it.
getmetatable("").__index = function() return "hacked" end
getmetatable("").__add = function() return "hacked" end
string.upper = function() return "hacked" end
print = function() end
tostring = nil
pairs = nil
_G.shared = "leaked"
math.pi = 3
assert(("x").anything == "hacked")
