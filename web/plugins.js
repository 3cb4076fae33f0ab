// The plugins: each one's state, its errors and the last one (with its file:line), its last
// log lines (`pluginlog`), and enable, disable, reload.
import { run, element, button } from "./api.js";
import { t } from "./i18n.js";

const $ = (id) => document.getElementById(id);

export async function refresh() {
  const plugins = (await run("plugins")) ?? [];
  const list = $("plugins-list");
  list.replaceChildren();
  for (const plugin of plugins) {
    const item = element("li");
    item.append(element("h2", plugin.plugin));
    item.append(element("p", plugin.status + " · " + t("Errors") + ": " + plugin.errors));
    if (plugin.error) item.append(element("p", plugin.error, "error"));
    const lines = (await run("pluginlog", plugin.plugin)) ?? [];
    if (lines.length) {
      const log = element("ol", undefined, "log");
      for (const line of lines.slice(-8)) {
        const entry = element("li", line.line, line.level);
        if (line.where) entry.prepend(element("span", line.where + " ", "where"));
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
