// Chief referee's overview: re-renders the table grid from /hub/api/overview every 2 s.
// A poll that fails is never silent: a login that ended says so at once (with the way back in),
// any other failure marks what is shown as stale since the last good poll. The words of a result
// are window.HubText's (hub_board.js, loaded first).
// Every alert is a link to where it is dealt with (the s36 tap audit: none was): a refused result, an
// appeal or a stale draft to its row on the organiser page, a bad message to its table's card here; the
// counts of tables needing the chief or not connected show only those tables with one tap.
// Nothing moves under a finger (the s39 audit at 200 tables: cards re-sorted as the chief reached for
// one): the cards keep table order, or the order the chief took with a tap, and a poll rewrites only
// the cards whose content changed, in place.
(function () {
  "use strict";
  var grid = document.getElementById("ov-grid");
  var alerts = document.getElementById("ov-alerts");
  var others = document.getElementById("ov-others");
  var banner = document.getElementById("ov-stale");
  var root = document.getElementById("ov");
  var HT = window.HubText;
  var lastGood = new Date();  // the page came with the overview of this moment
  var said = null;  // what the stale banner says now
  function esc(s) { return String(s == null ? "" : s).replace(/[&<>"']/g, function (c) {
    return {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]; }); }
  function hhmmss(d) {
    function two(n) { return (n < 10 ? "0" : "") + n; }
    return two(d.getHours()) + ":" + two(d.getMinutes()) + ":" + two(d.getSeconds());
  }
  /* The sides' penalties, each language whole: "处罚 南北 警告1·违例0·犯规0 / penalties NS W1 V0 F0" (it said
     "罚 / penalties NS 警告 1 W · 违例 0 V…": the compass letters, and the two languages in one). */
  var SIDE_WORDS = {NS: ["南北", "NS"], EW: ["东西", "EW"]};
  function pen(p) {
    if (!p) return "";
    var zh = [], en = [];
    ["NS", "EW"].forEach(function (s) {
      var x = p[s] || {}, w = num(x.warnings), v = num(x.violations), f = num(x.fouls);
      if (!(w + v + f)) return;
      zh.push(SIDE_WORDS[s][0] + " 警告" + w + "·违例" + v + "·犯规" + f);
      en.push(SIDE_WORDS[s][1] + " W" + w + " V" + v + " F" + f);
    });
    return zh.length ? "处罚 " + zh.join("，") + " / penalties " + en.join(", ") : "";
  }
  function panelUrl(t) {
    // The hub sends only http(s) links to the table's own page (intake.panel_link); checked again.
    return t.panel && /^https?:\/\//.test(t.panel) ? t.panel : "#";
  }
  function num(n) { return typeof n === "number" && isFinite(n) ? n : 0; }
  /* A table's connection: the hub's `connected` (its one liveness rule, TableLive.connected: the last
     status said online; the broker says offline by the table's last will). A table never heard from,
     or gone offline, is 未连接 / not connected — never counted as playing. HubText's words, as
     hub_link.html says them. */
  function linkWords(t) { return HT.link(t); }
  function linkClass(t) { return t.connected ? "online" : "silent " + HT.linkState(t); }
  // How long ago the round's draw went out, by the hub's clock (the browser's may differ).
  function sincePublished(ov) {
    if (!num(ov.published_ms) || !num(ov.now_ms)) return "";
    var min = Math.max(0, Math.floor((ov.now_ms - ov.published_ms) / 60000));
    return min < 1 ? "编排刚公布 / draw just published" : "编排公布 " + min + " 分钟 / draw published " + min + " min ago";
  }
  function status(t, ov) {
    if (t.result) return "已完赛 / done · " + HT.result(t.result) + (t.source ? " · " + HT.source(t.source) : "");
    if (!t.connected) return linkWords(t);
    // Before the table takes this round its levels are the panel's defaults, not play.
    if (!t.started) return "未开始 / not started" + (sincePublished(ov) ? " · " + sincePublished(ov) : "");
    if (t.finished) return "本轮已结束，待成绩 / round over, result not in yet";
    return linkWords(t);
  }
  function tile(cls, t, head, st, lv, bits) {
    if (pointed && pointed.table === t.table && Date.now() < pointed.until) cls += " pointed";
    return '<a class="' + cls + '" id="table-' + esc(t.table) + '" data-table="' + esc(t.table) + '" data-faults="' +
      num(t.faults) + '" href="' +
      esc(panelUrl(t)) + '"' + (panelUrl(t) !== "#" ? ' target="_blank" rel="noopener"' : "") + ">" + head +
      '<span class="st">' + esc(st) + "</span>" + (lv ? '<span class="lv">' + esc(lv) + "</span>" : "") +
      (bits.length ? '<span class="bits">' + esc(bits.join(" · ")) + "</span>" : "") + "</a>";
  }
  function card(t, deck, ov) {
    var cls = "tcard " + linkClass(t);
    if (num(t.open_flags) || num(t.doubts) || num(t.clocks_over) || num(t.faults)) cls += " alert";
    if (t.result) cls += " done";
    else if (t.connected && !t.started) cls += " waiting";
    // The sides in words and level 10 as 10 (the engine keeps "T"): "级数 南北 5 · 东西 10 / levels NS 5 · EW 10".
    var lv = t.levels ? "级数 南北 " + GT.rank(t.levels.NS) + " · 东西 " + GT.rank(t.levels.EW) + " / levels NS " +
      GT.rank(t.levels.NS) + " · EW " + GT.rank(t.levels.EW) : "";
    var bits = [];
    if (t.moved_from) bits.push("由 " + t.moved_from + " 号桌移来 / moved from table " + t.moved_from);  // tile() escapes
    if (num(t.deal)) bits.push("第" + num(t.deal) + "副 / deal " + num(t.deal));
    if (num(t.open_flags)) bits.push("⚑ " + num(t.open_flags) + " 待处理 / open flags");
    if (num(t.doubts)) bits.push("? " + num(t.doubts) + " 识别存疑 / camera questions");
    if (num(t.clocks_over)) bits.push("⏱ " + num(t.clocks_over) + " 超时 / clocks over");
    if (num(t.faults)) bits.push("✗ " + num(t.faults) + " 拒收或异常消息 / refused or bad messages");
    // The event's deck handed out but this table's camera not reading with it (no camera, an old file).
    // A table without a camera reads no deck (camera false); an older table's summary does not say (null).
    if (deck && t.connected && t.camera !== false && t.deck !== deck) bits.push("🂠 未用比赛用牌 / not on the event's deck");
    var p = pen(t.penalties);
    if (p) bits.push(p);
    // The hover title names the teams whole (a long name is cut on a small card), never by their ids.
    var teams = (t.ns_name || t.ns) + " – " + (t.ew_name || t.ew);
    var head = "<b>" + esc(t.table) + '</b> <span class="teams" title="' + esc(teams) + '">' + esc(teams) + "</span>";
    return tile(cls, t, head, status(t, ov), lv, bits);
  }
  /* The cards' order: table order (the draw's, as the hub sends it) while the page is live, whatever
     the tables do. A tap on 需处理的在前 takes the order of that moment — those that need the chief
     (flags, camera questions, clocks over, refused messages), then not connected, then playing, then
     done, each in table order — and it stays, the cards not moving as tables change, until the next
     tap (again: the order of then; 按桌号: table order). A new round takes it again for its tables; a
     table the order does not hold comes last. Kept in the tab's sessionStorage across a reload. */
  function attention(t) {
    if (num(t.open_flags) || num(t.doubts) || num(t.clocks_over) || num(t.faults)) return 0;
    if (t.result) return 3;
    return t.connected ? 2 : 1;
  }
  function byAttention(tables) {
    return tables.map(function (t, i) { return [attention(t), i, t]; })
      .sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; }).map(function (x) { return x[2]; });
  }
  var ORDER_KEY = "hub-overview-order";
  var order = {mode: "table", round: null, tables: []};  // tables: the ids in the order taken at the tap
  try {
    var kept = JSON.parse(sessionStorage.getItem(ORDER_KEY) || "null");
    if (kept && kept.mode === "attention" && Array.isArray(kept.tables)) order = kept;
  } catch (e) { /* no storage (a private window): the order lasts the page */ }
  function takeOrder(mode, ov) {
    order = {mode: mode, round: ov.round, tables: mode === "attention"
      ? byAttention(ov.tables || []).map(function (t) { return String(t.table); }) : []};
    try { sessionStorage.setItem(ORDER_KEY, JSON.stringify(order)); } catch (e) { /* as above */ }
  }
  function ordered(ov) {
    var tables = ov.tables || [];
    if (order.mode !== "attention") return tables;
    if (order.round !== ov.round) takeOrder("attention", ov);
    var at = {};
    order.tables.forEach(function (id, i) { at[id] = i; });
    return tables.map(function (t, i) { var k = at[String(t.table)]; return [k === undefined ? tables.length + i : k, t]; })
      .sort(function (a, b) { return a[0] - b[0]; }).map(function (x) { return x[1]; });
  }
  var orderBox = document.querySelector(".ov-order");
  function showOrder() {
    if (!orderBox) return;
    orderBox.querySelectorAll("button[data-order]").forEach(function (b) {
      b.setAttribute("aria-pressed", String(b.dataset.order === order.mode));
    });
  }
  showOrder();
  if (orderBox) orderBox.addEventListener("click", function (ev) {
    var b = ev.target.closest("button[data-order]");
    if (!b || !lastOv) return;
    takeOrder(b.dataset.order, lastOv);
    showOrder();
    render(lastOv);
  });
  /* The cards in ``container`` made to be ``items`` ([{key, html}]) with the fewest changes: a card whose
     markup is unchanged stays the very element it was (a tap on it is never lost to a poll), a changed
     one is replaced where it stands, and a card moves only when the order itself changed. */
  function place(container, items) {
    var have = {};
    Array.prototype.forEach.call(container.children, function (el) {
      if (el.dataset && el.dataset.table !== undefined) have[el.dataset.table] = el;
    });
    var wanted = items.map(function (it) {
      var el = have[it.key];
      if (el && el.hubHtml === it.html) return el;
      var box = document.createElement("div");
      box.innerHTML = it.html;
      var made = box.firstElementChild;
      made.hubHtml = it.html;  // what it was drawn from, on the element (not an attribute: no copy in the DOM)
      if (el) container.replaceChild(made, el);
      return made;
    });
    wanted.forEach(function (el, i) {
      if (container.children[i] !== el) container.insertBefore(el, container.children[i] || null);
    });
    while (container.children.length > wanted.length) container.removeChild(container.lastElementChild);
  }
  // A table the hub knows (EVENT.toml, or it spoke to the broker) that has no match this round.
  function otherCard(t) {
    var bits = [];
    if (num(t.round)) bits.push("桌上为第 " + num(t.round) + " 轮 / the table shows round " + num(t.round) +
                                (num(t.deal) ? " · 第" + num(t.deal) + "副 / deal " + num(t.deal) : ""));
    if (num(t.faults)) bits.push("✗ " + num(t.faults) + " 拒收或异常消息 / refused or bad messages");
    if (!t.in_config) bits.push("EVENT.toml 未列出 / not in EVENT.toml");
    return tile("tcard other " + linkClass(t), t, "<b>" + esc(t.table) + "</b>", linkWords(t), "", bits);
  }
  function renderOthers(ov) {
    var list = ov.others || [];
    var head = ov.round ? "本轮未编排的桌 / Tables not in this round"
      : "已知的桌（尚未公布编排）/ Tables known so far (no draw published yet)";
    if (!list.length) {
      others.innerHTML = ov.round || (ov.tables || []).length ? ""
        : '<h2>' + esc(head) + '</h2><p class="muted">尚无比赛桌上线，EVENT.toml 也未列出 [[tables]] / no table has ' +
          "come online yet, and EVENT.toml lists no [[tables]]</p>";
      return;
    }
    var on = list.filter(function (t) { return t.connected; }).length;
    var h2 = esc(head) + ' <small class="muted">' + on + " / " + list.length + " 在线 / online</small>";
    var box = others.querySelector(".hub-grid");
    if (!box || !others.querySelector("h2")) {
      others.innerHTML = '<h2></h2><div class="hub-grid"></div>';
      box = others.querySelector(".hub-grid");
    }
    var title = others.querySelector("h2");
    if (title.innerHTML !== h2) title.innerHTML = h2;
    place(box, list.map(function (t) { return {key: String(t.table), html: otherCard(t)}; }));
  }
  /* The find box: a table by its number (its start: "3" finds 3, 30–39, 300–399), or by any other
     text a team name or id of it holds. The cards it keeps stay in the page's order (nothing moves
     under a finger), and the others' list is filtered alike. */
  var find = document.getElementById("ov-find");
  var counts = document.getElementById("ov-counts");
  var lastOv = null;
  function query() { return find ? find.value.trim().toLowerCase() : ""; }
  function matches(t, q) {
    if (!q) return true;
    if (String(t.table).toLowerCase().indexOf(q) === 0) return true;
    if (/^[0-9]+$/.test(q)) return false;  // a number is a table's: "3" is not every team named "第3…"
    return [t.ns, t.ew, t.ns_name, t.ew_name].some(function (s) { return s != null && String(s).toLowerCase().indexOf(q) >= 0; });
  }
  /* The counts, each "中文 / English"; those needing the chief and those not connected (no result yet,
     the Pi never heard from or gone offline: linkWords) are buttons that show only those tables (pressed
     again: all). Written only when it changes, so a tap is never lost to a poll. */
  var only = null;  // "attention" | "silent" | null: what the counts' buttons keep shown
  /* A Pi connected that has not started the round (its players not seated yet, its referee not at
     it) is counted apart from the tables playing: at a round's start the chief looks for both. */
  var ONLY = {attention: function (t) { return attention(t) === 0; },
              silent: function (t) { return !t.result && !t.connected; },
              waiting: function (t) { return !t.result && t.connected && !t.started; }};
  var countsSaid = null;
  function countLine(tables) {
    var n = {done: 0, playing: 0, silent: 0, waiting: 0, attention: 0};
    tables.forEach(function (t) {
      if (t.result) n.done += 1; else if (!t.connected) n.silent += 1; else if (!t.started) n.waiting += 1;
      else n.playing += 1;
      if (attention(t) === 0) n.attention += 1;
    });
    function part(key, zh, en) {
      var text = esc(zh + " " + n[key] + " / " + en + " " + n[key]);
      if (!n[key] && only !== key) return text;
      return '<button type="button" class="ov-only" id="ov-only-' + key + '" data-only="' + key + '" aria-pressed="' +
        (only === key) + '">' + text + (only === key ? " · 显示全部 / show all" : "") + "</button>";
    }
    return esc("共 " + tables.length + " 桌 / " + tables.length + " tables") + " · " +
      part("attention", "需处理", "need the chief") + " · " + part("silent", "未连接", "not connected") + " · " +
      part("waiting", "未开始", "not started") + " · " + esc("进行中 " + n.playing + " / playing " + n.playing + " · 已完赛 " + n.done + " / done " + n.done);
  }
  if (find) find.addEventListener("input", function () { if (lastOv) render(lastOv); });
  if (counts) counts.addEventListener("click", function (ev) {
    var b = ev.target.closest("button[data-only]");
    if (!b || !lastOv) return;
    only = only === b.dataset.only ? null : b.dataset.only;
    render(lastOv);
    grid.scrollIntoView({block: "start"});
  });
  /* An alert about a table (a bad message): its card, shown (the find box and the counts' filter let go of
     it), scrolled to and marked for a few seconds. The card is redrawn every poll: the mark is kept here. */
  var pointed = null;
  function showCard(table) {
    if ((query() || only) && lastOv) { if (find) find.value = ""; only = null; render(lastOv); }
    pointed = {table: table, until: Date.now() + 6000};
    var card = Array.prototype.filter.call(document.querySelectorAll(".tcard"), function (c) {
      return c.dataset.table === table; })[0];
    if (!card) return;
    card.classList.add("pointed");
    card.scrollIntoView({block: "center"});
    card.focus({preventScroll: true});
  }
  alerts.addEventListener("click", function (ev) {
    var a = ev.target.closest("a[data-card]");
    if (!a) return;
    ev.preventDefault();
    showCard(a.dataset.card);
  });
  // Where an alert leads: the organiser page's row (for an account that may open it), else the table's card.
  var admin = root && root.dataset.admin;
  function toAdmin(anchor, table) {
    return admin ? ' href="' + esc(admin + "#" + anchor) + '"' : toCard(table);
  }
  function toCard(table) { return ' href="#table-' + esc(table) + '" data-card="' + esc(table) + '"'; }
  function render(ov) {
    lastOv = ov;
    document.getElementById("ov-round").textContent = ov.round || "-";
    var roundEn = document.getElementById("ov-round-en");
    if (roundEn) roundEn.textContent = ov.round || "-";
    document.getElementById("ov-mqtt").textContent = ov.connected ? "已连接 / connected" : "未连接 / not connected";
    var deck = ov.deck ? ov.deck.sha256 : null;
    var q = query();
    var line = countLine(ov.tables || []);
    if (counts && line !== countsSaid) { counts.innerHTML = line; countsSaid = line; }
    var shown = ordered(ov);
    if (q) shown = shown.filter(function (t) { return matches(t, q); });
    if (only) shown = shown.filter(ONLY[only]);
    if (shown.length || !(q || only)) {
      var none = document.getElementById("ov-none");
      if (none) none.remove();
      place(grid, shown.map(function (t) { return {key: String(t.table), html: card(t, deck, ov)}; }));
    } else {
      grid.innerHTML = '<p class="muted" id="ov-none">没有符合的桌 / no table matches</p>';
    }
    if (q && ov.others) ov = Object.assign({}, ov, {others: ov.others.filter(function (t) { return matches(t, q); })});
    if (others) renderOthers(ov);
    // A draft drawn before a result changed or a team withdrew: the hub will not publish it (redraw first).
    var a = ov.draft && ov.draft.stale && ov.draft.stale.length
      ? ['<a class="alert draft-stale" id="ov-draft-stale"' + (admin ? ' href="' + esc(admin + "#draft-stale") + '"' : "") +
         ">草案已过时 / stale draft: " + esc(ov.draft.stale_text) + "</a>"] : [];
    a = a.concat(ov.refusals.map(function (r) {
      return '<a class="alert refusal"' + toAdmin("refusal-" + num(r.seq), r.table) + ">拒收 / refused #" + num(r.seq) +
        ": " + esc(r.table) + " 号桌 / table " + esc(r.table) + " — " + esc(r.reason) + "</a>";
    }).concat((ov.bad_messages || []).map(function (m) {
      return '<a class="alert fault"' + toCard(m.table) + ">异常消息 / bad message #" + num(m.seq) + ": " + esc(m.table) +
        " 号桌 / table " + esc(m.table) + " (" + esc(m.topic) + ") — " + esc(m.reason) + "</a>";
    })).concat(ov.appeals.map(function (x) {
      // The team by its name, its id in brackets (as the organiser page and the sheets name it).
      return '<a class="alert appeal"' + toAdmin("appeal-" + num(x.id), x.table) + ">申诉 / appeal #" + num(x.id) +
        ": 第 " + num(x.round) + " 轮 / round " + num(x.round) + " · " + esc(x.table) + " 号桌 / table " + esc(x.table) +
        " · " + esc(x.team_name || x.team) + " (" + esc(x.team) + ")" + (x.late ? "（逾期 / late）" : "") + "</a>";
    })));
    alerts.innerHTML = a.join("");
  }
  // What is shown is no longer live: say why and since when, at the top, and grey it out.
  function stale(kind, detail) {
    var since = hhmmss(lastGood);
    var login = '<a id="ov-relogin" href="' + esc((root && root.dataset.login) || "/auth/login") +
      '">重新登录 / Log in again</a>';
    var html;
    if (kind === "login") {
      html = "<b>登录已结束：本页自 " + since + " 起不再更新。</b> " + login +
        "<br>Your login has ended: this page has not updated since " + since + ".";
    } else if (kind === "role") {
      html = "<b>本账号已无权查看总览：本页自 " + since + " 起不再更新。</b> " + login +
        "<br>This account may no longer see the overview: the page has not updated since " + since + ".";
    } else {
      html = "<b>数据已过期：自 " + since + " 起未能从赛事中心取得更新（" + esc(detail.zh) + "），正在重试。</b>" +
        "<br>Stale data: no update from the hub since " + since + " (" + esc(detail.en) + "); retrying.";
    }
    // Rewritten only when it says something new: a tap on its link is never lost to the next poll.
    if (said !== html) { banner.innerHTML = html; said = html; }
    banner.dataset.kind = kind;
    banner.hidden = false;
    if (root) root.classList.add("stale");
    document.getElementById("ov-mqtt").textContent = "未知（数据已过期）/ unknown (stale data)";
  }
  function fresh() {
    lastGood = new Date();
    banner.hidden = true;
    banner.textContent = "";
    delete banner.dataset.kind;
    said = null;
    if (root) root.classList.remove("stale");
  }
  function tick() {
    var answered = false;  // the hub answered: a failure after that is this page's, not the network's
    fetch("/hub/api/overview", {headers: {Accept: "application/json"}, credentials: "same-origin"})
      .then(function (r) {
        answered = true;
        if (r.status === 401) return stale("login");
        if (r.status === 403) return stale("role");
        if (!r.ok) return stale("error", {zh: "HTTP " + r.status, en: "HTTP " + r.status});
        return r.json().then(function (ov) { render(ov); fresh(); },
                             function () { stale("error", {zh: "回复无法读取", en: "an unreadable answer"}); });
      })
      .catch(function () {
        stale("error", answered ? {zh: "本页无法显示回复", en: "this page could not show the answer"}
                                : {zh: "连接中断", en: "no connection"});
      })
      .then(function () { setTimeout(tick, 2000); });
  }
  tick();
})();
