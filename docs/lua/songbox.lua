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
---@field hash songbox.hash
---@field http? songbox.http Only when the config grants this plugin hosts (`net.NAME = host, host`); nil otherwise.
---@field library songbox.library Present when a library is open (always under `songbox run`).
---@field history songbox.history
---@field playlist songbox.playlist
---@field queue songbox.queue
---@field player songbox.player
songbox = {}

---Logging: arguments are converted with `tostring` and joined with spaces; each record carries
---the caller's file:line. A control character (a line break among them) is shown escaped. In
---the daemon a plugin's lines (and its `print`) are bounded: cut at 1,000 characters, the same
---line more than 3 times in a row folded into one count each 10 s, at most 100 lines at once
---and 5 a second after.
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

---@class songbox.hash
songbox.hash = {}

---MD5 of any bytes as 32 lowercase hex digits (for request signatures such as Last.fm's `api_sig`).
---@param text string
---@return string
function songbox.hash.md5(text) end

---The network, to the hosts the config grants this plugin by name (`net.NAME`): present only then.
---@class songbox.http
songbox.http = {}

---@class songbox.http.options
---@field url string `https://...` (or `http://...` when the grant says `http://` for that host and port).
---@field method? "GET"|"POST"|"PUT"|"PATCH"|"DELETE"|"HEAD" Default "GET".
---@field headers? table<string, string> No control characters; Host, Content-Length, Transfer-Encoding and Connection are songbox's.
---@field body? string At most 1 MiB.
---@field timeout? number Seconds for the whole request with its redirects, more than 0 and at most 60 (default 10).
---@field max_body? integer The most bytes of the answer taken, 0 to 8388608 (default 1048576).

---@class songbox.http.response
---@field status integer
---@field ok boolean A 2xx status.
---@field headers table<string, string> Names lowercased; repeated headers joined with ", ".
---@field body string
---@field url string Where the answer came from, after redirects.

---Makes one request, waiting on the plugin's own thread (bounded: `timeout`, and 120 s of waiting a
---callback). Redirects are followed only to granted hosts. A 4xx or 5xx is a response; a refused
---host, a redirect elsewhere, no answer in time or a longer answer than `max_body` is `nil, message`.
---Writes (refused in a dry run).
---@param options songbox.http.options
---@return songbox.http.response? response
---@return string? error
function songbox.http.request(options) end

---Text laid out in a terminal's columns: Hebrew points and other marks take none, East Asian
---wide characters two. For scripts that print tables.
---@class songbox.text
songbox.text = {}

---Columns `text` takes in a terminal.
---@param text string
---@return integer
function songbox.text.width(text) end

---`text` padded with spaces to `columns` (0 to 10000), on the right, or on the left with "right".
---@param text string
---@param columns integer
---@param align? "left"|"right"
---@return string
function songbox.text.pad(text, columns, align) end

---`text` cut to at most `columns` (1 to 10000), ending in "…" when cut.
---@param text string
---@param columns integer
---@return string
function songbox.text.truncate(text, columns) end

-- Library functions. Wrong argument types, unknown options and unknown fields raise
-- `bad argument` errors; failures of the library (not found, bad query, name taken, position
-- outside) return `nil, "songbox.NAME: message"`. Functions marked (writes) raise
-- `dry run: NAME refused` under `songbox run --dry-run`.

