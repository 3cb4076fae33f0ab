// Now playing: what plays, where in it, the buttons; follows the event stream.
import { get, run, clock, notify, ltr } from "./api.js";
import { t } from "./i18n.js";

const $ = (id) => document.getElementById(id);
let state = { status: {}, song: null, sleep: {} };
// Where the track was when the status was read, and when (the bar moves on by itself while
// playing; the daemon is asked again only when an event says something changed).
let anchor = { elapsed: 0, at: 0 };
let ticking = null;
let seeking = false;

export async function refresh() {
  state = await get("/api/status");
  show();
}

function show() {
  const { status, song } = state;
  const first = (value) => (Array.isArray(value) ? value.join(", ") : value);
  $("now-title").textContent = song ? first(song.Title) ?? song.file : t("Nothing is playing");
  $("now-artist").textContent = song ? first(song.Artist) ?? "" : "";
  $("now-album").textContent = song ? first(song.Album) ?? "" : "";
  showCover(song?.file);
  const duration = Number(status.duration ?? song?.duration ?? 0);
  $("now-seek").max = String(Math.round(duration));
  $("now-duration").textContent = clock(duration);
  anchor = { elapsed: Number(status.elapsed ?? 0), sleepLeft: Number(state.sleep?.sleepleft ?? NaN), at: performance.now() };
  const playing = status.state === "play";
  const toggle = $("now-toggle");
  // (An SVG element has no `hidden` property: the attribute itself.)
  toggle.querySelector(".play").toggleAttribute("hidden", playing);
  toggle.querySelector(".pause").toggleAttribute("hidden", !playing);
  toggle.dataset.tLabel = playing ? "Pause" : "Play";
  toggle.setAttribute("aria-label", t(toggle.dataset.tLabel));
  toggle.title = t(toggle.dataset.tLabel);
  $("now-volume").value = String(status.volume ?? 0);
  $("mode-repeat").checked = status.repeat === "1";
  $("mode-random").checked = status.random === "1";
  $("mode-single").checked = status.single !== "0" && status.single !== undefined;
  $("mode-consume").checked = status.consume !== "0" && status.consume !== undefined;
  if (!song) $("now-lyric").textContent = "";
  clearInterval(ticking);
  ticking = playing ? setInterval(tick, 1000) : null;
  tick();
}

// The song's picture (embedded, else a file beside it), or the note when it has none.
let coverFile;
function showCover(file) {
  if (file === coverFile) return;
  coverFile = file;
  const image = $("cover-image");
  image.hidden = true;
  $("cover-note").hidden = false;
  if (file) image.src = "/api/cover?file=" + encodeURIComponent(file);
  else image.removeAttribute("src");
}

function tick() {
  const playing = state.status.state === "play";
  const elapsed = anchor.elapsed + (playing ? (performance.now() - anchor.at) / 1000 : 0);
  const shown = Math.min(elapsed, Number($("now-seek").max) || elapsed);
  if (!seeking) $("now-seek").value = String(Math.floor(shown));
  $("now-elapsed").textContent = clock(shown);
  showSleep(playing ? (performance.now() - anchor.at) / 1000 : 0);
}

// The sleep timer (`sleep` without an argument, read with the status; a change of it is an
// `options_changed`): what it waits for, the minutes counted down while playing.
function showSleep(played) {
  const when = state.sleep?.sleep ?? "off";
  $("now-sleep-state").hidden = when === "off";
  if (when === "off") return;
  const left = Math.max(0, anchor.sleepLeft - played);
  const minutes = Math.ceil((Number.isNaN(left) ? Number(when) * 60 : left) / 60);
  $("now-sleep-text").replaceChildren(...(when === "track" ? [t("Stops after this song")]
    : when === "queue" ? [t("Stops at the end of the queue")]
    : [t("Stops in") + " ", ltr(String(minutes)), " " + t("min")]));
}

export function onEvent(event) {
  if (event.type === "lyric") $("now-lyric").textContent = event.text ?? "";
  if (event.type === "track_started") $("now-lyric").textContent = "";
  if (["track_started", "paused", "resumed", "seeked", "stopped", "volume_changed", "options_changed", "queue_changed", "stream_title"].includes(event.type)) {
    refresh();
  }
}

export function setUp() {
  $("cover-image").addEventListener("load", () => { $("cover-image").hidden = false; $("cover-note").hidden = true; });
  $("cover-image").addEventListener("error", () => { $("cover-image").hidden = true; $("cover-note").hidden = false; });
  $("now-toggle").addEventListener("click", () => run(state.status.state === "play" ? "pause" : "play"));
  $("now-next").addEventListener("click", () => run("next"));
  $("now-previous").addEventListener("click", () => run("previous"));
  const seek = $("now-seek");
  seek.addEventListener("input", () => { seeking = true; $("now-elapsed").textContent = clock(seek.value); });
  seek.addEventListener("change", async () => { await run("seekcur", Number(seek.value)); seeking = false; });
  $("now-volume").addEventListener("change", (event) => run("setvol", Number(event.target.value)));
  // The sleep timer (`sleep`): set, then the choice goes back to the prompt, said done.
  $("now-sleep").addEventListener("change", async (event) => {
    const chosen = event.target.value;
    if (chosen && (await run("sleep", chosen)) !== null) notify(t("Done"));
    event.target.value = "";
  });
  $("now-sleep-cancel").addEventListener("click", () => run("sleep", "off"));
  for (const mode of ["repeat", "random", "single", "consume"]) {
    $("mode-" + mode).addEventListener("change", (event) => run(mode, event.target.checked));
  }
}
