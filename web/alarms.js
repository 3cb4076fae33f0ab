// The alarms: the list (`alarms`), the form that adds or changes one (`alarmsave`, the JSON of
// `songbox alarm ls --json`), an alarm's test timeline (`alarmtest`), and snooze and dismiss
// while one sounds (`sendmessage alarm ...`).
import { run, element, compose, data, ltr, button, notify } from "./api.js";
import { t } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const svg = (tag, attributes) => {
  const made = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [key, value] of Object.entries(attributes)) made.setAttribute(key, value);
  return made;
};
const days = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];
const sources = ["query", "playlist", "mood"];

export async function refresh() {
  const alarms = (await run("alarms")) ?? [];
  const list = $("alarms-list");
  list.replaceChildren();
  for (const alarm of alarms) {
    const item = element("li");
    item.dataset.name = alarm.alarm;
    const name = compose("span", "name", data(alarm.alarm), " · ", ...whenText(alarm.when));
    const what = sources.find((key) => alarm[key] !== undefined);
    const details = [what ? [t(what) + ": ", data(alarm[what])] : [t("the whole library, shuffled")],
      [ltr(alarm.start_volume + "→" + alarm.volume)]];
    if (Number(alarm.fade) > 0) details.push([ltr(String(Math.round(alarm.fade / 60))), " " + t("min")]);
    if (alarm.next) details.unshift([t("next") + " ", ltr(alarm.next.slice(0, 16).replace("T", " "))]);
    name.append(compose("small", undefined, ...details.flatMap((parts, index) => (index ? [" · ", ...parts] : parts))));
    item.append(name);
    const enabled = element("input");
    enabled.type = "checkbox";
    enabled.checked = alarm.enabled === "1";
    enabled.setAttribute("aria-label", t("Enabled"));
    enabled.addEventListener("change", () => save({ ...record(alarm), enabled: enabled.checked }));
    const remove = button("✕", async () => { if ((await run("alarmrm", alarm.alarm)) !== null) refresh(); }, "remove");
    remove.setAttribute("aria-label", t("Remove"));
    item.append(enabled, button(t("Test"), () => test(alarm.alarm), "test"), button(t("Edit"), () => edit(alarm), "edit"), remove);
    list.append(item);
  }
  $("alarms-none").hidden = alarms.length > 0;
  showSounding(alarms.find((alarm) => alarm.state) ?? null);
}

// An alarm record as `alarmsave` takes it back: its keys, numbers as numbers.
function record(alarm) {
  const kept = { name: alarm.alarm, when: alarm.when, curve: alarm.curve, enabled: alarm.enabled === "1" };
  for (const key of ["start_volume", "volume", "fade", "snooze", "timeout", "grace"]) kept[key] = Number(alarm[key]);
  for (const key of sources) if (alarm[key] !== undefined) kept[key] = alarm[key];
  return kept;
}

async function save(alarm) {
  if ((await run("alarmsave", JSON.stringify(alarm))) === null) return false;
  notify(t("Done"));
  refresh();
  return true;
}

// The form filled with an alarm (or the defaults of a new one).
function edit(alarm) {
  const form = $("alarm-form");
  const when = (alarm?.when ?? "07:00").split(" ");
  const time = when.find((part) => /^\d\d?:\d\d/.test(part)) ?? "07:00";
  const date = when.find((part) => /^\d{4}-\d\d-\d\d$/.test(part));
  const dayPart = when.find((part) => part !== time && part !== date && /^[a-z,-]+$/.test(part));
  // A time zone the alarm names (Europe/London) is kept as it is: the form does not show it.
  form.dataset.zone = when.find((part) => part !== time && part !== date && part !== dayPart) ?? "";
  // So are whether it is on and its grace.
  form.dataset.enabled = alarm?.enabled ?? "1";
  form.dataset.grace = alarm?.grace ?? "600";
  form.elements.name.value = alarm?.alarm ?? "";
  form.elements.time.value = time.slice(0, 5).padStart(5, "0");
  form.elements.date.value = date ?? "";
  form.elements.once.checked = Boolean(date);
  const chosen = expandDays(dayPart);
  for (const day of days) form.elements["day-" + day].checked = chosen.includes(day);
  const what = sources.find((key) => alarm?.[key] !== undefined) ?? "all";
  form.elements.source.value = what;
  form.elements.source_value.value = what === "all" ? "" : alarm[what];
  form.elements.start_volume.value = alarm?.start_volume ?? 0;
  form.elements.volume.value = alarm?.volume ?? 80;
  form.elements.fade.value = Math.round(Number(alarm?.fade ?? 0) / 60);
  form.elements.curve.value = alarm?.curve ?? "linear";
  form.elements.snooze.value = Math.round(Number(alarm?.snooze ?? 540) / 60);
  form.elements.timeout.value = Math.round(Number(alarm?.timeout ?? 3600) / 60);
  form.hidden = false;
  showWhen();
  drawCurve();
  form.elements.name.focus();
}

