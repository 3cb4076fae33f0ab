// The plugins: each one's state, its errors and the last one (with its file:line), its last
// log lines (`pluginlog`), and enable, disable, reload.
import { run, element, compose, data, button } from "./api.js";
import { t } from "./i18n.js";

const $ = (id) => document.getElementById(id);

export async function refresh() {
  const plugins = (await run("plugins")) ?? [];
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
