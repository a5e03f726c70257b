/* The referee's camera buttons in the status bar, shown only where the table has a camera
   (.needs-camera: the clock reading says so, common.js):
   - "recalibrate camera" (issue #27): exposure, white balance and focus converge afresh, the table's
     corner markers are fitted again, and the controls are locked once both are done
     (POST /api/tables/<t>/camera/recalibrate);
   - "new deck: learn afresh": a different deck was brought to the table; the reader forgets what it
     learned of the old one in play, kept over a restart too (POST /api/tables/<t>/camera/relearn).
   docs/api.md, table_service/web/camera.py. A refusal says why — the server's own words (a
   logged-out session, a table without a camera…), never a guess. */
(function () {
  "use strict";
  const app = document.getElementById("app");
  if (!app || !["referee", "chief"].includes(app.dataset.role)) return;
  const bar = document.querySelector(".statusbar");
  if (!bar) return;
  const base = "/api/tables/" + encodeURIComponent(app.dataset.table) + "/camera/";

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

  /* One button: confirm, post, say what came of it on the button for a few seconds. */
  function cameraButton(id, action, label, confirmText, doneText) {
    const button = document.createElement("button");
    button.type = "button";
    button.id = id;
    button.className = id + " needs-camera";
    button.dataset.i18n = label;
    button.textContent = GT.t(label);
    let resetTimer = null;
    function say(text, ok) {
      button.textContent = text;
      button.dataset.result = ok ? "ok" : "error";
      if (!ok) GT.toast(text, false);
      clearTimeout(resetTimer);
      resetTimer = setTimeout(function () {
        button.disabled = false;
        button.textContent = GT.t(label);
        delete button.dataset.result;
      }, ok ? 3000 : 6000);
    }
    button.addEventListener("click", async function () {
      if (!window.confirm(GT.t(confirmText))) return;
      button.disabled = true;
      let r;
      try { r = await GT.post(base + action, {}); } catch (e) { say(GT.t("cannot_reach"), false); return; }
      if (r.ok) say(GT.t(doneText), true);
      else say(await refusal(r.status, r.json), false);
    });
    bar.appendChild(button);
  }
  cameraButton("camera-recalibrate", "recalibrate", "recalibrate", "recalibrate_confirm", "recalibrating");
  cameraButton("camera-relearn", "relearn", "relearn", "relearn_confirm", "relearned");
})();
