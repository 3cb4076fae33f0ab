// The library: a search in the query language (docs/query-language.md), or browsed by artist
// (`list artist`, then `find artist`: its albums with their covers) or by folder (`lsinfo`);
// each song added to the queue, or played.
import { get, run, songName, clock, element, button, notify } from "./api.js";
import { t } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const first = (value) => (Array.isArray(value) ? value[0] : value);

// Songs as a list, each with play and add.
function showSongs(songs) {
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
}

async function search(query) {
  let songs;
  try {
    ({ songs } = await get("/api/search?q=" + encodeURIComponent(query)));
    notify("");
  } catch (error) {
    notify(error.message + (error.hint ? " — " + error.hint : ""), true);
    return;
  }
  $("browse").replaceChildren();
  showSongs(songs);
  // What the list shows the results of.
  $("search-results").dataset.query = query;
}

// No songs listed (and no "No results": nothing was searched).
function clearSongs() {
  $("search-results").replaceChildren();
  $("search-none").hidden = true;
}

// A list of names to pick from (artists, folders), each a button.
function showChoices(items, pick) {
  const box = $("browse");
  box.replaceChildren();
  clearSongs();
  const list = element("ul", undefined, "choices");
  for (const [label, value] of items) {
    const item = element("li");
    item.append(button(label, () => pick(value), "open"));
    list.append(item);
  }
  box.append(list);
}

async function artists() {
  const found = (await run("list", "artist")) ?? [];
  showChoices(found.filter((record) => record.Artist).map((record) => [first(record.Artist), first(record.Artist)]), albums);
}

// An artist's albums, each with its cover (the first song's), from the artist's songs.
async function albums(artist) {
  const songs = (await run("find", "artist", artist)) ?? [];
  const byAlbum = new Map();
  for (const song of songs) {
    const album = first(song.Album) ?? "";
    if (!byAlbum.has(album)) byAlbum.set(album, []);
    byAlbum.get(album).push(song);
  }
  const box = $("browse");
  box.replaceChildren(element("h2", artist));
  clearSongs();
  const grid = element("ul", undefined, "albums");
  for (const [album, tracks] of byAlbum) {
    const card = button("", () => showSongs(tracks), "album");
    const cover = element("img");
    cover.alt = "";
    cover.loading = "lazy";
    cover.src = "/api/cover?file=" + encodeURIComponent(tracks[0].file);
    cover.addEventListener("error", () => cover.removeAttribute("src"));
    card.append(cover, element("span", album || "—"));
    const item = element("li");
    item.append(card);
    grid.append(item);
  }
  box.append(grid);
}

async function folder(path) {
  const entries = (await run("lsinfo", ...(path ? [path] : []))) ?? [];
  const folders = entries.filter((entry) => entry.directory).map((entry) => [entry.directory.split("/").pop(), entry.directory]);
  if (path) folders.unshift(["..", path.split("/").slice(0, -1).join("/")]);
  showChoices(folders, folder);
  $("browse").prepend(element("h2", "/" + (path ?? "")));
  showSongs(entries.filter((entry) => entry.file));
}

export function setUp() {
  $("search").addEventListener("submit", (event) => {
    event.preventDefault();
    const query = $("search-query").value.trim();
    if (query) search(query);
  });
  $("browse-artists").addEventListener("click", artists);
  $("browse-folders").addEventListener("click", () => folder(""));
}
