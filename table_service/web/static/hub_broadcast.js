// 直播 / Broadcast page: a tap copies a table's overlay or feed address (for OBS); the find box
// keeps the tables whose number starts with what is typed or whose teams' names hold it (16 rows
// were 2,800 px at 1024); each table's status, delay and hold follow the hub (/hub/api/broadcast,
// polled every 5 s, ?poll_s=N), so a producer sees a table drop off while the page is open.
// The page is plain HTTP on the venue network, where navigator.clipboard is not offered: then the
// address is copied through a selected text field, and left selected for a long press if that fails too.
(function () {
  "use strict";
  var root = document.getElementById("broadcast");
  var params = new URLSearchParams(location.search);
  var POLL_MS = Math.max(0.2, Number(params.get("poll_s")) || 5) * 1000;

  function copied(btn, ok) {
    var was = btn.textContent;
    btn.textContent = ok ? "已复制 / Copied" : "请长按复制 / Press and hold to copy";
    setTimeout(function () { btn.textContent = was; }, 1500);
  }
  function fallback(btn, text) {
    var field = document.createElement("textarea");
    field.value = text;
    field.setAttribute("readonly", "");
    field.className = "copy-field";
    btn.parentNode.insertBefore(field, btn.nextSibling);
    field.select();
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    if (ok) field.parentNode.removeChild(field);
    copied(btn, ok);
  }
  document.addEventListener("click", function (e) {
    if (e.target.id === "bc-reload") { location.reload(); return; }
    var btn = e.target.closest && e.target.closest("button.copy");
    if (!btn) return;
    var text = btn.dataset.copy;
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { copied(btn, true); },
                                               function () { fallback(btn, text); });
    } else {
      fallback(btn, text);
    }
  });

  var table = document.getElementById("broadcast-tables");
  if (!root || !table) return;
  var rows = Array.prototype.slice.call(table.querySelectorAll("tbody tr[data-table]"));
  var find = document.getElementById("bc-find");
  var count = document.getElementById("bc-count");

  /* --- find: a table number's start, or part of a team's name (case does not matter) */
  function filter() {
    var q = (find.value || "").trim().toLowerCase();
    var shown = 0;
    rows.forEach(function (tr) {
      var hit = !q || tr.dataset.table.toLowerCase().indexOf(q) === 0 || tr.dataset.teams.toLowerCase().indexOf(q) >= 0;
      tr.hidden = !hit;
      if (hit) shown += 1;
    });
    count.textContent = q ? "显示 " + shown + " / " + rows.length + " 桌 / " + shown + " of " + rows.length + " tables" : "";
    document.getElementById("bc-none-found").hidden = shown > 0;
    find.classList.toggle("nomatch", shown === 0);
  }
  find.addEventListener("input", filter);

  /* --- live status: the hub's `connected` in the overview's words (window.HubText, hub_board.js, as
     hub_link.html drew them), written only when they change */
  var HT = window.HubText;
  function setStatus(td, t) {
    var key = HT.linkState(t);
    if (td.dataset.link === key) return;
    td.dataset.link = key;
    td.textContent = HT.link(t);
  }
  function setDelay(td, delay, holds) {
    var known = delay !== null && delay !== undefined;
    var key = (known ? String(delay) : "") + "|" + (holds ? "1" : "0");
    if (td.dataset.delay + "|" + td.dataset.holds === key) return;
    td.dataset.delay = known ? String(delay) : "";
    td.dataset.holds = holds ? "1" : "0";
    td.replaceChildren();
    var span = document.createElement("span");
    if (!known) { span.className = "muted"; span.textContent = "延时未知 / delay unknown"; }
    else if (delay > 0) span.textContent = "延时 " + delay + " 秒 / " + delay + " s";
    else { span.className = "warn"; span.textContent = "无延时 / no delay"; }
    td.appendChild(span);
    if (holds) {
      td.appendChild(document.createElement("br"));
      var h = document.createElement("span");
      h.className = "bc-holds";
      h.textContent = "复式：各副公开前须放行 / duplicate: deals held until released";
      td.appendChild(h);
    }
  }
  var byId = {};
  rows.forEach(function (tr) { byId[tr.dataset.table] = tr; });
  var failures = 0;
  function poll() {
    fetch(root.dataset.src, { credentials: "same-origin", cache: "no-store", headers: { Accept: "application/json" } })
      .then(function (r) { if (!r.ok) throw new Error(String(r.status)); return r.json(); })
      .then(function (j) {
        failures = 0;
        document.getElementById("bc-stale").hidden = true;
        var seen = {};
        (j.tables || []).forEach(function (t) {
          seen[t.table] = true;
          var tr = byId[t.table];
          if (!tr) return;
          setStatus(tr.querySelector(".bc-status"), t);
          setDelay(tr.querySelector(".bc-delay"), t.delay_s, t.holds);
        });
        var changed = (j.tables || []).length !== rows.length || rows.some(function (tr) { return !seen[tr.dataset.table]; });
        document.getElementById("bc-changed").hidden = !changed;
        root.dataset.polled = String(Number(root.dataset.polled || 0) + 1);
      })
      .catch(function () {
        failures += 1;
        if (failures >= 3) document.getElementById("bc-stale").hidden = false;
      });
  }
  setInterval(poll, POLL_MS);
})();
