---@meta songbox
-- LuaCATS stubs of the songbox Lua API, for editor completion (lua-language-server).
-- Add this folder to `workspace.library`. See docs/lua-api.md.

---The songbox module: global `songbox` and `require "songbox"`. Read-only.
---@class songbox
---@field args string[] Command-line arguments of `songbox run` (empty for plugins).
---@field options table<string, any> The script's or plugin's settings.
---@field dry_run boolean True under `songbox run --dry-run`: every function that writes refuses.
---@field log songbox.log
---@field json songbox.json
songbox = {}

---Logging: arguments are converted with `tostring` and joined with spaces; each record carries
---the caller's file:line.
---@class songbox.log
songbox.log = {}

---@param ... any
function songbox.log.debug(...) end

---@param ... any
function songbox.log.info(...) end

---@param ... any
function songbox.log.warn(...) end

---Logs at error level (does not raise).
---@param ... any
function songbox.log.error(...) end

---@class songbox.json
songbox.json = {}

---@class songbox.json.encode_options
---@field pretty? boolean Indent with two spaces.

---Encodes nil, booleans, numbers, strings, arrays and string-keyed tables. Object keys are
---sorted; `{}` encodes as `{}`.
---@param value any
---@param options? songbox.json.encode_options
---@return string? json
---@return string? error Why the value could not be encoded (a cycle, a function, NaN...).
function songbox.json.encode(value, options) end

---Decodes JSON text; `null` becomes nil.
---@param text string
---@return any value
---@return string? error `invalid JSON at byte N: ...`
function songbox.json.decode(text) end

return songbox
