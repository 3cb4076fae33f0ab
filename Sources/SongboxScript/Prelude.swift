/// The part of the `songbox` module written in Lua: events (`songbox.on`) and timers
/// (`songbox.after`, `songbox.every`, and `songbox.at` on the wall clock). Callbacks are Lua
/// functions, which never cross into Swift: they live here, and the host drives them through
/// the functions kept with `keep`: `listening(known)` names the event types that have handlers
/// (so a plugin gets only those), `dispatch(event, now)` calls an event's handlers in
/// order, `advance(now, wall)` fires the timers due by `now` (seconds on the host's monotonic
/// clock) and the wall-clock timers due by `wall` (Unix seconds), and returns the next deadline
/// (on the monotonic clock) and whether a one-shot timer is pending. Each returns the errors of
/// the callbacks that failed (`file:line: message`); a failing callback never stops the others.
///
/// A wall-clock timer keeps the wall time it fires at, not a countdown: each `advance` places
/// it again from the wall clock as it is then, so a clock that NTP sets forward or back moves
/// it with the clock; it fires once per occurrence (the next is counted from after the later
/// of the occurrence and the clock), and an occurrence more than its grace late (the clock
/// jumped over it, the machine was off) is reported as missed instead.
enum Prelude {
    static let events = [
        "track_started", "track_ended", "paused", "resumed", "seeked", "queue_changed", "volume_changed",
        "options_changed", "output_error", "output_changed", "decode_error", "stopped", "library_updated", "playlist_changed",
        "alarm", "message", "startup", "shutdown", "lyric", "stream_title", "announcement_failed",
    ]

