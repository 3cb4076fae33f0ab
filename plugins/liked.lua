-- Liked: every track you liked (`songbox edit ID liked=yes`, or sb.library.set(id, {liked = true})),
-- by artist, album and track number.
local sb = require "songbox"
assert(sb.smart("Liked", "liked:yes sort:artist,album,track"))
sb.log.info("smart playlist 'Liked' is ready")