// `mon-fri`, `sat,sun`, `weekdays`, `weekends`, `daily` (or none: every day) as day names.
function expandDays(spec) {
  if (!spec || spec === "daily") return days;
  if (spec === "weekdays") return days.slice(0, 5);
  if (spec === "weekends") return days.slice(5);
  return spec.split(",").flatMap((part) => {
    const [from, to] = part.split("-").map((day) => days.indexOf(day));
    if (to === undefined) return [days[from]];
    const span = [];
    for (let day = from; ; day = (day + 1) % 7) { span.push(days[day]); if (day === to || span.length > 7) break; }
    return span;
  });
}

// An alarm's `when` as the page's words: its days (translated) or its date, and its time.
function whenText(when) {
  return when.split(" ").flatMap((part, index) => {
    const chosen = /^[a-z,-]+$/.test(part) ? expandDays(part).filter(Boolean) : [];
    const named = chosen.length === 7 ? t("Every day") : dayRuns(chosen).join(", ");
    return [index ? " " : "", named || ltr(part)];
  });
}

// Days as runs: three or more in a row as one (Mon–Fri), each in the page's words.
function dayRuns(chosen) {
  const name = (day) => t(day[0].toUpperCase() + day.slice(1));
  const runs = [];
  for (const day of days.filter((day) => chosen.includes(day))) {
    const last = runs.at(-1);
    if (last && days.indexOf(day) === days.indexOf(last.at(-1)) + 1) last.push(day);
    else runs.push([day]);
  }
  return runs.flatMap((run) => (run.length >= 3 ? [name(run[0]) + "–" + name(run.at(-1))] : run.map(name)));
}

function formAlarm() {
  const form = $("alarm-form").elements;
  const chosen = days.filter((day) => form["day-" + day].checked);
  const spec = form.once.checked ? form.date.value : chosen.length === 7 || chosen.length === 0 ? "" : chosen.join(",");
  const alarm = {
    name: form.name.value.trim(), when: [spec, form.time.value, $("alarm-form").dataset.zone].filter(Boolean).join(" "),
    start_volume: Number(form.start_volume.value), volume: Number(form.volume.value),
    fade: Number(form.fade.value) * 60, curve: form.curve.value,
    snooze: Number(form.snooze.value) * 60, timeout: Number(form.timeout.value) * 60,
    enabled: $("alarm-form").dataset.enabled === "1", grace: Number($("alarm-form").dataset.grace),
  };
  if (form.source.value !== "all" && form.source_value.value.trim()) alarm[form.source.value] = form.source_value.value.trim();
  return alarm;
}

function showWhen() {
  const form = $("alarm-form").elements;
  $("alarm-days").hidden = form.once.checked;
  form.date.hidden = !form.once.checked;
  form.source_value.hidden = form.source.value === "all";
}

// The fade drawn as the player makes it (SongboxAudio's `Gain.volume`): linear in volume, or
// the same number of decibels each second (log), from the start volume to the target.
function drawCurve() {
  const form = $("alarm-form").elements;
  const from = Number(form.start_volume.value), to = Number(form.volume.value);
  const log = form.curve.value === "log";
  const decibels = (volume) => (volume <= 0 ? -60 : Math.max(-60, 20 * Math.log10(volume / 100)));
  const at = (fraction) => {
    if (!log) return from + (to - from) * fraction;
    if (fraction >= 1) return to;
    const level = Math.pow(10, (decibels(from) + (decibels(to) - decibels(from)) * fraction) / 20) * 100;
    return level <= 0.1 ? 0 : level;
  };
  const points = [];
  for (let step = 0; step <= 50; step++) points.push(step * 4 + "," + (100 - at(step / 50)).toFixed(1));
  const curve = $("alarm-curve");
  curve.replaceChildren(
    svg("rect", { x: 0, y: 0, width: 200, height: 100, class: "frame" }),
    svg("polyline", { points: points.join(" "), class: "line" }),
  );
  $("alarm-curve-label").replaceChildren(...(Number(form.fade.value) > 0
    ? [ltr(from + " → " + to), " · ", ltr(form.fade.value), " " + t("min") + " · " + t(log ? "log" : "linear")] : [t("No fade: the volume at once")]));
}

