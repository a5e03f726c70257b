// Results board for the hall's big screen: standings and the round's tables, paging every 8 s.
// Also the hub pages' one wording of a result and of a table's connection (window.HubText, used by
// the overview and the broadcast page too, which load this file first): the words are web/words.py's (window.I18N), as on the printed results
// sheet, so a forfeit reads the same on the board, the overview and the sheet.
(function () {
  "use strict";
  function pair(key) { var p = (window.I18N || {})[key]; return p || [key, key]; }
  function fill(text, args) {
    return text.replace(/\{(\w+)\}/g, function (m, k) { return args[k] === undefined ? m : String(args[k]); });
  }
  // "中文 / English" of an i18n entry, placeholders filled in.
  function both(key, args) { var p = pair(key); return fill(p[0], args || {}) + " / " + fill(p[1], args || {}); }
  function sideArgs(loser, win, lose) {
    var other = loser === "ns" ? "ew" : "ns";
    return {zh: {side: pair("hub_side_" + loser)[0], other: pair("hub_side_" + other)[0], win: win, lose: lose},
            en: {side: pair("hub_side_" + loser)[1], other: pair("hub_side_" + other)[1], win: win, lose: lose}};
  }
  function bothSides(key, a) { var p = pair(key); return fill(p[0], a.zh) + " / " + fill(p[1], a.en); }
  function isNum(n) { return typeof n === "number" && isFinite(n); }
  // A table's connection: the hub's `connected` (TableLive.connected, its one liveness rule), a table
  // not connected told apart by whether it went offline or never spoke; as hub_link.html says it.
  function linkState(t) { return t.connected ? "online" : t.online === false ? "offline" : "unknown"; }
  window.HubText = {
    // A RESULTS line as people read it: "9 : 4" (levels gained), a forfeit "东西弃权，南北 17 : 0 /
    // EW forfeits, 17 : 0 to NS", a penalty loss with the score it fixed likewise.
    result: function (r) {
      if (!r) return "";
      if (r.forfeit === "both") return both("hub_res_both_forfeit");
      if (r.forfeit === "ns" || r.forfeit === "ew") return bothSides("hub_res_forfeit", sideArgs(r.forfeit, 17, 0));
      if (isNum(r.ns_score) && isNum(r.ew_score) && r.ns_score !== r.ew_score) {
        var loser = r.ns_score < r.ew_score ? "ns" : "ew";
        return bothSides("hub_res_penalty", sideArgs(loser, Math.max(r.ns_score, r.ew_score),
                                                     Math.min(r.ns_score, r.ew_score)));
      }
      return (isNum(r.ns_levels) ? r.ns_levels : 0) + " : " + (isNum(r.ew_levels) ? r.ew_levels : 0);
    },
    // Where a result came from: 桌面记录 / table log, 手工录入 / hand entry, 更正 / correction.
    source: function (s) { return s && (window.I18N || {})["hub_src_" + s] ? both("hub_src_" + s) : String(s || ""); },
    linkState: linkState,
    link: function (t) { return both("hub_link_" + linkState(t)); },
    both: both
  };

  var board = document.getElementById("b-tables");
  if (!board) return;  // the overview: the words above only
  var PAGE = 16, page = 0, data = null;  // a page of 16 long names fits the hall's 1080 screen
  // A player looking for their team on a phone (a 500-table event pages for minutes): what is typed
  // here keeps only the rows that name it (team name or id, table number), and the paging stops.
  var find = document.getElementById("b-find");
  function wanted(rows, keys) {
    var q = find ? find.value.trim().toLowerCase() : "";
    if (!q) return rows;
    return rows.filter(function (r) {
      return keys.some(function (k) { return String(r[k] == null ? "" : r[k]).toLowerCase().indexOf(q) >= 0; });
    });
  }
  if (find) find.addEventListener("input", function () { page = 0; render(); });
  function esc(s) { return String(s == null ? "" : s).replace(/[&<>"']/g, function (c) {
    return {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]; }); }
  /* A team's cell: its name whole (hub.css wraps it), a long one marked to be set smaller; the hover
     title names the team too, never its id (the audit: "T07" over a cut name). ``extra``: markup after it. */
  var LONG_NAME = 8, LONGER_NAME = 20;  // characters: two lines of a table's column at 1024 px, and more
  function nameCell(name, extra) {
    var n = String(name == null ? "" : name), len = Array.from(n).length;
    var cls = "b-team" + (len > LONGER_NAME ? " longer" : len > LONG_NAME ? " long" : "");
    return '<td class="' + cls + '" title="' + esc(n) + '">' + esc(n) + (extra || "") + "</td>";
  }
  /* The lots that ordered the rows on this page, by the teams' names as the standings name them (the id
     where a name is missing): "抽签 / lots: … > A > B > …", a group cut where it runs on to another page.
     Round 1's lots tie the whole field (400 names at 200 tables ran 2,600 px off the hall's screen, the
     s39 audit): a page names at most its own 16, and hub.css keeps the line to two lines. */
  function lotsLine(standings, pageRows) {
    var named = {}, here = {};
    standings.standings.forEach(function (r) { named[r.team] = r.name || r.team; });
    pageRows.forEach(function (r) { here[r.team] = true; });
    var parts = (standings.lots || []).map(function (l) {
      var on = l.order.filter(function (id) { return here[id]; });
      if (!on.length) return "";
      var names = on.map(function (id) { return named[id] || id; });
      if (!here[l.order[0]]) names.unshift("…");
      if (!here[l.order[l.order.length - 1]]) names.push("…");
      return names.join(" > ");
    }).filter(Boolean);
    return parts.length ? "抽签 / lots: " + parts.join("; ") : "";
  }
  function render() {
    if (!data) return;
    var rows = wanted(data.standings.standings, ["name", "team"]), pages = Math.max(1, Math.ceil(rows.length / PAGE));
    page = page % pages;
    var rnd = data.round || "-";
    document.getElementById("b-round").textContent = "第 " + rnd + " / " + data.rounds + " 轮 / round " + rnd + " of " +
      data.rounds;
    document.getElementById("b-page").textContent = pages > 1 ? (page + 1) + "/" + pages : "";
    // The standings are those after the last complete round (the round in play counts once all its tables are in).
    var after = data.standings.rounds;
    // The last round published: the event is over and these are its final standings (they read "after
    // round 5" as any other round did, the usability walk of 2026-12-06).
    document.getElementById("b-after").textContent = after && after === data.rounds
      ? "最终排名（共 " + after + " 轮）/ final standings (" + after + " rounds)"
      : after ? "第 " + after + " 轮后 / after round " + after : "";
    var pageRows = rows.slice(page * PAGE, (page + 1) * PAGE);
    document.querySelector("#b-standings tbody").innerHTML = pageRows.map(function (r) {
      // A withdrawn team (退赛) keeps its row, its rank and its results, marked.
      var wd = r.withdrawn ? ' <small class="wd">已退赛 / withdrawn</small>' : "";
      return '<tr class="' + (r.rank === 1 ? "lead" : "") + (r.withdrawn ? " withdrawn" : "") + '"><td>' + r.rank + "</td>" +
        nameCell(r.name || r.team, wd) + "<td>" + r.match_points + "</td><td>" +
        r.progressive + "</td><td>" + r.rounds_won + "</td><td>" + r.level_points + "</td><td>" + r.levels_gained + "</td></tr>";
    }).join("");
    document.getElementById("b-lots").textContent = lotsLine(data.standings, pageRows);
    var t = wanted(data.tables, ["table", "ns", "ew", "ns_name", "ew_name"]);
    var tp = Math.max(1, Math.ceil(t.length / PAGE)), tpage = page % tp;
    document.querySelector("#b-tables tbody").innerHTML = t.slice(tpage * PAGE, (tpage + 1) * PAGE).map(function (x) {
      // Live levels are not public (broadcasts are delayed): a table shows its result once signed.
      // The English half of a long result in smaller type: one line on the hall's screen.
      // A finished table's score waits for the chief's 公布成绩 (a hand entry or an appeal under review).
      var st = x.result ? window.HubText.result(x.result) : x.finished ? "已结束 · 待公布 / finished · results pending"
        : "进行中 / playing", cut = st.indexOf(" / ");
      var shown = cut < 0 ? esc(st) : esc(st.slice(0, cut)) + '<small class="en"> / ' + esc(st.slice(cut + 3)) + "</small>";
      // A match moved to a spare table: its players look for the number they were given, say where it went.
      var from = x.moved_from ? '<small class="moved">由 ' + esc(x.moved_from) + " 号桌移来 / moved from table " +
        esc(x.moved_from) + "</small>" : "";
      return '<tr class="' + (x.result ? "done" : "") + '" data-table="' + esc(x.table) + '"><td>' + esc(x.table) + from +
        "</td>" + nameCell(x.ns_name || x.ns) + nameCell(x.ew_name || x.ew) + '<td class="res">' + shown + "</td></tr>";
    }).join("");
  }
  function load() {
    fetch("/hub/api/board", {headers: {Accept: "application/json"}}).then(function (r) { return r.json(); })
      .then(function (d) { data = d; render(); }).catch(function () {})
      .then(function () { setTimeout(load, 3000); });
  }
  setInterval(function () { if (!find || !find.value.trim()) { page += 1; render(); } }, 8000);
  load();
})();