---A track: every field of `songbox show --json`; fields without a value are absent.
---@class songbox.track
---@field id integer
---@field path string
---@field title? string
---@field artist? string
---@field album? string
---@field albumartist? string
---@field genre? string
---@field year? integer
---@field date? string Recording date from the tag, e.g. "1967-05-01".
---@field track? integer
---@field tracktotal? integer
---@field disc? integer
---@field disctotal? integer
---@field duration number Seconds.
---@field plays integer
---@field skips integer
---@field last_played? string ISO 8601, UTC.
---@field added string ISO 8601, UTC.
---@field rating? integer 1 to 5.
---@field liked boolean
---@field tempo? number Beats per minute, from `songbox analyze` (docs/moods.md); absent until analyzed.
---@field key? string "A minor", "F# major", from `songbox analyze`.
---@field loudness? number EBU R128 integrated loudness, LUFS, from `songbox analyze`.
---@field energy? number 0 to 1, from `songbox analyze`.
---@field danceability? number 0 to 1, from `songbox analyze`; absent without a beat.
---@field valence? number 0 to 1, from `songbox analyze`.
---@field comment? string
---@field lyrics? string
---@field has_picture boolean
---@field keep_offline boolean A remote track pinned for offline listening (docs/remote.md).
---@field cached boolean A remote track whose offline copy is complete.
---@field isrc? string
---@field mb_trackid? string
---@field mb_albumid? string
---@field mb_artistid? string
---@field mb_albumartistid? string
---@field mb_releasegroupid? string
---@field rg_track_gain? number
---@field rg_track_peak? number
---@field rg_album_gain? number
---@field rg_album_peak? number
---@field bitrate? integer kbit/s.
---@field samplerate? integer
---@field bits? integer Bits per sample of a lossless file (FLAC, WAV, AIFF); nil for a lossy one
---@field channels? integer
---@field size integer Bytes.

---A track table, a history entry (its `track_id`) or a track id.
---@alias songbox.track_ref songbox.track|songbox.history.entry|integer

---@class songbox.library
songbox.library = {}

---Tracks matching a query (docs/query-language.md), in the query's order.
---@param text string
---@return songbox.track[]? tracks
---@return string? error A query that does not parse.
function songbox.library.query(text) end

---@class songbox.library.range
---@field min? number|string
---@field max? number|string

---@class songbox.library.find_fields
---@field sort? string|string[] "-plays", or {"artist", "-year"}.
---@field limit? integer|string A count, or a duration like "45m".
---@field random? boolean
---@field [string] string|number|boolean|songbox.library.range|(string|number)[] A field: whole-value match (folded), a range, or a list of alternatives.

---Tracks matching a table of fields (see docs/lua-api.md for the mapping to the query language).
---@param fields songbox.library.find_fields
---@return songbox.track[]? tracks
---@return string? error
function songbox.library.find(fields) end

---@param id integer
---@return songbox.track? track Nil when there is no such track.
function songbox.library.get(id) end

---@class songbox.library.edits
---@field title? string|false "" or false goes back to the file's tag.
---@field artist? string|false
---@field album? string|false
---@field genre? string|false
---@field year? integer|false
---@field rating? integer|false 1 to 5; 0 or false clears.
---@field liked? boolean

---(writes) Overrides in the database; the music file is never written.
---@param track songbox.track_ref
---@param edits songbox.library.edits
---@return true? ok
---@return string? error No such track.
function songbox.library.set(track, edits) end

---@class songbox.library.stats
---@field tracks integer
---@field artists integer
---@field albums integer
---@field genres integer
---@field duration number
---@field size integer
---@field plays integer
---@field skips integer
---@field playlists integer
---@field unreadable integer
---@field excluded integer
---@field folders string[]
---@field database string
---@field database_size integer

---@return songbox.library.stats
function songbox.library.stats() end

---@class songbox.library.art_facts
---@field source "embedded"|"file" An ID3 APIC frame in the track, or a picture file beside it.
---@field path string The file holding the bytes: the track, or the picture file.
---@field mime string "image/jpeg", "image/png", ...
---@field size integer Bytes of the picture.
---@field type? integer The ID3 picture type (3 is the front cover); nil for a file.
---@field type_name? string "front cover", "back cover", ...
---@field width? integer Pixels, from the image header (nil when it does not say).
---@field height? integer
---@field description? string

---The track's picture: the embedded front cover, else the first embedded picture, else
---cover/folder/front/album .jpg/.jpeg/.png beside it. Found when asked, not loaded.
---@param track songbox.track_ref
---@return songbox.library.art_facts? facts Nil when the track has no picture.
---@return string? error No such track, or its file cannot be read.
function songbox.library.art(track) end

