local helper = require "helper"
assert(helper.twice(21) == 42 and helper.name == "helper" and helper.path:find("modules/helper.lua", 1, true))
assert(require "helper" == helper, "modules are loaded once")
assert(require("pkg").init == true)
local ok, err = pcall(require, "missing")
assert(not ok and err:find("module 'missing' not found", 1, true) and err:find("no file '", 1, true), err)
local broken = require "broken"
broken.fail()
