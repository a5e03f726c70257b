// Chief referee's overview: re-renders the table grid from /hub/api/overview every 2 s.
(function () {
  "use strict";
  var grid = document.getElementById("ov-grid");
  var alerts = document.getElementById("ov-alerts");
  function esc(s) { return String(s == null ? "" : s).replace(/[&<>"']/g, function (c) {
    return {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]; }); }
  function pen(p) {
    if (!p) return "";
    var out = [];
    ["NS", "EW"].forEach(function (s) {
      var x = p[s] || {};
      var n = (x.warnings || 0) + (x.violations || 0) + (x.fouls || 0);
      if (n) out.push(s + " 警" + (x.warnings || 0) + "/违" + (x.violations || 0) + "/犯" + (x.fouls || 0));
    });
    return out.join(" ");
  }
  function panelUrl(t) {
    // The hub sends only http(s) links to the table's own page (intake.panel_link); checked again.
    return t.panel && /^https?:\/\//.test(t.panel) ? t.panel : "#";
  }
  function num(n) { return typeof n === "number" && isFinite(n) ? n : 0; }
  function card(t, deck) {
    var cls = "tcard " + (t.online ? "online" : (t.online === false ? "offline" : "unknown"));
    if (num(t.open_flags) || num(t.doubts) || num(t.clocks_over) || num(t.faults)) cls += " alert";
    if (t.result) cls += " done";
    var st = t.result ? "完 / done " + t.result.ns_levels + ":" + t.result.ew_levels + " (" + t.source + ")"
      : (t.online ? "在线 / online" : (t.online === false ? "离线 / offline" : "未知 / unknown"));
    var lv = t.levels ? "级 / levels NS " + t.levels.NS + " · EW " + t.levels.EW : "";
    var bits = [];
    if (num(t.deal)) bits.push("第" + num(t.deal) + "副 / deal " + num(t.deal));
    if (num(t.open_flags)) bits.push("⚑ " + num(t.open_flags) + " 待裁决 / open flags");
    if (num(t.doubts)) bits.push("? " + num(t.doubts) + " 识别存疑 / camera questions");
    if (num(t.clocks_over)) bits.push("⏱ " + num(t.clocks_over) + " 超时 / clocks over");
    if (num(t.faults)) bits.push("✗ " + num(t.faults) + " 坏消息 / bad messages");
    // The event's deck handed out but this table's camera not reading with it (no camera, an old file).
    if (deck && t.online && t.deck !== deck) bits.push("🂠 未用比赛用牌 / not on the event's deck");
    var p = pen(t.penalties);
    if (p) bits.push("罚 / penalties " + p);
    return '<a class="' + cls + '" data-table="' + esc(t.table) + '" data-faults="' + num(t.faults) + '" href="' +
      esc(panelUrl(t)) + '"' + (panelUrl(t) !== "#" ? ' target="_blank" rel="noopener"' : "") + ">" +
      "<b>" + esc(t.table) + '</b> <span class="teams" title="' + esc(t.ns) + " – " + esc(t.ew) + '">' +
      esc(t.ns_name || t.ns) + " – " + esc(t.ew_name || t.ew) + "</span>" +
      '<span class="st">' + esc(st) + "</span>" + (lv ? '<span class="lv">' + esc(lv) + "</span>" : "") +
      (bits.length ? '<span class="bits">' + esc(bits.join(" · ")) + "</span>" : "") + "</a>";
  }
  function render(ov) {
    document.getElementById("ov-round").textContent = ov.round || "-";
    document.getElementById("ov-mqtt").textContent = ov.connected ? "已连接 / connected" : "未连接 / not connected";
    var deck = ov.deck ? ov.deck.sha256 : null;
    grid.innerHTML = ov.tables.map(function (t) { return card(t, deck); }).join("");
    var a = ov.refusals.map(function (r) {
      return '<p class="alert refusal">拒收 / refused #' + num(r.seq) + ": " + esc(r.table) + " 号桌 / table " +
        esc(r.table) + " — " + esc(r.reason) + "</p>";
    }).concat((ov.bad_messages || []).map(function (m) {
      return '<p class="alert fault">坏消息 / bad message #' + num(m.seq) + ": " + esc(m.table) + " 号桌 / table " +
        esc(m.table) + " (" + esc(m.topic) + ") — " + esc(m.reason) + "</p>";
    })).concat(ov.appeals.map(function (x) {
      return '<p class="alert appeal">申诉 / appeal #' + x.id + ": 第 " + num(x.round) + " 轮 " + esc(x.table) +
        " 号桌 " + esc(x.team) + (x.late ? "（逾期 / late）" : "") + "</p>";
    }));
    alerts.innerHTML = a.join("");
  }
  function tick() {
    fetch("/hub/api/overview", {headers: {Accept: "application/json"}, credentials: "same-origin"})
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (ov) { if (ov) render(ov); })
      .catch(function () {})
      .then(function () { setTimeout(tick, 2000); });
  }
  tick();
})();
