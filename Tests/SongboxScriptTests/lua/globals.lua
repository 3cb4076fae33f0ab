-- Lists every name reachable from _G (tables walked recursively, through __pairs), sorted.
local seen, names = {}, {}
local function walk(prefix, t)
  if seen[t] then return end
  seen[t] = true
  for key, value in pairs(t) do
    local name = prefix .. tostring(key)
    if type(value) == "table" and key ~= "_G" and key ~= "loaded" then
      names[#names + 1] = name .. " (table)"
      walk(name .. ".", value)
    else
      names[#names + 1] = name .. " (" .. type(value) .. ")"
    end
  end
end
walk("", _G)
-- The string metatable is reachable from every string.
for key, value in pairs(getmetatable("")) do
  names[#names + 1] = "<string metatable>." .. key .. " (" .. (value == string and "string" or type(value)) .. ")"
end
table.sort(names)
return table.concat(names, "\n") .. "\n"
