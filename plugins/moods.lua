-- The preset moods. Each is a set of ranges over what `songbox analyze` measures (energy,
-- valence, danceability: 0 to 1; tempo: BPM; loudness: LUFS; see docs/moods.md): a track inside
-- every range scores 1, one a little outside less (a quarter of the 0..1 scale, 25 BPM or 6 LU
-- outside scores 0), and a mood's score is half the mean over its ranges and half the worst.
--
-- songbox runs this file in a script's own state the first time the script uses songbox.mood,
-- then a moods.lua in your plugin folder (~/.config/songbox/plugins/moods.lua), then the
-- script's own definitions: a later define of the same name wins. To change "calm" everywhere,
-- put `songbox.mood.define("calm", {...})` in your own moods.lua.
local mood = require("songbox").mood

mood.define("calm", { energy = { 0, 0.4 }, tempo = { 50, 100 }, loudness = { -40, -14 } })
mood.define("focus", { energy = { 0.2, 0.55 }, valence = { 0.3, 0.7 }, danceability = { 0, 0.6 } })
mood.define("happy", { valence = { 0.6, 1 }, energy = { 0.4, 1 } })
mood.define("sad", { valence = { 0, 0.4 }, energy = { 0, 0.5 } })
mood.define("energetic", { energy = { 0.7, 1 }, tempo = { 115, 180 } })
mood.define("party", { danceability = { 0.65, 1 }, energy = { 0.6, 1 }, tempo = { 100, 135 } })
mood.define("wake-up", { energy = { 0.3, 0.75 }, valence = { 0.5, 1 }, tempo = { 80, 130 } })
