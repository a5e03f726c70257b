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
    if (f.kind === "deals") return GT.tf("fmt_deals_n", {n: f.deals});
    if (f.kind === "time") return GT.tf("fmt_minutes_n", {n: f.minutes});
    return GT.t("fmt_past_a");
  }
  /* A ruleset preset by its name in the view's language ("江苏 2013"), not its id ("jiangsu-2013"). */
  function presetName(p) { return window.I18N["hub_preset_" + p] ? GT.t("hub_preset_" + p) : String(p || ""); }
  /* The hub's answer to the table's result, in the view's language (a status word, never raw). */
  function ackText(ack) {
    var key = "ack_" + ack.status;
    var word = window.I18N[key] ? GT.t(key) : String(ack.status);
    return GT.t("assign_result") + GT.colon() + word + (ack.reason ? " — " + GT.refusal(ack.reason) : "");
  }
  var lastMsg = "";
  var namesShown;  // the teams' names the panel was last drawn with
  function render(d) {
    var a = d.assignment;
    GT.assignment = a || null;  // the teams' names a refusal is said with (panel_state.js GT.named)
    if (GT.nameChoices) GT.nameChoices();  // and the forms' side choices
    var names = JSON.stringify(a ? [a.teams, a.team_names] : null);
    if (names !== namesShown && GT.renderNames) { namesShown = names; GT.renderNames(); }  // and every side said by team
    if (!d.hub) { box.hidden = true; return; }
    box.hidden = false;
    if (!a) { box.innerHTML = '<div class="assign-card muted">' + esc(GT.t("assign_waiting")) + "</div>"; return; }
    var tn = a.team_names || {};
    var ack = d.result_ack ? '<div class="assign-ack" data-status="' + esc(d.result_ack.status) + '">' +
      esc(ackText(d.result_ack)) + "</div>" : "";
    function seat(s) { return esc(GT.seat(s)) + " " + esc(a.players[s]); }
    box.innerHTML = '<div class="assign-card" id="assign-card">' +
      "<b>" + esc(GT.tf("assign_title", {e: a.event_name || a.event, r: a.round, t: a.table})) + "</b>" +
      "<div>" + esc(GT.t("side_NS") + GT.colon()) + esc(tn.NS || a.teams.NS) + " — " + seat("N") + " · " + seat("S") + "</div>" +
      "<div>" + esc(GT.t("side_EW") + GT.colon()) + esc(tn.EW || a.teams.EW) + " — " + seat("E") + " · " + seat("W") + "</div>" +
      '<div class="muted">' + esc(presetName(a.ruleset.preset)) + " · " + esc(fmt(a.format)) + "</div>" +
      (d.behind_round ? '<div class="assign-behind" id="assign-behind">' +
        esc(GT.tf("assign_behind", {n: d.behind_round, m: a.round})) +
        ' <button type="button" id="assign-go-end">' + esc(GT.t("assign_go_end")) + "</button></div>" : "") +
      (d.started ? '<div class="assign-started">' + esc(GT.t("assign_started")) + "</div>"
        : '<button type="button" id="assign-start">' + esc(GT.t("assign_start")) + "</button>") +
      '<div id="assign-msg" role="status">' + esc(lastMsg) + "</div>" + ack + "</div>";
    var go = document.getElementById("assign-go-end");
    if (go) go.onclick = function () {
      var f = document.getElementById("f-end");
      if (!f) return;
      for (var p = f.parentNode; p; p = p.parentNode) if (p.tagName === "DETAILS") p.open = true;
      var reason = f.querySelector("input[name=reason]");
      if (reason && !reason.value) reason.value = GT.tf("assign_end_reason", {n: d.behind_round});
      f.scrollIntoView({block: "center"});
      if (reason) reason.focus();
    };
    var btn = document.getElementById("assign-start");
    if (btn) btn.onclick = function () {
      btn.disabled = true;
      fetch(url + "/start", {method: "POST", credentials: "same-origin",
        headers: {"Content-Type": "application/json", "X-CSRF-Token": csrf(), Accept: "application/json"}, body: "{}"})
        .then(function (r) { return r.json().then(function (j) { return [r.ok, j]; }); })
        .then(function (x) {
          // Kept over the next redraws (every 5 s), so a refusal stays readable.
          // 202 {"pending": true} is ok but not started: its message says to look before tapping again.
          lastMsg = x[0] && x[1].accepted ? GT.t("assign_started") : (GT.refusal(x[1].error) || GT.t("error"));
          document.getElementById("assign-msg").textContent = lastMsg;
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
