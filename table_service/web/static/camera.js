/* The referee's "recalibrate camera" button in the status bar (issue #27): exposure, white balance
   and focus converge afresh, the table's corner markers are fitted again, and the controls are
   locked once both are done. API: POST /api/tables/<t>/camera/recalibrate (docs/api.md,
   table_service/web/camera.py). Shown only where the table has a camera (.needs-camera: the clock
   reading says so, common.js). A refusal says why — the server's own words (a logged-out session,
   a table without a camera…), never a guess. */
(function () {
  "use strict";
  const app = document.getElementById("app");
  if (!app || !["referee", "chief"].includes(app.dataset.role)) return;
  const bar = document.querySelector(".statusbar");
  if (!bar) return;
  const url = "/api/tables/" + encodeURIComponent(app.dataset.table) + "/camera/recalibrate";
  const button = document.createElement("button");
  button.type = "button";
  button.id = "camera-recalibrate";
  button.className = "camera-recalibrate needs-camera";
  button.dataset.i18n = "recalibrate";
  button.textContent = GT.t("recalibrate");
  let resetTimer = null;
  function say(text, ok) {
    button.textContent = text;
    button.dataset.result = ok ? "ok" : "error";
    if (!ok) GT.toast(text, false);
    clearTimeout(resetTimer);
    resetTimer = setTimeout(function () {
      button.disabled = false;
      button.textContent = GT.t("recalibrate");
      delete button.dataset.result;
    }, ok ? 3000 : 6000);
  }
  /* Why the server refused, in the view's language. A session that has ended answers 401, or
     400 for its CSRF token (checked first): whoami tells which. */
  async function refusal(status, json) {
    let user = null;
    try {
      const w = await fetch("/auth/whoami", { credentials: "same-origin", headers: { Accept: "application/json" } });
      user = w.ok ? (await w.json()).user : null;
    } catch (e) { user = null; }
    if (status === 401 || !user) return GT.t("session_expired");
    const msg = json && json.error ? GT.bi(json.error) : "";
    return msg || GT.t("error") + " " + status;
  }
  button.addEventListener("click", async function () {
    if (!window.confirm(GT.t("recalibrate_confirm"))) return;
    button.disabled = true;
    let r;
    try { r = await GT.post(url, {}); } catch (e) { say(GT.t("cannot_reach"), false); return; }
    if (r.ok) say(GT.t("recalibrating"), true);
    else say(await refusal(r.status, r.json), false);
  });
  bar.appendChild(button);
})();