---Up to `length` bytes (at most 1 MiB) of the track's picture from `offset` (0-based); "" at its end.
---@param track songbox.track_ref
---@param offset integer
---@param length integer
---@return string? bytes
---@return string? error No picture, or an offset past its end.
function songbox.library.art_bytes(track, offset, length) end

---@class songbox.lyrics
songbox.lyrics = {}

---@class songbox.lyrics.line
---@field t number Seconds from the start of the track.
---@field text string

---@class songbox.lyrics.lyrics
---@field text string The words, a line per line.
---@field lines songbox.lyrics.line[] Timed lines in time order; empty for "unsynced".
---@field source "unsynced"|"synced"|"lrc" An ID3 USLT frame, an ID3 SYLT frame, or an .lrc file beside the track.

---The track's lyrics as the last scan read them.
---@param track songbox.track_ref
---@return songbox.lyrics.lyrics? lyrics Nil when the track has none.
function songbox.lyrics.get(track) end

---@class songbox.history
songbox.history = {}

---@class songbox.history.entry
---@field entry_id integer
---@field track_id? integer Absent once the track has left the library.
---@field track? songbox.track The track as it is now.
---@field path string As it was when played.
---@field artist? string
---@field title? string
---@field kind "play"|"skip"
---@field reason string "finished", "skipped", ...
---@field played number Seconds heard.
---@field at string ISO 8601, UTC.

---@class songbox.history.top_entry
---@field track songbox.track
---@field track_id integer
---@field plays integer Plays within the window.
---@field last_played string Last play within the window.

---Newest first.
---@param options? {limit?: integer} Default 50.
---@return songbox.history.entry[]
function songbox.history.recent(options) end

---Most played tracks in a window, most first.
---@param options? {since?: string|number, limit?: integer} since: "12h", "30d", "2w" or days (default all time); limit default 10.
---@return songbox.history.top_entry[]
function songbox.history.top(options) end

---Plays of one track, newest first.
---@param track songbox.track_ref
---@return songbox.history.entry[]? entries
---@return string? error No such track.
function songbox.history.plays(track) end

---@class songbox.playlist
songbox.playlist = {}

---@class songbox.playlist.summary
---@field name string
---@field kind "saved"|"smart"
---@field query? string
---@field tracks integer Tracks in it now.
---@field duration number
---@field created string
---@field modified string
---@field script? string The script whose function defines a smart playlist (absolute path).
---@field problem? string Why a smart playlist cannot be evaluated now.

---@class songbox.playlist.playlist
---@field name string
---@field kind "saved"|"smart"
---@field query? string
---@field script? string The script whose function defines a smart playlist (absolute path).
---@field duration number
---@field created string
---@field modified string
---@field tracks songbox.track[]

---@class songbox.playlist.import_report
---@field name string
---@field total integer Entries in the file.
---@field matched integer
---@field ids integer[] The matched track ids, in order.
---@field unmatched {entry: integer, text: string, reason: string}[]

---@return songbox.playlist.summary[]
function songbox.playlist.list() end

---@param name string
---@return songbox.playlist.playlist? playlist
---@return string? error
function songbox.playlist.get(name) end

---(writes)
---@param name string
---@param tracks songbox.track_ref[]
---@param options? {replace?: boolean}
---@return true? ok
---@return string? error
function songbox.playlist.save(name, tracks, options) end

---(writes) Inserts before position `at` (1-based); at the end without it.
---@param name string
---@param tracks songbox.track_ref[]
---@param options? {at?: integer}
---@return true? ok
---@return string? error
function songbox.playlist.add(name, tracks, options) end

---(writes) Positions are 1-based, as before the removal.
---@param name string
---@param positions integer|integer[]
---@return true? ok
---@return string? error
function songbox.playlist.remove(name, positions) end

---(writes)
---@param name string
---@param from integer
---@param to integer
---@return true? ok
---@return string? error
function songbox.playlist.move(name, from, to) end

---(writes)
---@param old string
---@param new string
---@return true? ok
---@return string[]|string stale Smart playlists still naming `old`; or the error.
function songbox.playlist.rename(old, new) end

---(writes)
---@param name string
---@return true? ok
---@return string? error
function songbox.playlist.delete(name) end

