local M = {}
function M.fail()
  error("broken module")
end
return M
