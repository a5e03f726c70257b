/* Broadcast standings overlay (OBS browser source) for the event hub: the table overlay's
   1920×1080 transparent stage and look, with a standings side panel inside the title-safe area:
   the event and round, the round's tables done, then the top N teams (rank, name, match points,
   the event's next tie-break column). One language per view (?lang=en, else Chinese); names that
   carry both ("南京队 / Nanjing") show their half. Rows are updated in place (no flicker); more
   than a page of teams pages itself; a long name shrinks to fit. A "delayed" mark shows only while
   the data on screen is older than it should be (the hub has not answered for a while).
   ?pos= places the panel: right (default), left, or the short bottom-right / bottom-left panel.
   Test knobs: ?poll_s=N (default 5), ?page_s=N (default 8). */
(function () {
  "use strict";
  var root = document.getElementById("hov");
  var stage = document.getElementById("stage");
  var panel = document.getElementById("ov-strip");
  var list = document.getElementById("ov-list");
  // Rows a page: what fits the title-safe height at 1080 (see hub.css), 4 in the short panel that
  // stacks beside a table overlay (?pos=bottom-right / bottom-left).
  var PER_PAGE = parseInt(root.dataset.perPage, 10) || 16;
  var NAME_MIN_PX = 15;              // a name shrinks down to this, then ellipsis
  var params = new URLSearchParams(location.search);
  var POLL_MS = Math.max(0.2, Number(params.get("poll_s")) || 5) * 1000;
  var PAGE_MS = Math.max(0.5, Number(params.get("page_s")) || 8) * 1000;
  var LANG = root.dataset.lang === "en" ? "en" : "zh";
  var TOP = parseInt(root.dataset.top, 10) || 8;
  var TB = root.dataset.tiebreak || "progressive";
  var WORDS = {
    zh: {rank: "名次", team: "队伍", mp: "比赛分", progressive: "累进分", rounds_won: "胜轮",
         level_points: "级差分", levels_gained: "升级", round: "第 {r} / {n} 轮", pre: "赛前",
         standings: "排名", tables: "{n} 桌 · 已完成 {m}", delayed: "数据延时 {n} 秒", page: "第 {p}/{n} 页",
         withdrawn: "已退赛"},
    en: {rank: "#", team: "TEAM", mp: "MP", progressive: "PROG", rounds_won: "WON",
         level_points: "LDP", levels_gained: "LVLS", round: "ROUND {r} OF {n}", pre: "PRE-EVENT",
         standings: "STANDINGS", tables: "{n} TABLES · {m} DONE", delayed: "DATA DELAYED {n}s", page: "PAGE {p}/{n}",
         withdrawn: "WITHDRAWN"}
  }[LANG];
  var CJK = /[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]/;
  var data = null, page = 0, lastOk = 0;

  /* --- stage: designed at 1920×1080, scaled to the browser source (broadcast_stage.js) */
  GTStage.fit(stage, root);

  function tf(key, vars) {
    var s = WORDS[key];
    Object.keys(vars).forEach(function (k) { s = s.split("{" + k + "}").join(String(vars[k])); });
    return s;
  }
  /* "中文 / English": the view's half. A name with no English half stays as it is in Chinese;
     in English it falls back to the team id rather than putting CJK on an English programme. */
  function bi(text, fallback) {
    var s = String(text == null ? "" : text), i = s.indexOf(" / ");
    if (i >= 0) return (LANG === "zh" ? s.slice(0, i) : s.slice(i + 3)).trim();
    if (LANG === "en" && CJK.test(s)) return fallback !== undefined ? String(fallback) : "";
    return s;
  }
  /* Only touch the DOM when the text changes: an unchanged poll repaints nothing. */
  function setText(node, text) {
    if (node.textContent !== text) { node.textContent = text; return true; }
    return false;
  }
  /* A long name shrinks (to NAME_MIN_PX) until it fits its cell; CSS ellipsis past that. */
  function fitName(node) {
    node.style.fontSize = "";
    var px = parseFloat(getComputedStyle(node).fontSize);
    while (node.scrollWidth > node.clientWidth && px > NAME_MIN_PX) {
      px -= 1;
      node.style.fontSize = px + "px";
    }
  }

  setText(document.getElementById("hov-h-rank"), WORDS.rank);
  setText(document.getElementById("hov-h-name"), WORDS.team);
  setText(document.getElementById("hov-h-mp"), WORDS.mp);
  setText(document.getElementById("hov-h-tb"), WORDS[TB] || TB);

  function rowEl(i) {
    var li = list.children[i];
    if (li) return li;
    li = document.createElement("li");
    li.className = "hov-row";
    ["c-rank", "c-name", "c-mp", "c-tb"].forEach(function (c) {
      var s = document.createElement("span");
      s.className = c;
      li.appendChild(s);
    });
    // The name, and under it (a withdrawn team's row only) its mark: a mark beside a long name cut
    // the name, or itself, to an ellipsis (and "WD", all that fitted in English, said nothing on air).
    ["n", "wd"].forEach(function (c) {
      var s = document.createElement("span");
      s.className = c;
      li.children[1].appendChild(s);
    });
    list.appendChild(li);
    return li;
  }

  function render() {
    if (!data) return;
    panel.hidden = false;            // shown before the rows: a hidden cell has no width to fit a name to
    var rows = ((data.standings || {}).standings || []).slice(0, TOP);
    var pages = Math.max(1, Math.ceil(rows.length / PER_PAGE));
    page = page % pages;
    var shown = rows.slice(page * PER_PAGE, (page + 1) * PER_PAGE);
    setText(document.getElementById("hov-event"), bi(data.event || root.dataset.event, WORDS.standings));
    setText(document.getElementById("ov-round"), data.round
      ? tf("round", {r: data.round, n: data.rounds || "—"}) + " · " + WORDS.standings : WORDS.pre + " · " + WORDS.standings);
    var tables = data.tables || [];
    setText(document.getElementById("hov-ctx"), tables.length
      ? tf("tables", {n: tables.length, m: tables.filter(function (t) { return t.result; }).length}) : "");
    shown.forEach(function (r, i) {
      var li = rowEl(i), cells = li.children;
      li.classList.toggle("lead", r.rank === 1);
      setText(cells[0], String(r.rank));
      // A withdrawn team (退赛) keeps its row, its rank and its results, marked: the top N are the
      // standings' first N, as the board and the printed sheet rank them (hub.overlay says why).
      var name = cells[1].children[0], mark = cells[1].children[1];
      li.classList.toggle("wd", Boolean(r.withdrawn));
      mark.hidden = !r.withdrawn;
      if (setText(name, bi(r.name || r.team, r.team)) | setText(mark, r.withdrawn ? WORDS.withdrawn : "")) fitName(name);
      setText(cells[2], String(r.match_points));
      setText(cells[3], String(r[TB] === undefined ? "" : r[TB]));
      li.dataset.team = r.team;
    });
    while (list.children.length > shown.length) list.removeChild(list.lastChild);
    setText(document.getElementById("hov-page"), pages > 1 ? tf("page", {p: page + 1, n: pages}) : "");
    root.dataset.page = String(page + 1);
    root.dataset.pages = String(pages);
    markDelay();
  }

  /* Delayed only when it is: the hub's own delay (if its data says so) or no fresh answer for
     three polls. */
  function markDelay() {
    var mark = document.getElementById("hov-delay");
    var stale = lastOk ? (Date.now() - lastOk) / 1000 : 0;
    var own = data && Number(data.delay_s) > 0 ? Number(data.delay_s) : 0;
    var n = stale > 3 * POLL_MS / 1000 ? Math.round(stale) : own;
    if (n > 0) {
      if (!mark.firstChild) { var dot = document.createElement("i"); dot.className = "dot"; mark.appendChild(dot);
        mark.appendChild(document.createElement("span")); }
      setText(mark.lastChild, tf("delayed", {n: n}));
      mark.hidden = false;
    } else {
      mark.hidden = true;
    }
    root.dataset.delayed = n > 0 ? "1" : "0";
  }

  function load() {
    fetch(root.dataset.src, {headers: {Accept: "application/json"}, cache: "no-cache"})  // asks each time; a 304 gives the kept copy
      .then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status); return r.json(); })
      .then(function (d) { data = d; lastOk = Date.now(); render(); root.dataset.polls = String((Number(root.dataset.polls) || 0) + 1); })
      .catch(function () { markDelay(); })
      .then(function () { setTimeout(load, POLL_MS); });
  }
  setInterval(function () { page += 1; render(); }, PAGE_MS);
  setInterval(markDelay, 1000);
  load();
})();
