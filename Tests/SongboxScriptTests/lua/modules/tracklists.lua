-- What the Lua test scripts share about lists of tracks.
local M = {}

--- The titles of `tracks`, joined by "|": one string to compare.
function M.titles(tracks)
  local t = {}
  for i, track in ipairs(tracks) do t[i] = track.title end
  return table.concat(t, "|")
end

return M
