// The queue: each song with its buttons (up, down, remove); clear; save as a playlist.
import { get, run, songName, clock, element, button, notify } from "./api.js";
import { t } from "./i18n.js";

const $ = (id) => document.getElementById(id);

// The most songs the page lists (a long queue's first ones; the API answers in windows).
const most = 1000;

export async function refresh() {
  const [{ songs }, { status }] = await Promise.all([get("/api/queue?window=0:" + most), get("/api/status")]);
  const list = $("queue-list");
  list.replaceChildren();
  songs.forEach((song, position) => {
    const item = element("li");
    item.dataset.id = song.Id;
    if (song.Id === status.songid) item.classList.add("current");
    const name = element("span", songName(song), "name");
    if (song.duration) name.append(element("small", clock(song.duration)));
    item.append(name);
    const up = button("▲", () => run("moveid", song.Id, position - 1), "up");
    up.disabled = position === 0;
    up.setAttribute("aria-label", t("Move up"));
    const down = button("▼", () => run("moveid", song.Id, position + 1), "down");
    down.disabled = position === songs.length - 1;
    down.setAttribute("aria-label", t("Move down"));
    const play = button("▶", () => run("playid", song.Id), "play");
    play.setAttribute("aria-label", t("Play"));
    const remove = button("✕", () => run("deleteid", song.Id), "remove");
    remove.setAttribute("aria-label", t("Remove"));
    item.append(play, up, down, remove);
    list.append(item);
  });
  const length = Number(status.playlistlength ?? 0);
  if (length > songs.length) list.append(element("li", "… +" + (length - songs.length)));
  $("queue-empty").hidden = songs.length > 0;
}

export function onEvent(event) {
  if (["queue_changed", "track_started", "stopped"].includes(event.type)) refresh();
}

export function setUp() {
  $("queue-clear").addEventListener("click", () => run("clear"));
  $("queue-save").addEventListener("submit", async (event) => {
    event.preventDefault();
    const name = $("queue-save-name").value.trim();
    if (name && (await run("save", name)) !== null) notify(t("Done"));
  });
}
