// The login page: the password, then the app.
import { loadLanguage, t } from "./i18n.js";

await loadLanguage();
const form = document.getElementById("login");
const notice = document.getElementById("notice");
form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const response = await fetch("/api/login", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ password: document.getElementById("login-password").value }),
  });
  if (response.ok) {
    location.href = "/";
    return;
  }
  notice.textContent = t(response.status === 429 ? "Too many attempts: wait a little" : "Wrong password");
  notice.hidden = false;
});
