extension MoodAPI {
    /// The Lua half of `songbox.mood`: the moods a state knows (`define`, `list`), the presets
    /// (the files `LuaRuntime.moodPresetFiles` names, run in this state the first time a mood is
    /// used, so a script's own `define` of the same name comes later and wins), function moods
    /// (asked here, about each candidate, before the host chooses), `play` and the early skips
    /// it records. The host functions it wraps take moods already resolved.
    static let prelude = """
        local install, keep, where = ...
        local sb = songbox  -- the module itself, whatever a script does to the global later
        local host_playlist, host_score, host_candidates = songbox.mood.playlist, songbox.mood.score, songbox.mood.candidates
        local host_presets, host_skip = songbox.mood.presets, songbox.mood.skip
        local type, pairs, ipairs, pcall, error, tostring, load, assert = type, pairs, ipairs, pcall, error, tostring, load, assert
        local format, sort, concat = string.format, table.sort, table.concat
        local features = { energy = true, valence = true, danceability = true, tempo = true, loudness = true }
        local moods = {}       -- name -> { rule = ranges table or function, preset = boolean }
        local loaded, loading = false, false
        local preset_paths = {}

        local function load_presets()
          if loaded then return end
          loaded = true
          for _, file in ipairs(host_presets()) do
            preset_paths[#preset_paths + 1] = file.path
            local chunk, message = load(file.source, "@" .. file.path, "t")
            if not chunk then error(message, 0) end
            loading = true
            local ok, failure = pcall(chunk)
            loading = false
            if not ok then error(failure, 0) end
          end
        end

        local function names()
          local list = {}
          for name in pairs(moods) do list[#list + 1] = name end
          sort(list)
          return list
        end

        -- A copy of a table of ranges, or nil and what is wrong with it.
        local function ranges(name, spec)
          local copy, count = {}, 0
          for key, range in pairs(spec) do
            if not features[key] then
              return nil, format("mood '%s': unknown feature '%s' (known: danceability, energy, loudness, tempo, valence)",
                name, tostring(key))
            end
            local low, high = type(range) == "table" and range[1], type(range) == "table" and range[2]
            if type(low) ~= "number" or type(high) ~= "number" or not (low <= high and low > -1e9 and high < 1e9) then
              return nil, format("mood '%s': %s must be {low, high}, two numbers with low <= high", name, key)
            end
            copy[key], count = { low, high }, count + 1
          end
          if count == 0 then return nil, format("mood '%s' needs at least one range, e.g. energy = {0, 0.4}", name) end
          return copy
        end

        install("mood.define", function(name, spec)
          if type(name) ~= "string" or name == "" or name:find("+", 1, true) then
            error(format("bad argument #1 to 'define' (a mood name without '+' expected, got %s)",
              type(name) == "string" and format("'%s'", name) or type(name)), 2)
          end
          load_presets()
          local rule = spec
          if type(spec) == "table" then
            local message
            rule, message = ranges(name, spec)
            if not rule then error(format("bad argument #2 to 'define' (%s)", message), 2) end
          elseif type(spec) ~= "function" then
            error(format("bad argument #2 to 'define' (table of ranges or function expected, got %s)", type(spec)), 2)
          end
          moods[name] = { rule = rule, preset = loading }
          return true
        end)

        install("mood.list", function()
          load_presets()
          local list = {}
          for _, name in ipairs(names()) do
            local mood = moods[name]
            local entry = { name = name, preset = mood.preset, kind = type(mood.rule) == "function" and "function" or "ranges" }
            if entry.kind == "ranges" then
              entry.ranges = {}
              for key, range in pairs(mood.rule) do entry.ranges[key] = { range[1], range[2] } end
            end
            list[#list + 1] = entry
          end
          return list
        end)

        install("mood.presets", function()
          load_presets()
          local copy = {}
          for i, path in ipairs(preset_paths) do copy[i] = path end
          return copy
        end)

        -- "calm+happy" as its parts, or nil and why not.
        local function resolve(label)
          load_presets()
          if type(label) ~= "string" then return nil, format("a mood name such as 'calm' or 'calm+happy' expected, got %s", type(label)) end
          local parts = {}
          for piece in label:gmatch("[^+]+") do
            local name = piece:match("^%s*(.-)%s*$")
            local mood = moods[name]
            if not mood then return nil, format("unknown mood '%s' (known: %s)", name, concat(names(), ", ")) end
            parts[#parts + 1] = { name = name, rule = mood.rule }
          end
          if #parts == 0 then return nil, "an empty mood name" end
          return { label = label, parts = parts }
        end

        -- A function mood's score for one track: its error, or an answer that is not a score,
        -- is an error that names the function's file and line.
        local function ask(name, fn, track)
          local ok, value = pcall(fn, track)
          if not ok then
            local text = tostring(value)
            if not text:find("^[^\\n]-:%d+:") then text = (where(fn) or "?") .. ": " .. text end
            error(format("%s (in mood '%s')", text, name), 0)
          end
          if type(value) ~= "number" or not (value >= 0 and value <= 1) then
            error(format("%s: mood '%s' must give a score from 0 to 1, gave %s", where(fn) or "?", name, tostring(value)), 0)
          end
          return value
        end

        -- The mood as the host takes it: ranges as they are, a function's scores for `tracks`.
        local function wire(mood, tracks)
          local parts = {}
          for i, part in ipairs(mood.parts) do
            if type(part.rule) == "function" then
              local ids, scores = {}, {}
              for j, track in ipairs(tracks()) do ids[j], scores[j] = track.id, ask(part.name, part.rule, track) end
              parts[i] = { name = part.name, ids = ids, scores = scores }
            else
              parts[i] = { name = part.name, ranges = part.rule }
            end
          end
          return { label = mood.label, parts = parts }
        end

        -- Calls a host function; its error is raised `level` levels up (at the script's line,
        -- not the prelude's), naming the function as the script called it.
        local function call_host(level, name, fn, ...)
          local ok, a, b, c = pcall(fn, ...)
          if ok then return a, b, c end
          local text = tostring(a):gsub("^songbox:%d+: ", ""):gsub("to '[^']*'", "to '" .. name .. "'", 1)
          error(text, level + 1)
        end

        local function playlist(options, level)
          if type(options) ~= "table" then
            error(format("bad argument #1 to 'playlist' (table expected, got %s)", type(options)), level)
          end
          local candidates
          local function tracks()
            if not candidates then candidates = assert(host_candidates(options)) end
            return candidates
          end
          local resolved = {}
          for _, key in ipairs { "mood", "from", "to" } do
            if options[key] ~= nil then
              local mood, message = resolve(options[key])
              if not mood then error(format("bad argument #1 to 'playlist' (%s: %s)", key, message), level) end
              resolved[key] = wire(mood, tracks)
            end
          end
          local tracks, failure = call_host(level, "playlist", host_playlist, options, resolved)
          return tracks, failure
        end
        install("mood.playlist", function(options) return playlist(options, 2) end)

        install("mood.score", function(track, label)
          local mood, message = resolve(label)
          if not mood then error(format("bad argument #2 to 'score' (%s)", message), 2) end
          if type(track) ~= "table" then
            local id = track
            track = sb.library.get(id)
            if not track then error(format("bad argument #1 to 'score' (no track with id %s)", tostring(id)), 2) end
          end
          local score, why, reasons = call_host(2, "score", host_score, track, wire(mood, function() return { track } end))
          return score, why, reasons
        end)

        -- Early skips while a mood plays (`mood.play`) count against the track in that mood.
        local playing
        local function ended(ev)
          if not playing or type(ev.track) ~= "table" or not playing.ids[ev.track.id] then return end
          -- Skipped by the listener before it counted as a play (under 10 s the player counts
          -- nothing at all, which is the earliest skip there is).
          if ev.reason == "skipped" and ev.counted ~= "play" then
            for _, name in ipairs(playing.names) do pcall(host_skip, ev.track.id, name) end
          end
        end
        local listening = false

        install("mood.play", function(options)
          local tracks, failure = playlist(options, 3)
          if not tracks then return nil, failure end
          local ids, names_of = {}, {}
          for _, track in ipairs(tracks) do ids[track.id] = true end
          for _, key in ipairs { "mood", "from", "to" } do
            local label = options[key]
            if type(label) == "string" then
              for piece in label:gmatch("[^+]+") do names_of[#names_of + 1] = piece:match("^%s*(.-)%s*$") end
            end
          end
          if #tracks > 0 then
            local queued = assert(sb.queue.add(tracks))
            sb.player.play(queued[1])
          end
          playing = { ids = ids, names = names_of }
          if not listening then sb.on("track_ended", ended); listening = true end
          return tracks
        end)

        install("mood.current", function()
          if not playing then return nil end
          return concat(playing.names, "+")
        end)
        """
}