---(writes a file) Format defaults to the extension (.json, else M3U8).
---@param name string
---@param path string
---@param options? {format?: "m3u8"|"json"}
---@return integer? count
---@return string? error
function songbox.playlist.export(name, path, options) end

---(writes) Imports an M3U/M3U8 or portable JSON file as a saved playlist.
---@param path string
---@param options? {name?: string, replace?: boolean, format?: "m3u8"|"json"}
---@return songbox.playlist.import_report? report
---@return string? error
function songbox.playlist.import(path, options) end

---(writes) Defines or updates a smart playlist, evaluated whenever it is read: a query, or a
---function returning the tracks (track tables or ids, in order). A function is run in this state
---while the script runs, else by running the script again read-only (docs/lua-api.md).
---@param name string
---@param rule string|fun(): (songbox.track|integer)[]
---@return true? ok
---@return string? error
function songbox.smart(name, rule) end

---Values the script keeps across runs and restarts, under its file name (docs/lua-api.md).
---@class songbox.state
songbox.state = {}

---The value kept under `key`, or nil.
---@param key string
---@return any
function songbox.state.get(key) end

---(writes) Keeps `value` (JSON-encodable, at most 1 MiB as JSON) under `key`; nil removes it.
---A script's whole state holds at most 8 MiB (keys and values as JSON): a value that would take
---it beyond is not kept, and the answer is `nil, message`.
---@param key string
---@param value any
---@return true? ok
---@return string? error
function songbox.state.set(key, value) end

---The script's keys, in order.
---@return string[]
function songbox.state.keys() end

---A queued track: every library field, plus where it is in the queue.
---@class songbox.queue_item: songbox.track
---@field queue_id integer Stable while the item is in the queue.
---@field position integer 1-based.
---@field lane "user"|"autoplay"

---@class songbox.queue
songbox.queue = {}

---(writes) Adds tracks to the queue: library tracks, or http(s) URLs (docs/remote.md).
---Nothing is added, and `nil, error` returned, when they do not all fit (`max_queue_length`).
---@param tracks songbox.track|integer|(songbox.track|integer)[]|string|string[]
---@param options? {at?: "end"|"next"|integer, lane?: "user"|"autoplay"}
---@return integer[]? queue_ids
---@return string? error
function songbox.queue.add(tracks, options) end

---@return songbox.queue_item[]
function songbox.queue.list() end

---(writes) Removes items; removing the playing one moves on to the next.
---@param queue_ids integer|integer[]
---@return true
function songbox.queue.remove(queue_ids) end

---(writes)
---@param queue_id integer
---@param position integer 1-based.
---@return true
function songbox.queue.move(queue_id, position) end

---(writes)
---@return true
function songbox.queue.clear() end

---(writes) Shuffles the queue; the playing item goes first.
---@return true
function songbox.queue.shuffle() end

---@class songbox.player
songbox.player = {}

---@class songbox.player.status
---@field state "stopped"|"playing"|"paused"
---@field queue_id? integer
---@field position? integer
---@field track? songbox.queue_item
---@field elapsed number Seconds into the track.
---@field duration? number
---@field volume number 0-100.
---@field repeat boolean
---@field random boolean
---@field single boolean|"oneshot"
---@field consume boolean|"oneshot"
---@field highlights boolean
---@field sleep? number|"track"|"queue" Minutes (as set), or at the end of the track or queue.
---@field sleep_left? number Seconds of playback until the sleep timer stops it, once known.
---@field queue_version integer
---@field queue_length integer
---@field clock number Seconds of audio rendered since the player started.
---@field output_error? string
---@field output string The spec of the output in use.
---@field output_index integer Its place among songbox.player.outputs().
---@field replay_gain songbox.player.replay_gain_status
---@field crossfade number Seconds of crossfade at a track's end (0: off).

