// The moods: pick moods (joined, or one moving to another), minutes, language and "not played
// within"; the daemon's `moodplaylist` previews the tracks with why each was chosen; then they
// play (the queue's own commands) or are saved as a playlist.
import { command, run, songLabel, clock, element, compose, data, ltr, notify } from "./api.js";
import { t } from "./i18n.js";

const $ = (id) => document.getElementById(id);
let preview = [];
let previewMood = "";

export async function refresh() {
  const box = $("moods-choice");
  if (box.querySelector("input")) return;
  for (const mood of (await run("moods")) ?? []) {
    const label = element("label");
    const input = element("input");
    input.type = "checkbox";
    input.name = "mood";
    input.value = mood.mood;
    label.append(input, " ", data(mood.mood));
    box.append(label);
  }
}

// The moods chosen as `moodplaylist` names them: `calm+happy`, or `calm>energetic` over time.
function chosenMood() {
  const names = [...document.querySelectorAll("#moods-choice input:checked")].map((input) => input.value);
  return names.join($("moods-trajectory").checked && names.length === 2 ? ">" : "+");
}

async function showPreview() {
  const form = $("moods-form").elements;
  const mood = chosenMood();
  if (!mood) { notify(t("Pick a mood"), true); return; }
  const options = ["mood=" + mood, "minutes=" + form.minutes.value];
  if (form.language.value) options.push("language=" + form.language.value);
  if (form.within.value) options.push("not_played_within=" + form.within.value);
  const tracks = await run("moodplaylist", ...options);
  if (tracks === null) return;
  preview = tracks;
  previewMood = mood;
  const list = $("moods-preview");
  list.replaceChildren();
  for (const track of tracks) {
    const item = element("li");
    const name = songLabel(track);
    // The mood engine's reasons are its own words (English, like `songbox mood`'s).
    const why = element("span", track.why, "why");
    why.dir = "auto";
    name.append(compose("small", undefined, ltr(clock(track.duration)), why));
    item.append(name);
    list.append(item);
  }
  const total = tracks.reduce((sum, track) => sum + Number(track.duration), 0);
  $("moods-summary").replaceChildren(...(tracks.length ? [ltr(String(tracks.length)), " · ", ltr(clock(total))] : [t("No track fits the mood")]));
  list.dataset.mood = mood;
  $("moods-actions").hidden = tracks.length === 0;
  // The name examples/mood-playlist.lua gives it, in every language (a script loads it by it).
  $("moods-save-name").value = "Mood: " + mood;
}

// The previewed tracks in place of the queue, playing from the first.
async function play() {
  if ((await run("clear")) === null) return;
  for (const track of preview) if ((await run("addid", track.file)) === null) return;
  if ((await run("play", 0)) !== null) notify(t("Done"));
}

// The previewed tracks as a playlist (one of that name is replaced).
async function save() {
  const name = $("moods-save-name").value.trim() || "Mood: " + previewMood;
  try { await command("rm", name); } catch { /* a new name: nothing to replace */ }
  for (const track of preview) if ((await run("playlistadd", name, track.file)) === null) return;
  notify(t("Done"));
}

export function setUp() {
  $("moods-form").addEventListener("submit", (event) => { event.preventDefault(); showPreview(); });
  $("moods-play").addEventListener("click", play);
  $("moods-save").addEventListener("click", save);
}