    static let source = """
        local install, keep, where = ...
        local pcall, type, tostring, setmetatable, pairs, ipairs, error = pcall, type, tostring, setmetatable, pairs, ipairs, error

        -- A callback's error as a line a plugin author can act on: its text (an error object's
        -- __tostring, which may itself fail), with the callback's place when it names none.
        local function failure(fn, message)
          local ok, text = pcall(tostring, message)
          if not ok or type(text) ~= "string" then text = "(an error object that cannot be shown)" end
          if not text:find("^[^\\n]-:%d+:") then
            local place = where(fn)
            text = (place and (place .. ": ") or "") .. text .. (place and " (in the callback defined here)" or "")
          end
          return text
        end
        local remove, format = table.remove, string.format
        local known = {}
        for name in ("\(events.joined(separator: " "))"):gmatch("%S+") do known[name] = true end

        local longest = 31622400  -- a year (366 days) of seconds: the longest delay or interval
        local handlers = {}   -- event name -> list of { id, fn }
        -- Counts the times an event type gained its first handler or lost its last: the host
        -- asks (`listening`) and hands a plugin only the events it has handlers for.
        local listen_version = 0
        local timers = {}     -- id -> { at, every, fn } or, on the wall clock, { at, wall_at, spec, fn, ... }
        local last_id, now = 0, 0
        local time_next, time_now = songbox.time.next, songbox.time.now
        local log_warn, log_info, floor = songbox.log.warn, songbox.log.info, math.floor
        -- How long a wall-clock timer waits at most before looking at the clock again: NTP may
        -- set it while the host sleeps, and the host's sleep is on the monotonic clock.
        local wall_check = 30

        local Handle = { __name = "songbox.handle" }
        Handle.__index = Handle
        --- Unregisters the handler or cancels the timer; true when it was still active.
        function Handle:off()
          if self.event then
            local list = handlers[self.event] or {}
            for i = 1, #list do
              if list[i].id == self.id then
                remove(list, i)
                if #list == 0 then listen_version = listen_version + 1 end
                return true
              end
            end
            return false
          end
          local active = timers[self.id] ~= nil
          timers[self.id] = nil
          return active
        end

        local function check(fn, n, value, expected)
          if type(value) ~= expected then
            error(format("bad argument #%d to '%s' (%s expected, got %s)", n, fn, expected, type(value)), 3)
          end
        end

        install("on", function(event, fn)
          check("songbox.on", 1, event, "string")
          if not known[event] then
            error(format("bad argument #1 to 'songbox.on' (unknown event '%s')", event), 2)
          end
          check("songbox.on", 2, fn, "function")
          last_id = last_id + 1
          local list = handlers[event] or {}
          handlers[event] = list
          if #list == 0 then listen_version = listen_version + 1 end
          list[#list + 1] = { id = last_id, fn = fn }
          return setmetatable({ id = last_id, event = event }, Handle)
        end)

        -- `songbox.player.on_transition(fn)`: fn(from, to, ctx) is asked ahead how `from` gives
        -- way to `to` (ctx.reason: natural, skip, autoplay; ctx.crossfade and ctx.curve: the
        -- default) and returns { crossfade = SECONDS, curve = NAME } or nil for the default. Its
        -- handler answers `dispatch` of the host's `transition_ahead` (not an event `songbox.on`
        -- takes); an answer that is not a transition is an error at the hook's place.
        local curves = { ["equal-power"] = true, linear = true, mixramp = true }
        install("player.on_transition", function(fn)
          check("songbox.player.on_transition", 1, fn, "function")
          local function hook(event)
            local choice = fn(event.from, event.to, { reason = event.reason, crossfade = event.crossfade, curve = event.curve })
            if choice == nil then return nil end
            local place = where(fn) or "songbox.player.on_transition"
            if type(choice) ~= "table" then
              error(format("%s: the transition hook returned a %s, not a table or nil", place, type(choice)), 0)
            end
            local seconds, curve = choice.crossfade, choice.curve
            if type(seconds) ~= "number" or not (seconds >= 0 and seconds <= 30) then
              error(format("%s: the transition's crossfade must be seconds from 0 to 30", place), 0)
            end
            if curve ~= nil and not curves[curve] then
              error(format("%s: the transition's curve must be equal-power, linear or mixramp", place), 0)
            end
            for key in pairs(choice) do
              if key ~= "crossfade" and key ~= "curve" then
                error(format("%s: unknown key '%s' in the transition (crossfade, curve)", place, tostring(key)), 0)
              end
            end
            return { crossfade = seconds, curve = curve }
          end
          last_id = last_id + 1
          local list = handlers.transition_ahead or {}
          handlers.transition_ahead = list
          if #list == 0 then listen_version = listen_version + 1 end
          list[#list + 1] = { id = last_id, fn = hook, place = fn, answers = true }
          return setmetatable({ id = last_id, event = "transition_ahead" }, Handle)
        end)

        local function timer(name, seconds, fn, every)
          check(name, 1, seconds, "number")
          -- NaN, negative, infinite or over a year: refused (a timer never fires at math.huge).
          if not (seconds >= 0 and seconds <= longest) or (every and seconds < 0.01) then
            -- Level 2: songbox.after/every tail-call this function, so the caller is next.
            error(format("bad argument #1 to '%s' (%s)", name,
              every and "the interval must be from 0.01 seconds to a year (31622400)"
                or "seconds must be from 0 to a year (31622400)"), 2)
          end
          check(name, 2, fn, "function")
          last_id = last_id + 1
          timers[last_id] = { at = now + seconds, every = every and seconds or nil, fn = fn }
          return setmetatable({ id = last_id }, Handle)
        end
        install("after", function(seconds, fn) return timer("songbox.after", seconds, fn, false) end)
        install("every", function(seconds, fn) return timer("songbox.every", seconds, fn, true) end)

        -- Where a named schedule keeps the last occurrence it handled (songbox.state), so that
        -- one missed while songbox was not running is found at the next start.
        local function remembered(name)
          local state = songbox.state
          if not name or not state then return nil end
          local ok, value = pcall(state.get, "at:" .. name)
          return ok and type(value) == "number" and value or nil
        end
        local function remember(name, occurrence)
          local state = songbox.state
          if name and state then pcall(state.set, "at:" .. name, occurrence) end
        end

        install("at", function(spec, fn, options)
          if type(spec) ~= "string" and type(spec) ~= "table" then
            error(format("bad argument #1 to 'songbox.at' (a schedule such as 'mon-fri 07:00' expected, got %s)", type(spec)), 2)
          end
          check("songbox.at", 2, fn, "function")
          if options ~= nil then check("songbox.at", 3, options, "table") end
          options = options or {}
          local name, grace, missed = options.name, options.grace or 600, options.missed
          if name ~= nil and (type(name) ~= "string" or name == "") then
            error("bad argument #3 to 'songbox.at' (name must be a non-empty string)", 2)
          end
          if type(grace) ~= "number" or not (grace >= 0 and grace <= 86400) then
            error("bad argument #3 to 'songbox.at' (grace must be from 0 to 86400 seconds)", 2)
          end
          if missed ~= nil and type(missed) ~= "function" then
            error("bad argument #3 to 'songbox.at' (missed must be a function)", 2)
          end
          local wall = time_now()
          -- A named schedule counts from what it last handled (from now, the first time; and
          -- that is kept, so an occurrence passed while songbox was stopped is found).
          local since = remembered(name)
          local ok, first, label = pcall(time_next, spec, since or wall)
          if ok and not since then remember(name, wall) end
          if not ok then
            error((tostring(first):gsub("^.-bad argument #1 to '[^']*'", "bad argument #1 to 'songbox.at'")), 2)
          end
          -- Occurrences that passed while songbox was not running: the latest of them is due
          -- now (late; its grace decides), the others are gone.
          local passed = 0
          while first and first <= wall and passed < 4000 do
            local following, following_label = time_next(spec, first)
            if not following or following > wall then break end
            first, label, passed = following, following_label, passed + 1
          end
          if not first then return setmetatable({ id = 0 }, Handle) end
          last_id = last_id + 1
          timers[last_id] = { at = now + (first - wall), wall_at = first, label = label, spec = spec, fn = fn,
                              name = name, grace = grace, missed = missed }
          return setmetatable({ id = last_id }, Handle)
        end)

        -- The event types with a handler now, and the count they go with; nothing when the
        -- count is still `known` (they have not changed since the host last asked).
        keep("listening", function(known)
          if known == listen_version then return end
          local names = {}
          for name, list in pairs(handlers) do
            if #list > 0 then names[#names + 1] = name end
          end
          return listen_version, names
        end)

        keep("dispatch", function(event, time)
          -- The host's clock when the event happened: a timer a handler makes counts from then.
          if time and time > now then now = time end
          local errors = {}
          local list = handlers[event.type]
          if not list then return errors end
          -- A copy: a handler may add or remove handlers.
          local copy = {}
          for i = 1, #list do copy[i] = list[i] end
          local answer
          for _, handler in ipairs(copy) do
            local ok, message = pcall(handler.fn, event)
            if not ok then errors[#errors + 1] = failure(handler.place or handler.fn, message)
            elseif handler.answers and message ~= nil then answer = message end
          end
          -- A transition hook's answer (the last one's, when there are several).
          return errors, answer
        end)

        local function earliest()
          local id, best = nil, nil
          for key, t in pairs(timers) do
            if not best or t.at < best.at or (t.at == best.at and key < id) then id, best = key, t end
          end
          return id, best
        end

        -- Runs a wall-clock timer that is due, or tells that it was missed; then places its next
        -- occurrence (none: a one-off is done).
        local function ring(id, t, wall, errors)
          local late = wall - t.wall_at
          local info = { scheduled = t.wall_at, at = t.label, late = late, name = t.name }
          local on_time = late <= t.grace
          local callback = on_time and t.fn or t.missed
          if not on_time then
            log_warn(format("songbox.at%s: missed %s, %d s late (grace %d s)%s", t.name and (" " .. t.name) or "",
              info.at, floor(late), floor(t.grace), t.missed and "" or "; not run"))
          elseif late > 1 then
            log_info(format("songbox.at%s: %s runs %d s late", t.name and (" " .. t.name) or "", info.at, floor(late)))
          end
          remember(t.name, t.wall_at)
          local following, label = time_next(t.spec, t.wall_at > wall and t.wall_at or wall)
          if following then
            t.wall_at, t.label, t.at = following, label, now + (following - wall)
          else
            timers[id] = nil
          end
          if callback then
            local ok, message = pcall(callback, info)
            if not ok then errors[#errors + 1] = failure(callback, message) end
          end
        end

        keep("advance", function(time, wall)
          now = time
          wall = wall or time_now()
          -- Wall-clock timers placed again from the clock as it is now.
          for _, t in pairs(timers) do
            if t.wall_at then t.at = now + (t.wall_at - wall) end
          end
          local errors = {}
          while true do
            local id, t = earliest()
            if not t or t.at > now then break end
            if t.wall_at then
              ring(id, t, wall, errors)
            else
              if t.every then
                t.at = t.at + t.every
                -- Fallen behind (a busy host): no burst of catch-up calls.
                if t.at <= now then t.at = now + t.every end
              else
                timers[id] = nil
              end
              local ok, message = pcall(t.fn)
              if not ok then errors[#errors + 1] = failure(t.fn, message) end
            end
          end
          local _, next = earliest()
          local once, deadline = false, next and next.at or nil
          for _, t in pairs(timers) do
            if not t.every and not (t.wall_at and time_next(t.spec, t.wall_at)) then once = true end
            if t.wall_at and deadline > now + wall_check then deadline = now + wall_check end
          end
          return errors, deadline, once
        end)
        """
}