// The alarm's timeline on the fast clock (`alarmtest`, what `songbox alarm test` prints): a row
// each moment, the volume drawn over the time.
async function test(name) {
  const panel = $("alarm-test");
  panel.hidden = false;
  panel.dataset.name = name;
  panel.removeAttribute("data-done");
  $("alarm-test-title").replaceChildren(t("Test") + ": ", data(name));
  $("alarm-test-note").textContent = t("Running on the fast clock…");
  $("alarm-test-rows").tBodies[0].replaceChildren();
  $("alarm-test-curve").replaceChildren();
  const rows = await run("alarmtest", name);
  if (panel.dataset.name !== name) return;
  $("alarm-test-note").textContent = rows === null ? "" : t("On a copy of the library: nothing is played or counted.");
  for (const row of rows ?? []) {
    const line = element("tr");
    line.dataset.kind = row.kind;
    line.append(compose("td", undefined, ltr(row.t), " " + t("sec")), compose("td", undefined, ...happened(row)),
      compose("td", undefined, ltr(row.volume)));
    $("alarm-test-rows").tBodies[0].append(line);
  }
  drawTimeline(rows ?? []);
  panel.dataset.done = "yes";
  panel.scrollIntoView({ block: "start" });
}

// The plugin's words for a moment (its kind, an alarm's phase, where it fell back to), in the
// page's language; what comes from outside (a file, what was said, why) as it is.
const timelineWords = new Set(["alarm", "volume", "track", "check", "say", "sounding", "snoozed", "dismissed", "timeout",
  "failed", "fallback", "missed", "scheduled", "the alarm tone"]);
const timelineWord = (word) => (timelineWords.has(word) ? t(word) : data(word));

// What happened, as `songbox alarm test` says it after the kind (`AlarmTest.Entry.details`).
function happened(row) {
  const parts = [timelineWord(row.kind)];
  if (row.phase) parts.push(" ", timelineWord(row.phase));
  if (row.to) parts.push(" " + t("to") + " ", timelineWord(row.to));
  if (row.track) parts.push(" ", data(row.track));
  if (row.times) parts.push(" ", ltr("(x" + row.times + ")"));
  if (row.said) parts.push(" ", data(row.said));
  if (row.why) parts.push(" (", data(row.why), ")");
  if (row.ok === "1") parts.push(" " + t("audio flows"));
  return parts;
}

function drawTimeline(rows) {
  const end = Math.max(1, ...rows.map((row) => Number(row.t)));
  const points = rows.map((row) => (Number(row.t) / end * 200).toFixed(1) + "," + (100 - Number(row.volume)).toFixed(1));
  $("alarm-test-curve").replaceChildren(
    svg("rect", { x: 0, y: 0, width: 200, height: 100, class: "frame" }),
    svg("polyline", { points: points.join(" "), class: "line" }),
  );
}

// The big buttons while an alarm sounds (on every page), the smaller text while it is snoozed.
function showSounding(alarm) {
  const banner = $("alarm-sounding");
  banner.hidden = !alarm;
  if (!alarm) return;
  $("alarm-sounding-name").replaceChildren((alarm.state === "snoozed" ? t("Snoozed") : t("Alarm")) + ": ", data(alarm.alarm));
  $("alarm-snooze").hidden = alarm.state !== "sounding";
}

export function onEvent(event) {
  if (event.type !== "alarm") return;
  if (["sounding", "snoozed"].includes(event.phase)) showSounding({ alarm: event.name, state: event.phase });
  if (["dismissed", "timeout", "failed"].includes(event.phase)) showSounding(null);
  if (!$("page-alarms").hidden) refresh();
}

export function setUp() {
  const form = $("alarm-form");
  $("alarm-new").addEventListener("click", () => edit(null));
  for (const type of ["input", "change"]) form.addEventListener(type, () => { showWhen(); drawCurve(); });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (await save(formAlarm())) form.hidden = true;
  });
  $("alarm-cancel").addEventListener("click", () => { form.hidden = true; });
  $("alarm-test-close").addEventListener("click", () => { $("alarm-test").hidden = true; delete $("alarm-test").dataset.name; });
  $("alarm-snooze").addEventListener("click", () => run("sendmessage", "alarm", "snooze"));
  $("alarm-dismiss").addEventListener("click", () => run("sendmessage", "alarm", "dismiss"));
  // Whether one sounds now (a page opened while it rings).
  refresh();
}