---@class songbox.player.replay_gain_status
---@field mode "off"|"track"|"album"|"auto"
---@field applied? "track"|"album" The gain used for the current track; absent when none.
---@field source? "tags"|"analysis"
---@field db number dB applied (after the preamp and the peak limit).
---@field scale number The linear factor applied.
---@field limited boolean Whether the peak lowered the gain.
---@field ignored? string[] Values left out, each with its reason.

---(writes) Starts or resumes playback; with a queue id, that item. `reason = "alarm"`: an
---alarm's music (its track_started says so, and its transitions are asked with reason "alarm").
---@overload fun(options: {reason?: "user"|"alarm"}): true?, string?
---@param queue_id? integer
---@param options? {reason?: "user"|"alarm"}
---@return true? ok
---@return string? error
function songbox.player.play(queue_id, options) end

---(writes) @return true
function songbox.player.pause() end
---Stops, and makes the queue item current at `seconds`: the next play() starts there.
---@param queue_id integer
---@param seconds number
---@return boolean|nil, string?
function songbox.player.cue(queue_id, seconds) end
---(writes) @return true
function songbox.player.resume() end
---(writes) @return true
function songbox.player.stop() end
---(writes) @return true
function songbox.player.next() end
---(writes) Previous item, or the start of this one after 3 seconds. @return true
function songbox.player.previous() end

---(writes) Seeks to `seconds`, or by a signed amount given as a string ("+15", "-15").
---@param seconds number|string
---@return number elapsed
function songbox.player.seek(seconds) end

---@return songbox.player.status
function songbox.player.status() end

---Returns the volume heard now; with an argument, first sets it (0-100; that part writes).
---@param volume? number
---@return number
function songbox.player.volume(volume) end

---Returns the ReplayGain mode; with an argument, first sets it (that part writes).
---@param mode? "off"|"track"|"album"|"auto"
---@return "off"|"track"|"album"|"auto"
function songbox.player.replay_gain(mode) end

---Returns the crossfade at a track's end, in seconds (0: off); with an argument, first sets
---it (0 to 30; that part writes). docs/player.md#crossfade says when a change is crossfaded.
---@param seconds? number
---@return number
function songbox.player.crossfade(seconds) end

---@class songbox.player.transition_context
---@field reason "natural"|"skip"|"autoplay"|"alarm" Why `from` gives way: its end, `next` (or a jump to `to`), its end into a track autoplay added, its end within an alarm's music.
---@field crossfade number The default: the crossfade's seconds the settings give (0: none).
---@field curve "equal-power"|"linear"|"mixramp" The default curve.

---@class songbox.player.transition
---@field crossfade number Seconds the two overlap (0 to 30; 0: no crossfade).
---@field curve? "equal-power"|"linear"|"mixramp" Default equal-power.

---Chooses how one track gives way to the next. `fn(from, to, ctx)` is asked ahead, when the
---next track is known (at the start of `from`), never at the moment of the change: it sees
---both tracks (with their features: tempo, energy, key, loudness once analyzed) and returns a
---transition, or nil for the default. A hook that fails, returns something else or runs out
---of its budget leaves the default (logged with file:line); an answer that comes after the
---change was placed is dropped. Never between the tracks of an album in order.
---docs/player.md#plugins-choose.
---@param fn fun(from: songbox.queue_item, to: songbox.queue_item, ctx: songbox.player.transition_context): songbox.player.transition?
---@return songbox.handle
function songbox.player.on_transition(fn) end

---(writes) Plays a sound file over the music, which goes down by `duck` dB (default -15) over
---0.3 s and comes back over 0.5 s after the last announcement; several play in order. The
---queue, the place and the counts are untouched. A plugin reads only files in its granted
---folders; a URL is announced by `songbox announce` or MPD's `sendmessage announce`. With
---`say` (and no file) a text is spoken by espeak-ng (a Hebrew voice for Hebrew text).
---Returns nil and why when nothing plays or espeak-ng is missing. docs/player.md#announcements.
---@overload fun(options: {say: string, duck?: number, chime?: boolean}): true|nil, string?
---@param file string
---@param options? {duck?: number, chime?: boolean}
---@return true|nil ok
---@return string? message
function songbox.player.announce(file, options) end

