-- A tight arithmetic loop: the cost of the instruction-budget hook.
local n = tonumber((...)) or 50000000
local x = 0
for i = 1, n do x = x + i end
print(x)
