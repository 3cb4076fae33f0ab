-- Autoplay: when the user's queue runs low, keeps a few tracks ahead in the queue's autoplay
-- lane (which always plays after what the user adds), so the music goes on. See docs/autoplay.md.
--
-- Where the tracks come from, first that gives something wins:
--   1. providers: every smart playlist named "autoplay: NAME", which a plugin of yours defines
--      with `songbox.autoplay.provide(function(ctx) ... end)` (a rule in Lua, answered by your
--      plugin's own state);
--   2. plugin.autoplay.playlist: a playlist or smart playlist, by name;
--   3. plugin.autoplay.query: a query;
--   4. tracks similar to the playing one, when this songbox has `songbox.similar`;
--   5. random tracks from the whole library (what a provider that fails or gives nothing falls
--      back to; the log says so).
-- Rules on top: no track again within the last `window` plays, no artist within `artist_cooldown`
-- tracks, no album within `album_cooldown`, liked tracks favoured, tracks rated `avoid_rating` or
-- lower left out, and each skip counting against a track.
--
-- The switch: plugin.autoplay.enabled in the config is the default; `songbox autoplay on|off`,
-- `mpc sendmessage autoplay on|off|toggle` and `songbox.autoplay.set(on)` switch it and it stays
-- switched (songbox.state). It keeps quiet while an alarm sounds, in highlights mode, with
-- repeat on (the queue never runs out then) and while the sleep timer waits for the queue's end.
--
-- `songbox run --fast --output null plugins/autoplay.lua preview QUERY [COUNT]`: replaces the queue with what QUERY
-- finds, plays, and prints the first COUNT tracks that start (default 10) with their lane.
local sb = require "songbox"
local options = sb.options

-- The settings, each with its kind and bounds: the config's plugin.autoplay.KEY is checked
-- against them, and so is a change from the web app's Plugins page (`autoplayset KEY VALUE`,
-- which reads this list where the plugin publishes it and keeps the change in songbox.state:
-- it comes before the config's). A value that does not fit is said and the one before used.
local schema = {
  { key = "ahead", kind = "whole", default = 3, low = 1, high = 50 },
  { key = "keep_played", kind = "whole", default = 10, low = 0, high = 1000 },
  { key = "window", kind = "whole", default = 50, low = 0, high = 10000 },
  { key = "artist_cooldown", kind = "whole", default = 3, low = 0, high = 100 },
  { key = "album_cooldown", kind = "whole", default = 5, low = 0, high = 100 },
  { key = "avoid_rating", kind = "whole", default = 2, low = 0, high = 5 },
  { key = "liked_weight", kind = "whole", default = 4, low = 1, high = 100 },
  { key = "skip_weight", kind = "whole", default = 2, low = 0, high = 100 },
  { key = "playlist", kind = "text" },
  { key = "query", kind = "text" },
  { key = "similar", kind = "flag", default = true },
}

-- `value` as `setting` takes it, or nil and why not (an empty text is none).
local function check(setting, value)
  if setting.kind == "whole" then
    if math.type(value) ~= "integer" or value < setting.low or value > setting.high then
      return nil, ("plugin.autoplay.%s must be a whole number from %d to %d, got %s"):format(setting.key, setting.low, setting.high, tostring(value))
    end
  elseif setting.kind == "flag" then
    if type(value) ~= "boolean" then
      return nil, ("plugin.autoplay.%s must be true or false, got %s"):format(setting.key, tostring(value))
    end
  elseif value == "" then
    return nil
  elseif type(value) ~= "string" then
    return tostring(value)
  end
  return value
end

local settings = {}
-- Reads the settings (the default, then the config's, then the page's) and publishes them with
-- their kinds, bounds and the config's values, where `autoplaysettings` and `autoplayset` read
-- them (the page's changes they read where they keep them).
local function read_settings()
  local ok, changed = pcall(sb.state.get, "changed")
  if not ok or type(changed) ~= "table" then changed = {} end
  local published = {}
  for _, setting in ipairs(schema) do
    local value, configured = setting.default, nil
    for _, source in ipairs { { given = options[setting.key], config = true }, { given = changed[setting.key] } } do
      if source.given ~= nil then
        local checked, why = check(setting, source.given)
        if why then
          sb.log.warn(("autoplay: %s; using %s"):format(why, tostring(value)))
        else
          value = checked
          if source.config then configured = checked end
        end
      end
    end
    settings[setting.key] = value
    published[#published + 1] = { key = setting.key, kind = setting.kind, default = setting.default, low = setting.low,
                                  high = setting.high, config = configured }
  end
  pcall(sb.state.set, "settings", published)
end
read_settings()

local function flag(key, default)
  local value = options[key]
  if value == nil then return default end
  if type(value) ~= "boolean" then
    sb.log.warn(("autoplay: plugin.autoplay.%s must be true or false, got %s; using %s"):format(key, tostring(value), tostring(default)))
    return default
  end
  return value
end

local mode = ...           -- "preview" under `songbox run ... autoplay.lua preview QUERY [COUNT]`
local preview = mode == "preview"

-- The switch: what was last switched (kept in songbox.state), else the config's default.
local function kept_switch()
  local ok, value = pcall(sb.state.get, "enabled")
  if ok and type(value) == "boolean" then return value end
  return nil
end
local enabled = preview or kept_switch()
if enabled == nil then enabled = flag("enabled", false) end

local alarm = nil          -- the name of the alarm sounding, while one does
local last_status, last_text = nil, nil

-- Why autoplay does nothing now, or nil when it may fill the queue.
local function quiet(status)
  if not enabled then return "switched off" end
  if alarm then return "alarm " .. alarm .. " is sounding" end
  if status.highlights then return "highlights mode" end
  if status["repeat"] then return "repeat is on" end
  if status.sleep == "queue" then return "the sleep timer waits for the end of the queue" end
  if (status.heading or status.state) ~= "playing" then return "nothing plays" end
  return nil
end

-- What `songbox autoplay status` and `songbox.autoplay.status()` read, kept when it changes:
-- the switch, why it is quiet, the provider it last took tracks from, and (while it asks the
-- providers) the playing track and how many it wants, which a provider in another plugin reads.
local function publish(status, fields)
  local now = {}
  for k, v in pairs(last_status or {}) do now[k] = v end
  now.enabled, now.ahead, now.quiet = enabled, settings.ahead, status and quiet(status) or nil
  for k, v in pairs(fields or {}) do now[k] = v end
  local text = sb.json.encode(now)
  if text == last_text then return end
  last_status, last_text = now, text
  pcall(sb.state.set, "status", now)
end

-- MARK: choosing

local function key(value)
  if type(value) ~= "string" or value == "" then return nil end
  return value:lower()
end

-- What played and what is queued, oldest first: the ground for the rules.
local function context()
  local status = sb.player.status()
  local items = sb.queue.list() or {}
  local recent = sb.history.recent { limit = math.max(settings.window, settings.artist_cooldown, settings.album_cooldown, 1) } or {}
  local seen, sequence = {}, {}
  for i = #recent, 1, -1 do
    local entry = recent[i]
    local track = entry.track or {}
    sequence[#sequence + 1] = { id = entry.track_id, artist = key(track.artist or entry.artist), album = key(track.album) }
  end
  for i = 1, math.min(#recent, settings.window) do seen[recent[i].track_id] = true end
  -- The playing track and what follows it: never chosen again while they wait (what played
  -- before them is the history's, above).
  local current, taken = status.position or 0, {}
  for _, item in ipairs(items) do
    if item.position >= current then
      taken[item.id] = true
      sequence[#sequence + 1] = { id = item.id, artist = key(item.artist), album = key(item.album) }
    end
  end
  return { status = status, seen = seen, taken = taken, sequence = sequence }
end

local function weight(track)
  local w = 1
  if track.liked then w = w * settings.liked_weight end
  if track.rating and track.rating > 3 then w = w * (1 + (track.rating - 3) / 2) end
  local plays, skips = track.plays or 0, track.skips or 0
  return w * (plays + 1) / (plays + 1 + settings.skip_weight * skips)
end

local function disliked(track)
  return track.rating ~= nil and track.rating <= settings.avoid_rating
end

-- Whether `track` keeps the cooldowns after `sequence` (the last `n` entries of it).
local function cooled(track, sequence, field, n)
  local value = key(track[field])
  if not value or n == 0 then return true end
  for i = #sequence, math.max(1, #sequence - n + 1), -1 do
    if sequence[i][field] == value then return false end
  end
  return true
end

-- Picks up to `count` tracks of `candidates` by weight under the rules; the cooldowns are eased
-- (album first, then artist) before giving up, and with `last_resort` the repeat window too.
local function pick(candidates, count, ctx, last_resort)
  local picked = {}
  local levels = { { album = true, artist = true, window = true }, { artist = true, window = true }, { window = true } }
  if last_resort then levels[#levels + 1] = {} end
  while #picked < count do
    local chosen
    for _, rules in ipairs(levels) do
      local pool, total = {}, 0
      for _, track in ipairs(candidates) do
        if type(track) == "table" and track.id and not ctx.taken[track.id] and not disliked(track)
           and not (rules.window and ctx.seen[track.id])
           and not (rules.artist and not cooled(track, ctx.sequence, "artist", settings.artist_cooldown))
           and not (rules.album and not cooled(track, ctx.sequence, "album", settings.album_cooldown)) then
          local w = weight(track)
          pool[#pool + 1], total = { track = track, upto = total + w }, total + w
        end
      end
      if #pool > 0 then
        local r = math.random() * total
        chosen = pool[#pool].track
        for _, entry in ipairs(pool) do
          if r < entry.upto then chosen = entry.track; break end
        end
        if rules ~= levels[1] then sb.log.debug("autoplay: rules eased to find a track") end
        break
      end
    end
    if not chosen then break end
    picked[#picked + 1] = chosen
    ctx.taken[chosen.id] = true
    ctx.sequence[#ctx.sequence + 1] = { id = chosen.id, artist = key(chosen.artist), album = key(chosen.album) }
  end
  return picked
end

-- MARK: providers: each gives a list of tracks, or nil and why

local function from_playlist(name)
  local list, message = sb.playlist.get(name)
  if not list then return nil, message end
  return list.tracks
end

local function providers(ctx)
  local list = {}
  for _, playlist in ipairs(sb.autoplay.providers() or {}) do
    list[#list + 1] = { name = "provider '" .. playlist:sub(11) .. "'", get = function() return from_playlist(playlist) end }
  end
  if settings.playlist then
    list[#list + 1] = { name = "playlist '" .. settings.playlist .. "'", get = function() return from_playlist(settings.playlist) end }
  end
  if settings.query then
    list[#list + 1] = { name = "query '" .. settings.query .. "'", get = function() return sb.library.query(settings.query) end }
  end
  local similar = sb.similar
  if settings.similar and similar and ctx.status.track then
    -- Nothing until `songbox analyze` has measured the playing track: that is no failure.
    list[#list + 1] = { name = "similar", quiet = true, get = function() return similar(ctx.status.track, 100) or {} end }
  end
  return list
end

local function random_tracks()
  return sb.library.find { random = true, limit = 500 } or {}
end

-- Tops the queue up to `ahead` tracks after the playing one; what was added.
local function fill()
  local status = sb.player.status()
  local why = quiet(status)
  publish(status)
  if why then return 0 end
  local ahead = (status.queue_length or 0) - (status.position or 0)
  local want = settings.ahead - ahead
  if want <= 0 then return 0 end
  local ctx = context()
  publish(status, { track_id = status.track and status.track.id, want = want })
  local picked, used, failures = {}, nil, {}
  for _, provider in ipairs(providers(ctx)) do
    local ok, tracks, message = pcall(provider.get)
    if not ok or tracks == nil then
      local reason = tostring(ok and message or tracks)
      failures[#failures + 1] = provider.name .. " failed: " .. reason
      sb.log.warn(("autoplay: %s failed: %s"):format(provider.name, reason))
    elseif type(tracks) ~= "table" then
      failures[#failures + 1] = provider.name .. " gave " .. type(tracks)
      sb.log.warn(("autoplay: %s gave %s, not a list of tracks"):format(provider.name, type(tracks)))
    else
      picked = pick(tracks, want, ctx, false)
      if #picked > 0 then used = provider.name; break end
      if not provider.quiet then failures[#failures + 1] = provider.name .. " gave nothing to play" end
    end
  end
  if #picked == 0 then
    if #failures > 0 then
      sb.log.info("autoplay: falling back to random tracks (" .. table.concat(failures, "; ") .. ")")
    end
    picked = pick(random_tracks(), want, ctx, true)
    used = "random"
  end
  if #picked == 0 then
    sb.log.warn("autoplay: nothing in the library to play")
    return 0
  end
  local added, message = sb.queue.add(picked, { lane = "autoplay" })
  if not added then sb.log.warn("autoplay: " .. tostring(message)); return 0 end
  sb.log.debug(("autoplay: %d from %s"):format(#added, used))
  publish(status, { provider = used })
  return #added
end

-- From an event: a failure is logged, and the next event tries again.
local function safe_fill()
  local ok, message = pcall(fill)
  if not ok then sb.log.error("autoplay: " .. tostring(message)) end
end

-- The autoplay tracks that have not started: gone when autoplay is switched off.
local function withdraw()
  local status = sb.player.status()
  local current = status.position or 0
  local ids = {}
  for _, item in ipairs(sb.queue.list() or {}) do
    if item.lane == "autoplay" and item.position > current then ids[#ids + 1] = item.queue_id end
  end
  if #ids > 0 then sb.queue.remove(ids) end
  return #ids
end

-- Autoplay's own tracks that played long ago leave the queue: a box that plays for weeks keeps
-- the `keep_played` latest behind the playing one, not every track since it started. The
-- user's tracks stay where they are.
local function trim()
  local current = sb.player.status().position
  if not current then return 0 end
  local behind = {}
  for _, item in ipairs(sb.queue.list() or {}) do
    if item.position >= current then break end
    if item.lane == "autoplay" then behind[#behind + 1] = item.queue_id end
  end
  local extra = #behind - settings.keep_played
  if extra <= 0 then return 0 end
  local ids = table.move(behind, 1, extra, 1, {})
  sb.queue.remove(ids)
  return extra
end

local function switch(on, how)
  enabled = on
  if not preview then pcall(sb.state.set, "enabled", on) end
  -- Said last: once the log has it, the status is kept.
  if on then
    safe_fill()
    sb.log.info("autoplay: on (" .. how .. ")")
  else
    local removed = withdraw()
    publish(sb.player.status())
    sb.log.info(("autoplay: off (%s)%s"):format(how, removed > 0 and (", " .. removed .. " queued tracks taken back") or ""))
  end
end

-- MARK: events

sb.on("track_started", function()
  local ok, message = pcall(trim)
  if not ok then sb.log.error("autoplay: " .. tostring(message)) end
  safe_fill()
end)
sb.on("queue_changed", safe_fill)
sb.on("options_changed", safe_fill)
sb.on("resumed", safe_fill)
sb.on("startup", safe_fill)

sb.on("alarm", function(event)
  if event.phase == "sounding" or event.phase == "snoozed" then
    if not alarm then sb.log.info("autoplay: quiet while alarm " .. tostring(event.name) .. " sounds") end
    alarm = tostring(event.name)
    publish(sb.player.status())
  elseif event.phase == "dismissed" or event.phase == "timeout" then
    if alarm then sb.log.info("autoplay: alarm " .. alarm .. " is over") end
    alarm = nil
    safe_fill()
  end
end)

sb.subscribe("autoplay")
sb.on("message", function(event)
  if event.channel ~= "autoplay" then return end
  local word = event.text
  if word == "on" then switch(true, "message")
  elseif word == "off" then switch(false, "message")
  elseif word == "toggle" then switch(not enabled, "message")
  elseif word == "settings" then
    -- Changed in the web app's Plugins page (`autoplayset`): read again, and acted on.
    read_settings()
    publish(sb.player.status())
    safe_fill()
  elseif word == "status" then
    local why = quiet(sb.player.status())
    sb.log.info(("autoplay: %s, %d ahead%s"):format(enabled and "on" or "off", settings.ahead, why and enabled and ("; quiet: " .. why) or ""))
  else
    sb.log.warn(("autoplay: unknown message '%s' (on, off, toggle, status, settings)"):format(word))
  end
end)

if preview then
  local query, count = select(2, ...)
  count = math.tointeger(tonumber(count or "10"))
  if not query or not count or count < 1 then
    print("usage: autoplay.lua preview QUERY [COUNT]")
    sb.exit(2)
    return
  end
  local lanes = {}
  local started = 0
  sb.on("track_started", function(event)
    -- The queue after autoplay's trim and fill: its length and the user's tracks in it.
    local queue, users = sb.queue.list() or {}, 0
    for _, item in ipairs(queue) do
      lanes[item.queue_id] = item.lane
      if item.lane == "user" then users = users + 1 end
    end
    local track = event.track or {}
    started = started + 1
    print(("%s\t%s\t%s\t%s\t%d\t%d"):format(lanes[track.queue_id] or "?", (track.path or "?"):match("[^/]*$"),
      track.artist or "", track.album or "", #queue, users))
    if started >= count then sb.player.stop(); sb.exit(0) end
  end)
  local tracks, message = sb.library.query(query)
  if not tracks then print(message); sb.exit(2); return end
  sb.queue.clear()
  if #tracks > 0 then sb.queue.add(tracks) end
  sb.player.play()
end
