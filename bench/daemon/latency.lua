-- bench/daemon-run's probe: how long a `volume_changed` event takes from the player that emitted
-- it to a plugin's handler, on the daemon's monotonic clock (`songbox.monotonic()` against the
-- event's `emitted_at`, both in seconds). A build without them gives no samples and says so.
--
-- The benchmark alternates two volumes, then sets SENTINEL: at that event the probe logs one
-- line, `daemon-bench latency: events=N samples=S p50=... p99=... max=...` (seconds), or
-- `daemon-bench latency: events=N unsupported` when it could not measure.
local sb = require "songbox"

local SENTINEL = 37
local samples, events = {}, 0

local function report()
  local n = #samples
  if n == 0 then
    sb.log.info(string.format("daemon-bench latency: events=%d unsupported", events))
    return
  end
  table.sort(samples)
  local function at(p) return samples[math.max(1, math.ceil(p * n))] end
  local sum = 0
  for i = 1, n do sum = sum + samples[i] end
  sb.log.info(string.format("daemon-bench latency: events=%d samples=%d p50=%.9f p99=%.9f max=%.9f mean=%.9f min=%.9f",
    events, n, at(0.5), at(0.99), samples[n], sum / n, samples[1]))
  samples = {}
end

sb.on("volume_changed", function(ev)
  local lag = sb.monotonic and ev.emitted_at and (sb.monotonic() - ev.emitted_at)
  events = events + 1
  if lag then samples[#samples + 1] = lag end
  if type(ev.volume) == "number" and math.abs(ev.volume - SENTINEL) < 0.5 then
    report()
    events = 0
  end
end)

sb.log.info("daemon-bench latency: ready")