---(writes) Moves the volume over seconds of playback.
---@param options {to: number, over?: number, curve?: "linear"|"log"}
---@return true
function songbox.player.fade(options) end

---(writes)
---@param modes {repeat?: boolean, random?: boolean, single?: boolean|"oneshot", consume?: boolean|"oneshot", highlights?: boolean}
---@return true
function songbox.player.set(modes) end

---(writes) The sleep timer: minutes of playback, "track", "queue", or false to cancel.
---@param when number|"track"|"queue"|false
---@return true
function songbox.player.sleep(when) end

---The configured outputs, first choice first (the one the player started on, then the config's
---other `output` lines).
---@return {index: integer, output: string, current: boolean}[]
function songbox.player.outputs() end

---(writes) Moves playback to a configured output (by index or spec) at the same place.
---@param output integer|string
---@return true? ok
---@return string? error
function songbox.player.use_output(output) end

---In `songbox run` scripts only: the running daemon, through its control socket.
songbox.daemon = {}

---Whether a daemon answers on the control socket.
---@return boolean
function songbox.daemon.running() end

---(writes) Sends one MPD (or songbox) command to the daemon.
---@param name string
---@param ... string|number each one line
---@return {key: string, value: string}[]? answer
---@return string? error
function songbox.daemon.command(name, ...) end

---@alias songbox.event_name "track_started"|"track_ended"|"paused"|"resumed"|"seeked"|"queue_changed"|"volume_changed"|"options_changed"|"output_error"|"output_changed"|"decode_error"|"stopped"|"library_updated"|"playlist_changed"|"alarm"|"message"|"startup"|"shutdown"|"lyric"|"stream_title"|"announcement_failed"

