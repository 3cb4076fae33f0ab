// The stats: the most played (`topplayed DAYS`), plays a day (`playsperday`), and the latest
// plays and skips with why each ended (`history`).
import { run, songLabel, element, compose, ltr, coalesced } from "./api.js";
import { t } from "./i18n.js";

const $ = (id) => document.getElementById(id);
let span = 7;

export async function refresh() {
  const [top, perDay, history] = await Promise.all([run("topplayed", span, 10), run("playsperday", 30), run("history", 30)]);
  const list = $("stats-top");
  list.replaceChildren();
  for (const track of top ?? []) {
    const item = element("li");
    item.append(songLabel(track), element("span", track.plays, "count"));
    list.append(item);
  }
  $("stats-top-none").hidden = (top ?? []).length > 0;
  drawDays(perDay ?? []);
  const recent = $("stats-history");
  recent.replaceChildren();
  for (const entry of history ?? []) {
    const item = element("li");
    item.dataset.reason = entry.reason;
    const name = songLabel(entry);
    const when = new Date(Number(entry.at) * 1000);
    name.append(compose("small", undefined, ltr(when.toLocaleString(document.documentElement.lang)), " · ",
      t(entry.kind === "skip" ? "skipped" : "played") + " " + Math.round(entry.played) + " " + t("sec"), " · ", t("ended") + ": " + t(entry.reason)));
    item.append(name);
    recent.append(item);
  }
}

// Plays a day over the last 30 days as bars (a day without plays has none).
function drawDays(days) {
  const chart = $("stats-days");
  const most = Math.max(1, ...days.map((day) => Number(day.plays)));
  const today = new Date();
  const bars = [];
  for (let back = 29; back >= 0; back--) {
    const date = new Date(today.getFullYear(), today.getMonth(), today.getDate() - back);
    const key = date.getFullYear() + "-" + String(date.getMonth() + 1).padStart(2, "0") + "-" + String(date.getDate()).padStart(2, "0");
    const plays = Number(days.find((day) => day.day === key)?.plays ?? 0);
    const bar = document.createElementNS("http://www.w3.org/2000/svg", "rect");
    const height = (plays / most) * 95;
    for (const [name, value] of Object.entries({ x: (29 - back) * 10 + 1, y: 100 - height, width: 8, height })) bar.setAttribute(name, value);
    const title = document.createElementNS("http://www.w3.org/2000/svg", "title");
    title.textContent = key + ": " + plays;
    bar.append(title);
    bars.push(bar);
  }
  chart.replaceChildren(...bars);
  $("stats-days-total").textContent = t("Plays in 30 days") + ": " + days.reduce((sum, day) => sum + Number(day.plays), 0);
}

export function setUp() {
  for (const choice of document.querySelectorAll("#stats-window button")) {
    choice.addEventListener("click", () => {
      span = Number(choice.dataset.days);
      for (const other of document.querySelectorAll("#stats-window button")) other.setAttribute("aria-pressed", String(other === choice));
      refresh();
    });
  }
}

// After a play, and after a rescan that changed tags (the titles shown) or removed tracks.
const again = coalesced(refresh);
export function onEvent(event) {
  if (event.type === "track_ended" || (event.type === "library_updated" && (event.changed || event.removed))) again();
}
