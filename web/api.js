// The JSON API (docs/http-api.md): reads, the command table's commands, and the error line.
import { t } from "./i18n.js";

export class APIError extends Error {
  constructor(error) {
    super(error.message);
    this.code = error.code;
    this.hint = error.hint;
  }
}

async function answer(response) {
  if (response.status === 401) {
    location.href = "/login";
    throw new APIError({ code: "login", message: t("Log in") });
  }
  if (response.status === 204) return {};
  const body = await response.json();
  if (!response.ok) throw new APIError(body.error ?? { code: "http", message: String(response.status) });
  return body;
}

export async function get(path) {
  return answer(await fetch(path, { headers: { Accept: "application/json" } }));
}

// One command of the command table, with its arguments; its answer's records.
export async function command(name, ...args) {
  const response = await fetch("/api/command/" + encodeURIComponent(name), {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify({ args }),
  });
  return (await answer(response)).records;
}

// What went wrong (or right), shown as text.
export function notify(text, isError = false) {
  const notice = document.getElementById("notice");
  notice.textContent = text;
  notice.classList.toggle("error", isError);
  notice.hidden = !text;
}

// Runs a command from a button; its failure is said in the notice line.
export async function run(name, ...args) {
  try {
    const records = await command(name, ...args);
    notify("");
    return records;
  } catch (error) {
    notify(error.message + (error.hint ? " — " + error.hint : ""), true);
    return null;
  }
}

// A song as a person names it: "Artist – Title", else its file.
export function songName(song) {
  return songParts(song).join(" – ");
}

function songParts(song) {
  const first = (value) => (Array.isArray(value) ? value.join(", ") : value);
  const title = first(song.Title) ?? song.file ?? "";
  const artist = first(song.Artist);
  return artist ? [artist, title] : [title];
}

// The same as a list's name: the artist and the title each in its own direction (a Hebrew
// title keeps right to left on an English page, a Latin one left to right on a Hebrew page).
export function songLabel(song) {
  const parts = songParts(song).map((part) => element("bdi", part));
  return compose("span", "name", ...parts.flatMap((part, index) => (index ? [" – ", part] : [part])));
}

export function clock(seconds) {
  const whole = Math.max(0, Math.floor(Number(seconds) || 0));
  return Math.floor(whole / 60) + ":" + String(whole % 60).padStart(2, "0");
}

// An element with its text (never markup: tags and file names are shown as they are).
export function element(tag, text, className) {
  const made = document.createElement(tag);
  if (text !== undefined) made.textContent = text;
  if (className) made.className = className;
  return made;
}

// An element of several parts: text (as text) and elements.
export function compose(tag, className, ...parts) {
  const made = element(tag, undefined, className);
  made.append(...parts.filter((part) => part !== undefined && part !== ""));
  return made;
}

// Words from outside (a name, a tag): isolated, in the direction of their own letters.
export function data(text) {
  return element("bdi", text);
}

// A number, a time, a date or a range of them: read left to right in a right-to-left line too.
export function ltr(text) {
  const made = element("span", text);
  made.dir = "ltr";
  return made;
}

// A refresh that waits for a burst of calls to end (several `library_updated` close together)
// and runs once for all of them, never two at once.
export function coalesced(refresh, quiet = 300) {
  let timer = null, running = null, again = false;
  const go = async () => {
    timer = null;
    if (running) { again = true; return; }
    running = refresh();
    try { await running; } catch (error) { notify(error.message, true); } finally {
      running = null;
      if (again) { again = false; go(); }
    }
  };
  return () => { clearTimeout(timer); timer = setTimeout(go, quiet); };
}

export function button(label, action, english) {
  const made = element("button", label);
  made.type = "button";
  if (english) made.dataset.action = english;
  made.addEventListener("click", action);
  return made;
}
