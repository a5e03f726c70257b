// The hub's assignment on the referee panel: a card in #assignment and a one-tap start.
(function () {
  "use strict";
  var box = document.getElementById("assignment");
  var app = document.getElementById("app");
  if (!box || !app) return;
  var table = app.dataset.table;
  // Own look, so the panel's stylesheet (another room) needs no change. A linked file, not an
  // inline style element: the Content-Security-Policy allows styles from this server only.
  var css = document.createElement("link");
  css.rel = "stylesheet";
  css.href = "/static/assignment.css";
  document.head.appendChild(css);
  var url = "/api/tables/" + encodeURIComponent(table) + "/assignment";
  function esc(s) { return String(s == null ? "" : s).replace(/[&<>"']/g, function (c) {
    return {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]; }); }
  function csrf() { var m = document.querySelector('meta[name="csrf-token"]'); return m ? m.content : ""; }
  function fmt(f) {
    if (!f) return "";
    if (f.kind === "deals") return f.deals + " 副 / deals";
    if (f.kind === "time") return f.minutes + " 分钟 / min";
    return "打过A / to past A";
  }
  function render(d) {
    var a = d.assignment;
    if (!d.hub) { box.hidden = true; return; }
    box.hidden = false;
    if (!a) { box.innerHTML = '<div class="assign-card muted">等待赛事中心编排 / waiting for the hub\'s assignment</div>'; return; }
    var tn = a.team_names || {};
    var ack = d.result_ack ? '<div class="assign-ack">成绩 / result: ' + esc(d.result_ack.status) +
      (d.result_ack.reason ? " — " + esc(d.result_ack.reason) : "") + "</div>" : "";
    box.innerHTML = '<div class="assign-card" id="assign-card">' +
      "<b>" + esc(a.event_name || a.event) + " · 第 " + a.round + " 轮 / round " + a.round + " · " + esc(a.table) + " 号桌 / table</b>" +
      "<div>南北 NS: " + esc(tn.NS || a.teams.NS) + " — 北 N " + esc(a.players.N) + " · 南 S " + esc(a.players.S) + "</div>" +
      "<div>东西 EW: " + esc(tn.EW || a.teams.EW) + " — 东 E " + esc(a.players.E) + " · 西 W " + esc(a.players.W) + "</div>" +
      '<div class="muted">' + esc(a.ruleset.preset) + " · " + esc(fmt(a.format)) + "</div>" +
      (d.started ? '<div class="assign-started">已开始 / started</div>'
        : '<button type="button" id="assign-start">按编排开始本轮 / Start this round</button>') +
      '<div id="assign-msg" role="status"></div>' + ack + "</div>";
    var btn = document.getElementById("assign-start");
    if (btn) btn.onclick = function () {
      btn.disabled = true;
      fetch(url + "/start", {method: "POST", credentials: "same-origin",
        headers: {"Content-Type": "application/json", "X-CSRF-Token": csrf(), Accept: "application/json"}, body: "{}"})
        .then(function (r) { return r.json().then(function (j) { return [r.ok, j]; }); })
        .then(function (x) {
          document.getElementById("assign-msg").textContent = x[0] ? "已开始 / started" : (x[1].error || "错误 / error");
          load();
        }).catch(function () { btn.disabled = false; });
    };
  }
  function load() {
    fetch(url, {headers: {Accept: "application/json"}, credentials: "same-origin"})
      .then(function (r) { return r.ok ? r.json() : null; }).then(function (d) { if (d) render(d); })
      .catch(function () {});
  }
  load();
  setInterval(load, 5000);
})();
