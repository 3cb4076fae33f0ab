/// The part of the `songbox` module written in Lua: events (`songbox.on`) and timers
/// (`songbox.after`, `songbox.every`). Callbacks are Lua functions, which never cross into
/// Swift: they live here, and the host drives them through the two functions kept with `keep`:
/// `dispatch(event, now)` calls an event's handlers in order, `advance(now)` fires the timers due by
/// `now` (seconds on the host's clock) and returns the next deadline and whether a one-shot
/// timer is pending. Each returns the errors of
/// the callbacks that failed (`file:line: message`); a failing callback never stops the others.
enum Prelude {
    static let events = [
        "track_started", "track_ended", "paused", "resumed", "seeked", "queue_changed", "volume_changed",
        "options_changed", "output_error", "decode_error", "stopped", "library_updated", "playlist_changed",
        "alarm", "message", "startup", "shutdown",
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
        local timers = {}     -- id -> { at, every, fn }
        local last_id, now = 0, 0

        local Handle = { __name = "songbox.handle" }
        Handle.__index = Handle
        --- Unregisters the handler or cancels the timer; true when it was still active.
        function Handle:off()
          if self.event then
            local list = handlers[self.event] or {}
            for i = 1, #list do
              if list[i].id == self.id then remove(list, i); return true end
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
          list[#list + 1] = { id = last_id, fn = fn }
          return setmetatable({ id = last_id, event = event }, Handle)
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

        keep("dispatch", function(event, time)
          -- The host's clock when the event happened: a timer a handler makes counts from then.
          if time and time > now then now = time end
          local errors = {}
          local list = handlers[event.type]
          if not list then return errors end
          -- A copy: a handler may add or remove handlers.
          local copy = {}
          for i = 1, #list do copy[i] = list[i] end
          for _, handler in ipairs(copy) do
            local ok, message = pcall(handler.fn, event)
            if not ok then errors[#errors + 1] = failure(handler.fn, message) end
          end
          return errors
        end)

        local function earliest()
          local id, best = nil, nil
          for key, t in pairs(timers) do
            if not best or t.at < best.at or (t.at == best.at and key < id) then id, best = key, t end
          end
          return id, best
        end

        keep("advance", function(time)
          now = time
          local errors = {}
          while true do
            local id, t = earliest()
            if not t or t.at > now then break end
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
          local _, next = earliest()
          local once = false
          for _, t in pairs(timers) do if not t.every then once = true; break end end
          return errors, next and next.at or nil, once
        end)
        """
}
