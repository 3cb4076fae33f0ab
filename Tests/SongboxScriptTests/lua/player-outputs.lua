-- songbox.player.outputs / use_output and the output_changed event. Run by PlayerScriptTests.swift
-- with `--output wav:FIRST` and a config whose outputs are FIRST's spec again and a second WAV
-- file; the test checks what each file holds.
local sb = require "songbox"
local lib = require "player-lib"

local outputs = sb.player.outputs()
assert(#outputs == 2, "two configured outputs, got " .. #outputs)
assert(outputs[1].index == 1 and outputs[1].current == true and outputs[1].output:match("^wav:.*first%.wav$"))
assert(outputs[2].index == 2 and outputs[2].current == false and outputs[2].output:match("^wav:.*second%.wav$"))
local status = sb.player.status()
assert(status.output == outputs[1].output and status.output_index == 1)
lib.ok("outputs")

local moved = {}
sb.on("output_changed", function(event) moved[#moved + 1] = event end)

sb.queue.add(lib.track("three"))
sb.player.play()
lib.steps {
  { 1, function()
    assert(sb.player.use_output(2) == true)
    status = sb.player.status()
    assert(status.output == outputs[2].output and status.output_index == 2 and status.state == "playing")
    lib.at(status.elapsed, 1, "the place is kept")
    assert(sb.player.outputs()[2].current == true and sb.player.outputs()[1].current == false)
    -- The same output again changes nothing.
    assert(sb.player.use_output(outputs[2].output) == true)
    lib.ok("use_output")
  end },
  { 0.5, function()
    assert(#moved == 1, "one output_changed event, got " .. #moved)
    assert(moved[1].index == 2 and moved[1].output == outputs[2].output)
    -- Only configured outputs: a script cannot point the audio at a file of its choosing.
    local ok, message = sb.player.use_output("wav:/tmp/elsewhere.wav")
    assert(ok == nil and message:find("is not a configured output", 1, true), tostring(message))
    ok, message = sb.player.use_output(3)
    assert(ok == nil and message:find("there is no output 3", 1, true), tostring(message))
    assert(sb.player.use_output(0) == nil and sb.player.use_output(-1) == nil)
    lib.fails("out of range", sb.player.use_output, math.mininteger)
    lib.fails("expected, got table", sb.player.use_output, {})
    assert(sb.player.status().output_index == 2)
    lib.ok("refusals")
  end },
}
sb.on("stopped", function() sb.exit(0) end)
