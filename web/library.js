// The library: a search in the query language (docs/query-language.md); each result added to
// the queue, or played.
import { get, run, songName, clock, element, button, notify } from "./api.js";
import { t } from "./i18n.js";

const $ = (id) => document.getElementById(id);

async function search(query) {
  let songs;
  try {
    ({ songs } = await get("/api/search?q=" + encodeURIComponent(query)));
    notify("");
  } catch (error) {
    notify(error.message + (error.hint ? " — " + error.hint : ""), true);
    return;
  }
  const list = $("search-results");
  list.replaceChildren();
  for (const song of songs) {
    const item = element("li");
    const name = element("span", songName(song), "name");
    const album = Array.isArray(song.Album) ? song.Album.join(", ") : song.Album;
    name.append(element("small", [album, song.duration ? clock(song.duration) : ""].filter(Boolean).join(" · ")));
    item.append(name);
    const add = button("+", () => run("addid", song.file), "add");
    add.setAttribute("aria-label", t("Add to the queue"));
    const play = button("▶", async () => {
      const added = await run("addid", song.file);
      if (added?.[0]?.Id) await run("playid", added[0].Id);
    }, "play");
    play.setAttribute("aria-label", t("Play"));
    item.append(play, add);
    list.append(item);
  }
  $("search-none").hidden = songs.length > 0;
  // What the list shows the results of.
  list.dataset.query = query;
}

export function setUp() {
  $("search").addEventListener("submit", (event) => {
    event.preventDefault();
    const query = $("search-query").value.trim();
    if (query) search(query);
  });
}
