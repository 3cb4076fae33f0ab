// The queue: each song with its handle (drag it, or move it with the arrow keys) and its
// buttons (up, down, remove); clear; save as a playlist.
import { get, run, songName, songLabel, clock, element, compose, ltr, button, notify } from "./api.js";
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
    const name = songLabel(song);
    if (song.duration) name.append(compose("small", undefined, ltr(clock(song.duration))));
    item.append(name);
    const up = button("▲", () => run("moveid", song.Id, position - 1), "up");
    up.disabled = position === 0;
    up.setAttribute("aria-label", t("Move up"));
    const down = button("▼", () => run("moveid", song.Id, position + 1), "down");
    down.disabled = position === songs.length - 1;
    down.setAttribute("aria-label", t("Move down"));
    // Dragged (pointer events: a finger or a mouse) to its new place, or moved with the arrow keys.
    const handle = button("≡", () => {}, "drag");
    handle.classList.add("handle");
    handle.setAttribute("aria-label", t("Move") + ": " + songName(song));
    handle.addEventListener("pointerdown", (event) => drag(event, item, song.Id, position));
    handle.addEventListener("keydown", (event) => {
      const to = { ArrowUp: position - 1, ArrowDown: position + 1 }[event.key];
      if (to === undefined || to < 0 || to >= songs.length) return;
      event.preventDefault();
      moving = song.Id;
      run("moveid", song.Id, to);
    });
    item.prepend(handle);
    const play = button("▶", () => run("playid", song.Id), "play");
    play.setAttribute("aria-label", t("Play"));
    const remove = button("✕", () => run("deleteid", song.Id), "remove");
    remove.setAttribute("aria-label", t("Remove"));
    item.append(play, up, down, remove);
    list.append(item);
  });
  // The handle of a song moved by keyboard keeps the focus in its new place.
  if (moving !== null) list.querySelector(`li[data-id="${CSS.escape(moving)}"] .handle`)?.focus();
  moving = null;
  const length = Number(status.playlistlength ?? 0);
  if (length > songs.length) list.append(compose("li", undefined, ltr("… +" + (length - songs.length))));
  $("queue-empty").hidden = songs.length > 0;
}

let moving = null;

// A drag: the item follows the pointer; where it is let go, the song is moved to (`moveid`).
function drag(event, item, id, from) {
  event.preventDefault();
  const handle = event.currentTarget;
  handle.setPointerCapture(event.pointerId);
  const items = [...item.parentElement.children].filter((other) => other.dataset.id);
  const startY = event.clientY;
  item.classList.add("dragging");
  let to = from;
  const move = (moved) => {
    const offset = moved.clientY - startY;
    item.style.translate = "0 " + offset + "px";
    const middle = item.getBoundingClientRect().top + item.offsetHeight / 2;
    to = items.filter((other) => other !== item && other.getBoundingClientRect().top + other.offsetHeight / 2 < middle).length;
  };
  const end = () => {
    handle.removeEventListener("pointermove", move);
    item.classList.remove("dragging");
    item.style.translate = "";
    if (to !== from) run("moveid", id, to);
  };
  handle.addEventListener("pointermove", move);
  handle.addEventListener("pointerup", end, { once: true });
  handle.addEventListener("pointercancel", end, { once: true });
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
