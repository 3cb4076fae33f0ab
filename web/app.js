// songbox's web app: the pages, the tabs, and the one event stream every page follows.
import { loadLanguage, t } from "./i18n.js";
import { notify } from "./api.js";
import * as now from "./now.js";
import * as queue from "./queue.js";
import * as library from "./library.js";
import * as playlists from "./playlists.js";
import * as plugins from "./plugins.js";
import * as alarms from "./alarms.js";
import * as stats from "./stats.js";
import * as moods from "./moods.js";

const pages = { now, queue, library, playlists, moods, alarms, stats, plugins };

function showPage() {
  const name = location.hash.slice(1) in pages ? location.hash.slice(1) : "now";
  for (const page of Object.keys(pages)) document.getElementById("page-" + page).hidden = page !== name;
  for (const tab of document.querySelectorAll("#tabs a")) {
    if (tab.hash === "#" + name) {
      tab.setAttribute("aria-current", "page");
      // On a phone the tabs are wider than the screen: the page's own is in sight.
      tab.scrollIntoView({ block: "nearest", inline: "nearest" });
    }
    else tab.removeAttribute("aria-current");
  }
  pages[name].refresh?.();
}

function listen() {
  const events = new EventSource("/api/events");
  events.addEventListener("open", () => {
    notify("");
    document.body.dataset.live = "yes";
    // What changed while the stream was away.
    now.refresh();
    if (!document.getElementById("page-queue").hidden) queue.refresh();
  });
  events.addEventListener("message", (message) => {
    const event = JSON.parse(message.data);
    now.onEvent(event);
    alarms.onEvent(event);
    library.onEvent(event);
    playlists.onEvent(event);
    if (!document.getElementById("page-queue").hidden) queue.onEvent(event);
    if (!document.getElementById("page-stats").hidden) stats.onEvent(event);
  });
  events.addEventListener("error", () => {
    document.body.dataset.live = "no";
    notify(t("Offline: reconnecting"), true);
  });
}

await loadLanguage();
for (const page of Object.values(pages)) page.setUp?.();
window.addEventListener("hashchange", showPage);
showPage();
listen();
