/* The referee's "recalibrate camera" button in the status bar (issue #27): exposure, white balance
   and focus converge afresh, the table's corner markers are fitted again, and the controls are
   locked once both are done. API: POST /api/tables/<t>/camera/recalibrate (docs/api.md,
   table_service/web/camera.py). Shown only where the table has a camera. */
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
  button.className = "camera-recalibrate";
  button.textContent = "重新标定摄像头 / Recalibrate camera";
  button.addEventListener("click", function () {
    if (!window.confirm("摄像头将重新对焦、测光并找桌角标记（约 2 秒）。继续？ / The camera will refocus, re-meter " +
                        "and find the table markers again (about 2 s). Go on?")) return;
    const csrf = document.querySelector('meta[name="csrf-token"]');
    button.disabled = true;
    fetch(url, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRF-Token": csrf ? csrf.content : "" },
      body: "{}",
    }).then(function (r) {
      button.textContent = r.ok ? "标定中… / Recalibrating…" : "此桌没有摄像头 / No camera";
      setTimeout(function () { button.disabled = false; button.textContent = "重新标定摄像头 / Recalibrate camera"; }, 3000);
    }).catch(function () { button.disabled = false; });
  });
  bar.appendChild(button);
})();
