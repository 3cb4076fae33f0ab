// The library: a search in the query language (docs/query-language.md), or browsed by artist
// (`list artist`, then `find artist`: its albums with their covers) or by folder (`lsinfo`);
// each song added to the queue, or played. What it shows follows the library: when a rescan
// (the watcher's, or anyone's `update`) changes it, the view is read again in place.
import { get, run, songLabel, clock, element, compose, data, ltr, button, notify, coalesced } from "./api.js";
import { t } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const first = (value) => (Array.isArray(value) ? value[0] : value);

// The view shown (a search, the artists, an artist's albums, a folder), to show again when the
// library changes; `stale`: it changed while the page was hidden.
let view = null;
let stale = false;

// Songs as a list, each with play and add.
function showSongs(songs) {
  const list = $("search-results");
  list.replaceChildren();
  for (const song of songs) {
    const item = element("li");
    const name = songLabel(song);
    const album = Array.isArray(song.Album) ? song.Album.join(", ") : song.Album;
    name.append(compose("small", undefined, album && data(album), album && song.duration ? " · " : "", song.duration && ltr(clock(song.duration))));
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
  view = () => search(query);
  $("browse").replaceChildren();
  delete $("browse").dataset.artist;
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
  delete box.dataset.artist;
  clearSongs();
  const list = element("ul", undefined, "choices");
  for (const [label, value] of items) {
    const item = element("li");
    const choice = button(label, () => pick(value), "open");
    choice.dir = "auto";
    item.append(choice);
    list.append(item);
  }
  box.append(list);
}

async function artists() {
  const found = await run("list", "artist");
  if (found === null) return;
  view = artists;
  showChoices(found.filter((record) => record.Artist).map((record) => [first(record.Artist), first(record.Artist)]), (artist) => albums(artist));
}

// An artist's albums, each with its cover (the first song's), from the artist's songs; `open`:
// the album whose songs show below them. Shown again, an album already there keeps its card
// (and its cover, not asked for again).
async function albums(artist, open = null) {
  const songs = await run("find", "artist", artist);
  if (songs === null) return;
  const byAlbum = new Map();
  for (const song of songs) {
    const album = first(song.Album) ?? "";
    if (!byAlbum.has(album)) byAlbum.set(album, []);
    byAlbum.get(album).push(song);
  }
  const openAlbum = (album) => {
    view = () => albums(artist, album);
    showSongs(byAlbum.get(album) ?? []);
  };
  const box = $("browse");
  const shown = box.dataset.artist === artist ? box.querySelectorAll(".albums li") : [];
  const cards = new Map([...shown].map((item) => [item.dataset.album, item]));
  const grid = element("ul", undefined, "albums");
  for (const [album, tracks] of byAlbum) {
    let item = cards.get(album);
    if (!item) {
      const card = button("", () => openAlbum(album), "album");
      const cover = element("img");
      cover.alt = "";
      cover.loading = "lazy";
      cover.src = "/api/cover?file=" + encodeURIComponent(tracks[0].file);
      // An album without a picture: the note in its place (a failed image would show as broken).
      cover.addEventListener("error", () => cover.replaceWith(element("span", "♪", "cover")));
      const name = element("span", album || "—");
      name.dir = "auto";
      card.append(cover, name);
      item = element("li");
      item.dataset.album = album;
      item.append(card);
    }
    grid.append(item);
  }
  box.replaceChildren(compose("h2", undefined, data(artist)), grid);
  box.dataset.artist = artist;
  view = () => albums(artist, open);
  if (open !== null && byAlbum.has(open)) openAlbum(open);
  else clearSongs();
}

async function folder(path) {
  const entries = await run("lsinfo", ...(path ? [path] : []));
  if (entries === null) return;
  view = () => folder(path);
  const folders = entries.filter((entry) => entry.directory).map((entry) => [entry.directory.split("/").pop(), entry.directory]);
  if (path) folders.unshift(["..", path.split("/").slice(0, -1).join("/")]);
  showChoices(folders, folder);
  $("browse").prepend(compose("h2", undefined, data("/" + (path ?? ""))));
  // Its songs (a folder of folders has none, which is no "No results").
  const songs = entries.filter((entry) => entry.file);
  if (songs.length) showSongs(songs);
}

// The view read again, where the reader was on the page.
const showAgain = coalesced(async () => {
  if (!view) return;
  if ($("page-library").hidden) { stale = true; return; }
  stale = false;
  const { scrollX, scrollY } = window;
  await view();
  window.scrollTo(scrollX, scrollY);
});

export function refresh() {
  if (stale) showAgain();
}

export function onEvent(event) {
  // A rescan that changed nothing (`update` of an unchanged folder) changes nothing shown.
  if (event.type === "library_updated" && (event.added || event.changed || event.removed)) showAgain();
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
