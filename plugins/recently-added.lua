-- Recently added: what entered the library in the last 30 days, newest first.
local sb = require "songbox"
assert(sb.smart("Recently added", "added:-30d.. sort:-added"))
sb.log.info("smart playlist 'Recently added' is ready")
