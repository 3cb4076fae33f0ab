// The page's language: `?lang=xx`, else the one chosen before, else the browser's; its words
// from the daemon's message catalogs (the CLI's), and its direction (right-to-left for Hebrew).
let messages = {};

export function t(english) {
  return messages[english] ?? english;
}

export async function loadLanguage() {
  const asked = new URLSearchParams(location.search).get("lang");
  if (asked) localStorage.setItem("songbox.lang", asked);
  const language = asked ?? localStorage.getItem("songbox.lang") ?? navigator.language ?? "en";
  try {
    const answer = await fetch("/api/messages?lang=" + encodeURIComponent(language));
    const catalog = await answer.json();
    messages = catalog.messages ?? {};
    document.documentElement.lang = catalog.language;
    document.documentElement.dir = catalog.direction;
  } catch {
    messages = {};
  }
  translate(document);
}

// Every element marked with its English words gets them in the page's language.
export function translate(root) {
  for (const element of root.querySelectorAll("[data-t]")) element.textContent = t(element.dataset.t);
  for (const element of root.querySelectorAll("[data-t-minutes]")) element.textContent = element.dataset.tMinutes + " " + t("min");
  for (const element of root.querySelectorAll("[data-t-placeholder]")) element.placeholder = t(element.dataset.tPlaceholder);
  for (const element of root.querySelectorAll("[data-t-label]")) {
    element.setAttribute("aria-label", t(element.dataset.tLabel));
    element.title = t(element.dataset.tLabel);
  }
}