---An event: `type` and its fields (see docs/player.md#events).
---@class songbox.event
---@field type songbox.event_name
---@field emitted_at? number when it left the audio thread, on songbox.monotonic()'s clock
---@field track? songbox.queue_item
---@field reason? string
---@field played? number
---@field duration? number
---@field counted? "play"|"skip"
---@field position? integer
---@field from? number
---@field to? number
---@field volume? number
---@field version? integer
---@field message? string
---@field index? integer lyric: the line's place in songbox.lyrics.get(track).lines (1-based)
---@field text? string lyric: the line's words
---@field t? number lyric: when the line starts, in seconds into the track
---@field title? string stream_title: what the station says it plays now
---@field station? string stream_title: the station's name (icy-name), when it gives one

---@class songbox.handle
local handle = {}
---Unregisters the handler or cancels the timer. @return boolean was_active
function handle:off() end

---Calls `fn` for every event named `event`, after the handlers added before it.
---@param event songbox.event_name
---@param fn fun(ev: songbox.event)
---@return songbox.handle
function songbox.on(event, fn) end

---Runs `fn` once, `seconds` from now (on the script's clock); 0 to a year (31622400).
---@param seconds number
---@param fn fun()
---@return songbox.handle
function songbox.after(seconds, fn) end

---Runs `fn` every `seconds` (at least 0.01, at most a year).
---@param seconds number
---@param fn fun()
---@return songbox.handle
function songbox.every(seconds, fn) end

---@class songbox.at_info
---@field scheduled number Unix seconds of the occurrence
---@field at string the occurrence as its zone shows it, "2026-11-26T07:00:00+02:00"
---@field late number seconds it runs after its time (a clock set forward, songbox stopped)
---@field name string?

---@class songbox.at_options
---@field name string? remembers the last occurrence handled (songbox.state), to find one missed while stopped
---@field grace number? how late an occurrence may still run, 0 to 86400 s (default 600)
---@field missed fun(info: songbox.at_info)? called instead of fn for an occurrence later than its grace

---Runs `fn` when the wall clock reads `spec`: "[DAYS | YYYY-MM-DD] HH:MM[:SS] [ZONE]"
---("mon-fri 07:00", "2026-12-24 18:00 Europe/London"), or {time=, days=, date=, zone=}.
---Fires once per occurrence across DST changes and NTP setting the clock (docs/lua-api.md).
---@param spec string|table
---@param fn fun(info: songbox.at_info)
---@param options songbox.at_options?
---@return songbox.handle
function songbox.at(spec, fn, options) end

songbox.time = {}
---Unix seconds on the wall clock (a `--fast` run: the script's clock from `--start-time`).
---@return number
function songbox.time.now() end
---When `spec` next fires after `after` (default now), and that time as its zone shows it.
---@param spec string|table
---@param after number?
---@return number|nil, string?
function songbox.time.next(spec, after) end
---"2026-11-26T07:00:00+02:00": `t` in `zone` (an IANA name; default the system's).
---@param t number
---@param zone string?
---@return string
function songbox.time.format(t, zone) end

---@class songbox.alarm_spec
---@field name string
---@field when string a songbox.at spec
---@field query string?
---@field playlist string?
---@field mood string?
---@field start_volume number? 0-100 (default 0)
---@field volume number? 0-100 (default 80)
---@field fade number? seconds, up to 3600 (default 0)
---@field curve "linear"|"log"|nil
---@field snooze number? seconds (default 540)
---@field timeout number? seconds (default 3600)
---@field grace number? seconds (default 600)
---@field enabled boolean?
---@field say string? said over its music once that is up, "%H:%M" filled in then: "It is %H:%M"

songbox.alarm = {}
---Every alarm the library keeps (the same `songbox alarm ls` shows).
---@return songbox.alarm_spec[]
function songbox.alarm.list() end
---Adds or replaces an alarm. @return boolean|nil, string?
---@param name string
---@param spec songbox.alarm_spec
function songbox.alarm.add(name, spec) end
---Removes an alarm; true when there was one.
---@param name string
---@return boolean
function songbox.alarm.remove(name) end
---Sounds an alarm now (the message fire:NAME on the alarm channel, which the alarm plugin answers).
---@param name string
function songbox.alarm.fire(name) end
---Raises alarm{name, phase, ...} in every plugin.
---@param name string
---@param phase "scheduled"|"sounding"|"snoozed"|"dismissed"|"timeout"|"fallback"|"missed"|"failed"
---@param fields table?
function songbox.alarm.announce(name, phase, fields) end
---(writes) Says the alarm's `say` over the music, its time fields filled in now in the alarm's zone.
---@param name string
---@return string|nil said the text said
---@return string? message why nothing was said
function songbox.alarm.speak(name) end
---Queues the bundled alarm tone at the end; its new queue id.
---@return integer|nil, string?
function songbox.alarm.tone() end

songbox.autoplay = {}
---@class songbox.autoplay_context
---@field track songbox.track? the playing track
---@field want integer? how many tracks autoplay needs

---A rule for the bundled autoplay plugin: the smart playlist "autoplay: NAME" (NAME: the script's
---file name unless given) whose function calls `fn(ctx)`; return tracks or ids, or {} to leave the
---choice to the next source.
---@overload fun(fn: fun(ctx: songbox.autoplay_context): (songbox.track|integer)[]): boolean|nil, string?
---@param name string
---@param fn fun(ctx: songbox.autoplay_context): (songbox.track|integer)[]
---@return boolean|nil, string?
function songbox.autoplay.provide(name, fn) end
---The names of the providers' smart playlists ("autoplay: NAME"), in order, without running them.
---@return string[]|nil, string?
function songbox.autoplay.providers() end
---Switches autoplay on or off, and keeps it so (the message on/off on the autoplay channel).
---@param on boolean
---@return boolean
function songbox.autoplay.set(on) end
---What the autoplay plugin keeps: {enabled, ahead, quiet, provider, track_id, want}; nil before it ran.
---@return {enabled: boolean, ahead: integer, quiet: string?, provider: string?, track_id: integer?, want: integer?}|nil, string?
function songbox.autoplay.status() end
---@alias songbox.mood_range number[] {low, high}
---@class songbox.mood_ranges
---@field energy songbox.mood_range?
---@field valence songbox.mood_range?
---@field danceability songbox.mood_range?
---@field tempo songbox.mood_range? BPM
---@field loudness songbox.mood_range? LUFS

---@class songbox.mood_options
---@field mood string? a mood name, or moods joined with + ("calm+happy")
---@field from string? with `to`: a trajectory from one mood to the other over the playlist
---@field to string?
---@field minutes number? the time budget (filled to within one track's length), at most a week
---@field count integer? how many tracks (default 20; not with `minutes`)
---@field query string? only tracks matching this query
---@field language string? only tracks in this language ("he", "latin", "other", or an override)
---@field not_played_within string|number? leave out tracks played within "2d", "12h", "1w" or N days
---@field start_from songbox.track|integer? order from the track nearest this one
---@field min_score number? tracks scoring less are never picked (default 0.5)

---@class songbox.mood_track: songbox.track
---@field score number how well it fits (0..1), feedback included
---@field why string the score and the features that decided it, in a line
---@field reasons {mood: string, feature: string, value: number?, range: number[]?, score: number}[]
---@field language string

songbox.mood = {}
---Defines (or redefines: a later definition wins over a preset) a mood.
---@param name string no "+"
---@param spec songbox.mood_ranges|fun(track: songbox.track): number a table of ranges, or a function giving a score 0..1
---@return true
function songbox.mood.define(name, spec) end
---The moods this state knows: `{name, preset, kind = "ranges"|"function", ranges}`, by name.
---@return table[]
function songbox.mood.list() end
---The preset files run in this state (plugins/moods.lua, then the user's moods.lua).
---@return string[]
function songbox.mood.presets() end
---How well a track fits a mood (0..1), a line saying why, and the reasons; nil and a message
---for a track that is not analyzed.
---@param track songbox.track|integer
---@param mood string
---@return number|nil, string, table[]?
function songbox.mood.score(track, mood) end
---The tracks for a mood: best fits filling the budget, no repeats, neighbours alike in sound
---(or, with from/to, moving from one mood to the other).
---@param options songbox.mood_options
---@return songbox.mood_track[]|nil, string?
function songbox.mood.playlist(options) end
---The analyzed tracks the options allow (what a function mood is asked about).
---@param options songbox.mood_options?
---@return songbox.track[]|nil, string?
function songbox.mood.candidates(options) end
---mood.playlist, then queued at the end and played; early skips while it plays count against the track in its mood.
---@param options songbox.mood_options
---@return songbox.mood_track[]
function songbox.mood.play(options) end
---The mood mood.play started in this state, or nil.
---@return string?
function songbox.mood.current() end
---Counts an early skip of a track in a mood (its score there is multiplied by 0.6 per skip, up to 10). The count now.
---@param track songbox.track|integer
---@param mood string
---@return integer
function songbox.mood.skip(track, mood) end
---The early skips kept for a mood.
---@param mood string
---@return {track_id: integer, skips: integer}[]
function songbox.mood.feedback(mood) end
---Forgets the skips kept for a mood (of one track, or all); how many were kept.
---@param mood string
---@param track? songbox.track|integer
---@return integer
function songbox.mood.forget(mood, track) end

---The analyzed tracks nearest a track by the feature vector, nearest first (each with `distance`).
---@param track songbox.track|integer
---@param count? integer default 10
---@return (songbox.track|{distance: number})[]|nil, string?
function songbox.similar(track, count) end

---In a daemon's plugin: listen on an MPD channel (clients see it in `channels`). Every message
---reaches every plugin's "message" handlers anyway. True when it changed something; outside a
---daemon, nil and a message.
---@param channel string letters, digits and - _ . :
---@return boolean|nil, string?
function songbox.subscribe(channel) end

---Stops listening on an MPD channel (see songbox.subscribe).
---@param channel string
---@return boolean|nil, string?
function songbox.unsubscribe(channel) end

---Seconds on a clock that never jumps (its zero is arbitrary): the clock of events'
---`emitted_at`, to measure how late a handler runs or how long work takes.
---@return number
function songbox.monotonic() end

---Ends the run once the running function returns, whatever timers are left; `songbox run`
---exits with `status` (0 to 255, default 0).
---@param status? integer
function songbox.exit(status) end

return songbox
