// The plugins: autoplay's settings (`autoplaysettings`, `autoplayset`), each plugin's state, its
// errors and the last one (with its file:line), its last log lines (`pluginlog`), and enable,
// disable, reload.
import { run, command, element, compose, data, button, notify } from "./api.js";
import { t } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const from = { default: "default", config: "from the config", page: "set here" };
// Each setting as a person reads it (docs/autoplay.md); its config key (plugin.autoplay.KEY, the
// name its errors use) beside it. A setting not named here shows its key alone.
const labels = {
  ahead: "Tracks ahead", keep_played: "Played tracks kept", window: "Plays before a track again",
  artist_cooldown: "Tracks before an artist again", album_cooldown: "Tracks before an album again",
  avoid_rating: "Never rated this or lower", liked_weight: "A liked track's weight", skip_weight: "A skip's weight",
  playlist: "From a playlist", query: "From a query", similar: "Similar tracks",
};

// Each setting as the plugin checks it: a number within its bounds, a switch, or text (emptied:
// the config's again). A value it refuses is said in the notice line and the kept one shown.
async function showAutoplay(plugins) {
  let settings = null;
  // Asked only of a running autoplay plugin (there are none to show otherwise).
  if (plugins.some((plugin) => plugin.plugin === "autoplay" && plugin.status === "running")) {
    try {
      settings = await command("autoplaysettings");
    } catch {
      settings = null;  // it has not said them yet
    }
  }
  $("autoplay-settings").hidden = !settings;
  const form = $("autoplay-form");
  form.replaceChildren();
  for (const setting of settings ?? []) {
    const input = element("input");
    input.name = setting.setting;
    if (setting.kind === "flag") {
      input.type = "checkbox";
      input.checked = setting.value === "true";
    } else {
      input.type = setting.kind === "whole" ? "number" : "text";
      if (setting.kind === "whole") Object.assign(input, { min: setting.low, max: setting.high });
      input.value = setting.value;
      input.placeholder = setting.default ?? "";
      // A playlist's name or a query: in the direction of its own letters.
      if (input.type === "text") input.dir = "auto";
    }
    input.addEventListener("change", async () => {
      const value = input.type === "checkbox" ? String(input.checked) : input.value.trim();
      if ((await run("autoplayset", setting.setting, value)) === null) {
        if (input.type === "checkbox") input.checked = setting.value === "true"; else input.value = setting.value;
        return;
      }
      notify(t("Done"));
      setting.value = value;
    });
    const label = element("label", undefined, setting.kind === "flag" ? "check" : "");
    const key = data(setting.setting);
    key.dir = "ltr";
    const name = compose("span", undefined, labels[setting.setting] ? t(labels[setting.setting]) : key,
      compose("small", undefined, ...(labels[setting.setting] ? [key, " · "] : [" · "]), t(from[setting.from] ?? setting.from)));
    if (setting.kind === "flag") label.append(input, name); else label.append(name, input);
    form.append(label);
  }
}

export async function refresh() {
  const plugins = (await run("plugins")) ?? [];
  await showAutoplay(plugins);
  const list = $("plugins-list");
  list.replaceChildren();
  for (const plugin of plugins) {
    const item = element("li");
    item.append(compose("h2", undefined, data(plugin.plugin)));
    item.append(element("p", t(plugin.status) + " · " + t("Errors") + ": " + plugin.errors));
    if (plugin.error) item.append(compose("p", "error", data(plugin.error)));
    const lines = (await run("pluginlog", plugin.plugin)) ?? [];
    if (lines.length) {
      const log = element("ol", undefined, "log");
      for (const line of lines.slice(-8)) {
        // Its file:line (a path: left to right), its words in their own direction.
        const where = line.where && data(line.where + " ");
        if (where) { where.dir = "ltr"; where.className = "where"; }
        const entry = compose("li", line.level, where, data(line.line));
        log.append(entry);
      }
      item.append(log);
    }
    const after = () => refresh();
    const row = element("div", undefined, "row");
    row.append(
      button(t("Enable"), () => run("pluginenable", plugin.plugin).then(after), "enable"),
      button(t("Disable"), () => run("plugindisable", plugin.plugin).then(after), "disable"),
      button(t("Reload"), () => run("pluginreload", plugin.plugin).then(after), "reload"),
    );
    item.append(row);
    list.append(item);
  }
}
