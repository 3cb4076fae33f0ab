-- Scrobbling: tells ListenBrainz and/or Last.fm what was played, by songbox's own rule (each
-- `track_ended` the player counted as a play). See docs/scrobbling.md.
--
-- Off until configured:
--   plugin.scrobble.listenbrainz_token = TOKEN        (https://listenbrainz.org/settings/)
--   plugin.scrobble.lastfm_key = KEY                   (https://www.last.fm/api/account/create)
--   plugin.scrobble.lastfm_secret = SECRET             then: songbox scrobble login lastfm
--   net.scrobble = api.listenbrainz.org, ws.audioscrobbler.com   (the hosts it may reach)
--
-- Offline-first: a listen is written to songbox.state (the library database) before anything is
-- sent, and each service keeps a cursor, the last listen it took, moved only after the service
-- said yes. So a listen survives a restart, a kill -9 and weeks offline; the queue is sent in
-- order when the network is back, with a pause that doubles after each failure (from
-- `retry_seconds`, at most `retry_max_seconds`, an hour). What waited goes to ListenBrainz as
-- `import`.
local sb = require "songbox"
local options = sb.options
local state = sb.state
local http = sb.http  -- nil unless the config grants this plugin hosts (net.scrobble)

local function text(key)
  local value = options[key]
  if value == nil or value == "" then return nil end
  if math.type(value) == "integer" then return ("%d"):format(value) end
  return tostring(value)
end

local function number(key, default, low, high)
  local value = options[key]
  if value == nil then return default end
  if type(value) ~= "number" or value < low or value > high then
    sb.log.warn(("scrobble: plugin.scrobble.%s must be a number from %s to %s; using %s"):format(key, low, high, default))
    return default
  end
  return value
end

local settings = {
  lb_token = text("listenbrainz_token"),
  lb_url = (text("listenbrainz_url") or "https://api.listenbrainz.org"):gsub("/+$", ""),
  lastfm_key = text("lastfm_key"),
  lastfm_secret = text("lastfm_secret"),
  lastfm_url = text("lastfm_url") or "https://ws.audioscrobbler.com/2.0/",
  now_playing = options.now_playing ~= false,
  retry = number("retry_seconds", 30, 0.01, 3600),
  retry_max = number("retry_max_seconds", 3600, 0.01, 86400),
  -- A listen older than this when it is sent goes to ListenBrainz as an import.
  import_after = number("import_after", 600, 0, 31622400),
  timeout = number("timeout", 15, 1, 60),
}

-- The services configured, in the order they are sent to.
local services = {}
if settings.lb_token then services[#services + 1] = "listenbrainz" end
if settings.lastfm_key and settings.lastfm_secret then services[#services + 1] = "lastfm" end
if #services == 0 then return end  -- off: nothing is queued, nothing is sent

if not http then
  sb.log.warn("scrobble: listens are kept, but the config grants this plugin no hosts to send them to: add "
    .. "net.scrobble = api.listenbrainz.org, ws.audioscrobbler.com (see docs/scrobbling.md)")
end

-- The queue in songbox.state: `seq` (the next listen's number), `listen:NNNNNNNNNNNN` (one a
-- listen), `sent:SERVICE` (the last number that service took).
local function listen_key(n) return ("listen:%012d"):format(n) end

local function must(ok, message)
  if not ok then error("scrobble: cannot keep the queue: " .. tostring(message), 2) end
  return ok
end

-- The next number (`seq`, or past the newest listen kept: a kill between writing a listen and
-- `seq` loses no number) and the oldest listen kept.
local function numbers()
  local seq = state.get("seq") or 1
  local low
  for _, key in ipairs(state.keys()) do
    local n = tonumber(key:match("^listen:(%d+)$"))
    if n and n >= seq then seq = n + 1 end
    if n and (not low or n < low) then low = n end
  end
  return seq, low or seq
end

local seq, low = numbers()

local function cursor(service)
  local sent = state.get("sent:" .. service)
  if sent == nil then
    -- A service configured now starts with the listens from now on.
    sent = seq - 1
    must(state.set("sent:" .. service, sent))
  end
  return sent
end
for _, service in ipairs(services) do cursor(service) end

-- The listens after `after`, oldest first, at most `limit`.
local function pending(after, limit)
  local list = {}
  for n = after + 1, seq - 1 do
    local listen = state.get(listen_key(n))
    if listen then
      list[#list + 1] = listen
      if #list >= limit then break end
    end
  end
  return list
end

-- Removes the listens every service has taken.
local function forget_sent()
  local oldest = math.huge
  for _, service in ipairs(services) do oldest = math.min(oldest, cursor(service)) end
  for n = low, oldest do state.set(listen_key(n), nil) end
  if oldest >= low then low = oldest + 1 end
end

-- Form encoding (RFC 3986 unreserved characters kept).
local function escape(value)
  return (tostring(value):gsub("[^%w%-%._~]", function(c) return ("%%%02X"):format(c:byte()) end))
end

-- A Last.fm request's parameters, signed: api_sig = md5(the parameters sorted by name, each
-- name then value, then the secret); `format` is not signed.
local function signed(params)
  params.api_key = settings.lastfm_key
  local names = {}
  for name in pairs(params) do names[#names + 1] = name end
  table.sort(names)
  local parts, body = {}, {}
  for _, name in ipairs(names) do
    parts[#parts + 1] = name .. params[name]
    body[#body + 1] = escape(name) .. "=" .. escape(params[name])
  end
  body[#body + 1] = "api_sig=" .. sb.hash.md5(table.concat(parts) .. settings.lastfm_secret)
  body[#body + 1] = "format=json"
  return table.concat(body, "&")
end

-- What a service's answer means: "ok", "retry" (later, the listens kept) or "rejected" (the
-- service will never take these: logged, and passed).
local function lastfm_call(params, timeout)
  local response, err = http.request {
    method = "POST", url = settings.lastfm_url, timeout = timeout or settings.timeout,
    headers = { ["Content-Type"] = "application/x-www-form-urlencoded" }, body = signed(params),
  }
  if not response then return "retry", err end
  local answer = sb.json.decode(response.body)
  local code = type(answer) == "table" and answer.error
  if response.ok and not code then return "ok", answer end
  local message = ("Last.fm answered %d%s"):format(response.status,
    code and (": error " .. tostring(code) .. " " .. tostring(answer.message)) or "")
  -- 9 session, 10 key, 26 suspended key: the user's to fix; 8, 11, 16, 29: try again later.
  if not code or code == 8 or code == 9 or code == 10 or code == 11 or code == 16 or code == 26 or code == 29
      or response.status >= 500 then
    return "retry", message
  end
  return "rejected", message
end

local function listenbrainz_call(path, document, timeout)
  local response, err = http.request {
    method = "POST", url = settings.lb_url .. path, timeout = timeout or settings.timeout,
    headers = { ["Authorization"] = "Token " .. settings.lb_token, ["Content-Type"] = "application/json" },
    body = assert(sb.json.encode(document)),
  }
  if not response then return "retry", err end
  if response.ok then return "ok" end
  local message = ("ListenBrainz answered %d: %s"):format(response.status, response.body:sub(1, 200))
  if response.status == 400 then return "rejected", message end
  return "retry", message
end

local function track_metadata(listen)
  local info = { media_player = "songbox", submission_client = "songbox" }
  local any = false
  local function put(name, value) if value ~= nil and value ~= "" then info[name] = value; any = true end end
  put("recording_mbid", listen.mb_trackid)
  put("release_mbid", listen.mb_albumid)
  put("release_group_mbid", listen.mb_releasegroupid)
  if listen.mb_artistid then put("artist_mbids", { listen.mb_artistid }) end
  put("tracknumber", listen.number)
  put("isrc", listen.isrc)
  if listen.duration then put("duration_ms", math.floor(listen.duration * 1000)) end
  local metadata = { artist_name = listen.artist, track_name = listen.title, release_name = listen.album }
  if any then metadata.additional_info = info end
  return metadata
end

local send = {}

function send.listenbrainz(batch)
  local payload = {}
  for i, listen in ipairs(batch) do payload[i] = { listened_at = listen.listened_at, track_metadata = track_metadata(listen) } end
  local fresh = #batch == 1 and sb.time.now() - batch[1].listened_at - (batch[1].played or 0) <= settings.import_after
  local result, message = listenbrainz_call("/1/submit-listens", { listen_type = fresh and "single" or "import", payload = payload })
  if result ~= "ok" then return result, message end
  -- Liked: a "love" for the recording, once (best effort: a listen never waits for it).
  for _, listen in ipairs(batch) do
    if listen.liked and listen.mb_trackid and not state.get("loved:" .. listen.mb_trackid) then
      if listenbrainz_call("/1/feedback/recording-feedback", { recording_mbid = listen.mb_trackid, score = 1 }) == "ok" then
        state.set("loved:" .. listen.mb_trackid, true)
      end
    end
  end
  return "ok"
end

local function lastfm_session()
  local session = state.get("lastfm_session")
  return type(session) == "table" and session.key or nil
end

function send.lastfm(batch)
  local session = lastfm_session()
  if not session then return "retry", "no Last.fm session: run `songbox scrobble login lastfm`" end
  local params = { method = "track.scrobble", sk = session }
  for i, listen in ipairs(batch) do
    local n = "[" .. (i - 1) .. "]"
    params["artist" .. n] = listen.artist
    params["track" .. n] = listen.title
    params["timestamp" .. n] = ("%d"):format(listen.listened_at)
    params["chosenByUser" .. n] = "1"
    if listen.album then params["album" .. n] = listen.album end
    if listen.albumartist then params["albumArtist" .. n] = listen.albumartist end
    if listen.duration then params["duration" .. n] = ("%d"):format(math.floor(listen.duration)) end
    if listen.number then params["trackNumber" .. n] = ("%d"):format(listen.number) end
    if listen.mb_trackid then params["mbid" .. n] = listen.mb_trackid end
  end
  return lastfm_call(params)
end

local batch_size = { listenbrainz = 100, lastfm = 50 }

-- Each service on its own: one down (or Last.fm not logged in yet) never holds the other.
local retry_timer, pause, warned = {}, {}, {}
for _, service in ipairs(services) do pause[service] = settings.retry end

-- Sends what `service` has not taken, in order, a batch at a time; true when all went.
local function flush(service)
  while true do
    local batch = pending(cursor(service), batch_size[service])
    if #batch == 0 then break end
    local result, message = send[service](batch)
    if result == "retry" then
      if warned[service] ~= message then sb.log.warn("scrobble: " .. service .. ": " .. tostring(message) .. "; the listens are kept") end
      warned[service] = message
      return false
    end
    if result == "rejected" then sb.log.error("scrobble: " .. service .. " refused " .. #batch .. " listen(s), passed: " .. tostring(message)) end
    warned[service] = nil
    must(state.set("sent:" .. service, batch[#batch].seq))
    if result == "ok" then sb.log.info(("scrobble: %s took %d listen(s)"):format(service, #batch)) end
  end
  forget_sent()
  return true
end

-- Tries `service` now; after a failure, again after a pause that doubles (at most
-- `retry_max_seconds`). While its retry waits, new listens only join the queue.
local function attempt(service)
  retry_timer[service] = nil
  if not http then return end
  if flush(service) then
    pause[service] = settings.retry
    return
  end
  retry_timer[service] = sb.after(pause[service], function() attempt(service) end)
  pause[service] = math.min(pause[service] * 2, settings.retry_max)
end

-- Every service whose retry does not wait (all of them, `now`: the waits are cut short).
local function attempt_all(now)
  for _, service in ipairs(services) do
    if now and retry_timer[service] then
      retry_timer[service]:off()
      retry_timer[service] = nil
      pause[service] = settings.retry
    end
    if not retry_timer[service] then attempt(service) end
  end
end

local last_key

sb.on("track_ended", function(ev)
  if ev.counted ~= "play" then return end
  local track = ev.track or {}
  if not track.artist or not track.title then
    sb.log.debug("scrobble: not sent (no artist or title): " .. tostring(track.path))
    return
  end
  local played = tonumber(ev.played) or 0
  local listened_at = math.floor(sb.time.now() - played)
  -- One key a play: the same play handed over twice is kept once.
  local key = ("%d:%s"):format(listened_at, tostring(track.id))
  if key == last_key then return end
  last_key = key
  local listen = {
    seq = seq, key = key, listened_at = listened_at, played = played,
    artist = track.artist, title = track.title, album = track.album, albumartist = track.albumartist,
    duration = track.duration, number = track.track, isrc = track.isrc, liked = track.liked or nil,
    mb_trackid = track.mb_trackid, mb_albumid = track.mb_albumid, mb_artistid = track.mb_artistid,
    mb_releasegroupid = track.mb_releasegroupid,
  }
  -- Kept before anything is sent; then the number moves on.
  must(state.set(listen_key(seq), listen))
  seq = seq + 1
  must(state.set("seq", seq))
  attempt_all(false)
end)

sb.on("track_started", function(ev)
  if not settings.now_playing or not http then return end
  local track = ev.track or {}
  if not track.artist or not track.title then return end
  local listen = { artist = track.artist, title = track.title, album = track.album, duration = track.duration,
                   number = track.track, mb_trackid = track.mb_trackid, mb_albumid = track.mb_albumid }
  -- Only to a service that answers now (one whose retry waits would make the player's thread
  -- of this plugin wait for nothing).
  if settings.lb_token and not retry_timer.listenbrainz then
    listenbrainz_call("/1/submit-listens", { listen_type = "playing_now", payload = { { track_metadata = track_metadata(listen) } } }, 5)
  end
  if settings.lastfm_key and settings.lastfm_secret and not retry_timer.lastfm and lastfm_session() then
    local params = { method = "track.updateNowPlaying", sk = lastfm_session(), artist = listen.artist, track = listen.title }
    if listen.album then params.album = listen.album end
    if listen.duration then params.duration = ("%d"):format(math.floor(listen.duration)) end
    lastfm_call(params, 5)
  end
end)

-- `mpc sendmessage scrobble flush` (and `songbox scrobble login lastfm`): try now.
sb.subscribe("scrobble")
sb.on("message", function(ev)
  if ev.channel ~= "scrobble" then return end
  attempt_all(true)
end)

sb.on("startup", function() attempt_all(true) end)
