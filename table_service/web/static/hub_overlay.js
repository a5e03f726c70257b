// Broadcast scoreboard overlay: the top of the standings on a transparent page (OBS browser source).
(function () {
  "use strict";
  var strip = document.getElementById("ov-strip");
  var top = parseInt(strip.dataset.top, 10) || 8;
  function esc(s) { return String(s == null ? "" : s).replace(/[&<>"']/g, function (c) {
    return {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]; }); }
  function load() {
    fetch("/hub/api/board", {headers: {Accept: "application/json"}}).then(function (r) { return r.json(); })
      .then(function (d) {
        document.getElementById("ov-round").textContent = "第 " + (d.round || "-") + " 轮 · R" + (d.round || "-");
        document.getElementById("ov-list").innerHTML = d.standings.standings.slice(0, top).map(function (r) {
          return '<li><span class="r">' + r.rank + '</span><span class="n">' + esc(r.name || r.team) +
            '</span><span class="p">' + r.match_points + "</span></li>";
        }).join("");
      }).catch(function () {}).then(function () { setTimeout(load, 5000); });
  }
  load();
})();
