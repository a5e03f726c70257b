// Results board for the hall's big screen: standings and the round's tables, paging every 8 s.
(function () {
  "use strict";
  var PAGE = 16, page = 0, data = null;
  function esc(s) { return String(s == null ? "" : s).replace(/[&<>"']/g, function (c) {
    return {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]; }); }
  function render() {
    if (!data) return;
    var rows = data.standings.standings, pages = Math.max(1, Math.ceil(rows.length / PAGE));
    page = page % pages;
    document.getElementById("b-round").textContent = "第 " + (data.round || "-") + " / " + data.rounds + " 轮 round";
    document.getElementById("b-page").textContent = pages > 1 ? (page + 1) + "/" + pages : "";
    document.querySelector("#b-standings tbody").innerHTML = rows.slice(page * PAGE, (page + 1) * PAGE).map(function (r) {
      return '<tr class="' + (r.rank === 1 ? "lead" : "") + '"><td>' + r.rank + "</td><td title=\"" + esc(r.name || r.team) + "\">" + esc(r.name || r.team) + "</td><td>" + r.match_points + "</td><td>" +
        r.progressive + "</td><td>" + r.rounds_won + "</td><td>" + r.level_points + "</td><td>" + r.levels_gained + "</td></tr>";
    }).join("");
    var lots = data.standings.lots || [];
    document.getElementById("b-lots").textContent = lots.length ? "抽签 / lots: " + lots.map(function (l) {
      return l.order.join(" > "); }).join("; ") : "";
    var t = data.tables, tp = Math.max(1, Math.ceil(t.length / PAGE)), tpage = page % tp;
    document.querySelector("#b-tables tbody").innerHTML = t.slice(tpage * PAGE, (tpage + 1) * PAGE).map(function (x) {
      // Live levels are not public (broadcasts are delayed): a table shows its result once signed.
      var st = x.result ? x.result.ns_levels + " : " + x.result.ew_levels : "进行中 / playing";
      return '<tr class="' + (x.result ? "done" : "") + '"><td>' + esc(x.table) + '</td><td title="' + esc(x.ns) + '">' +
        esc(x.ns_name || x.ns) + '</td><td title="' + esc(x.ew) + '">' + esc(x.ew_name || x.ew) + "</td><td>" +
        esc(st) + "</td></tr>";
    }).join("");
  }
  function load() {
    fetch("/hub/api/board", {headers: {Accept: "application/json"}}).then(function (r) { return r.json(); })
      .then(function (d) { data = d; render(); }).catch(function () {})
      .then(function () { setTimeout(load, 3000); });
  }
  setInterval(function () { page += 1; render(); }, 8000);
  load();
})();
