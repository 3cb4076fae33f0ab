// The saved playlists: each loaded into the queue.
import { run, element, button, notify } from "./api.js";
import { t } from "./i18n.js";

const $ = (id) => document.getElementById(id);

export async function refresh() {
  const playlists = (await run("listplaylists")) ?? [];
  const list = $("playlists-list");
  list.replaceChildren();
  for (const playlist of playlists) {
    const item = element("li");
    item.append(element("span", playlist.playlist, "name"));
    item.append(button(t("Load"), async () => {
      if ((await run("load", playlist.playlist)) !== null) notify(t("Done"));
    }, "load"));
    list.append(item);
  }
  $("playlists-none").hidden = playlists.length > 0;
}
