// The playlists: the saved and smart ones, each loaded into the queue; a smart playlist made
// by typing its query, with the songs it finds shown as it is typed (`query`), kept with
// `smartsave`.
import { get, run, songLabel, element, compose, data, button, notify, coalesced } from "./api.js";
import { t } from "./i18n.js";

const $ = (id) => document.getElementById(id);

export async function refresh() {
  const playlists = (await run("listplaylists")) ?? [];
  const list = $("playlists-list");
  list.replaceChildren();
  for (const playlist of playlists) {
    const item = element("li");
    item.append(compose("span", "name", data(playlist.playlist)));
    item.append(button(t("Load"), async () => {
      if ((await run("load", playlist.playlist)) !== null) notify(t("Done"));
    }, "load"));
    list.append(item);
  }
  $("playlists-none").hidden = playlists.length > 0;
  if ($("smart-query").value.trim()) preview();
}

// What the query finds now (its first 20), or why it cannot be read.
let asked = 0;
async function preview() {
  const query = $("smart-query").value.trim();
  const mine = ++asked;
  const list = $("smart-preview");
  const said = $("smart-said");
  if (!query) { list.replaceChildren(); said.textContent = ""; return; }
  let songs;
  try {
    ({ songs } = await get("/api/search?window=0:20&q=" + encodeURIComponent(query)));
  } catch (error) {
    if (mine !== asked) return;
    list.replaceChildren();
    said.textContent = error.message;
    said.classList.add("error");
    return;
  }
  // An answer to a query typed over since is not shown.
  if (mine !== asked) return;
  said.classList.remove("error");
  said.textContent = songs.length ? "" : t("No results");
  list.replaceChildren(...songs.map((song) => compose("li", undefined, songLabel(song))));
  list.dataset.query = query;
}

// The preview follows the library: a rescan's new, changed or removed songs.
const previewAgain = coalesced(preview);
export function onEvent(event) {
  if (event.type === "library_updated" && (event.added || event.changed || event.removed) && !$("page-playlists").hidden) previewAgain();
}

export function setUp() {
  let timer;
  $("smart-query").addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(preview, 250); });
  $("smart-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const saved = await run("smartsave", $("smart-name").value.trim(), $("smart-query").value.trim());
    if (saved === null) return;
    notify(t("Done") + ": " + saved[0].playlist + " (" + saved[0].tracks + ")");
    refresh();
  });
}
