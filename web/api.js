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
  const first = (value) => (Array.isArray(value) ? value.join(", ") : value);
  const title = first(song.Title) ?? song.file ?? "";
  const artist = first(song.Artist);
  return artist ? artist + " – " + title : title;
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

export function button(label, action, english) {
  const made = element("button", label);
  made.type = "button";
  if (english) made.dataset.action = english;
  made.addEventListener("click", action);
  return made;
}
