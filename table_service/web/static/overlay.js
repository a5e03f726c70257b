/* Broadcast overlay (OBS browser source): the public, delayed feed drawn as TV graphics on a
   1920×1080 stage scaled to the source. Seat plates (name, cards left, report mark, running
   clock), the score bug (teams by name, levels, the level card; "waiting for the round" before
   one), the current trick (bounded: the last plays, newest emphasised), an info box where the
   trick is while none runs (the tribute before the first lead, the deal's result between deals,
   the round's result at its end), short-lived pop-ups for flags and rulings, and the
   "delayed N s" mark — or, while a duplicate deal is held for the other room, the mark that
   says so. ?lang=en for English, ?popup_s=N for how long a pop-up stays (default 8 s).

   Each part is built once and then only changed where its data changed (the s37 producer's
   audit: ~113 elements rebuilt on every event restarted the report mark's glow each time). */
(function () {
  "use strict";
  const root = document.getElementById("ov");
  const stage = document.getElementById("stage");
  const el = GT.el;
  const SEATS = ["E", "S", "W", "N"];
  const SIDES = ["EW", "NS"];
  const SIDE = { E: "EW", W: "EW", S: "NS", N: "NS" };
  const MAX_TRICK = 5;       // plays shown in the trick rail (older ones counted)
  const MAX_POPS = 3;
  /* A released duplicate deal arrives as a burst (every event of it is long due): the overlay
     draws where the burst ends once nothing more came for this long, instead of replaying it. */
  const QUIET_MS = 400;
  const NAME_PX = 30;        // a name's type on the stage before a long one is set smaller…
  const MIN_PX = 22;         // …down to the smallest type (14.7 px at 720p), then cut in the middle
  const params = new URLSearchParams(location.search);
  const POP_MS = Math.max(0.5, Number(params.get("popup_s")) || 8) * 1000;
  let state = null;          // the newest public state received
  let drawn = null;          // the state the screen shows
  let heldShown = null;      // the deal number the drawn state says is held (null: none)
  let quiet = null;          // timer of a release's burst
  let first = true;
  const seenFlags = new Set(), seenPens = new Set();
  const memo = Object.create(null);  // part -> what it was last drawn from

  /* --- stage: designed at 1920×1080, scaled to the browser source (broadcast_stage.js) */
  GTStage.fit(stage, root);

  /* Whether a part's data differs from what it was last drawn from (and remember the new). */
  function changed(part, value) {
    const sig = JSON.stringify(value);
    if (memo[part] === sig) return false;
    memo[part] = sig;
    return true;
  }
  function setText(node, text) {
    const t = text === null || text === undefined ? "" : String(text);
    if (node.textContent !== t) node.textContent = t;
  }
  function setClass(node, cls) { if (node.className !== cls) node.className = cls; }

  /* A name in its box: at `maxPx`, smaller down to `minPx` while it does not fit, then cut in the
     middle, its head and tail kept ("江苏省淮安…掼蛋一队"): two teams of one region differ at the end
     of their names, which an ellipsis at the end cut away. The whole name stays in `title` and
     `data-full`. */
  function fitText(node, text, maxPx, minPx) {
    text = String(text || "");
    node.dataset.full = text;
    node.textContent = text;
    node.removeAttribute("title");
    let size = maxPx;
    node.style.fontSize = size + "px";
    const fits = function () { return node.scrollWidth <= node.clientWidth + 1; };
    while (size > minPx && !fits()) { size -= 1; node.style.fontSize = size + "px"; }
    if (fits()) return;
    node.title = text;
    const chars = Array.from(text);
    const cut = function (k) {
      const tail = Math.ceil(k / 2), head = k - tail;
      return chars.slice(0, head).join("") + "…" + chars.slice(chars.length - tail).join("");
    };
    let lo = 1, hi = chars.length - 1, best = cut(1);
    while (lo <= hi) {
      const k = (lo + hi) >> 1;
      node.textContent = cut(k);
      if (fits()) { best = node.textContent; lo = k + 1; } else hi = k - 1;
    }
    node.textContent = best;
  }

  /* A side's team by name (the public state's teams are names: views/feed.py public_teams), or ""
     where the round names none (its teams are then the sides' own ids). */
  function teamName(side) {
    const t = drawn.teams && drawn.teams[side];
    return t && t !== side ? GT.bi(t) : "";
  }
  function sideLabel(side) { return GT.t("side_" + side); }
  function sideTeam(side) { const t = teamName(side); return sideLabel(side) + (t ? " " + t : ""); }
  function player(seat) { return (drawn.players && drawn.players[seat]) || ""; }
  function seatWho(seat) { const p = player(seat); return GT.t("seat_" + seat) + (p ? " " + p : ""); }
  /* The deal being played and shown: none while the next deal is held (the public state still
     holds the deal before it, ended). */
  function liveDeal() { return drawn.held ? null : drawn.deal; }

  /* --- score bug: table, round and deal; both sides' teams and levels; the level card */
  const bug = { rows: {} };
  (function buildBug() {
    const box = el("div", "bug-inner");
    const head = el("div", "bug-head");
    bug.table = el("span", "bug-table");
    bug.rd = el("span", "bug-rd");
    head.append(bug.table, bug.rd);
    box.appendChild(head);
    bug.wait = el("div", "bug-wait");
    box.appendChild(bug.wait);
    SIDES.forEach(function (side) {
      const row = el("div", "bug-side side-" + side);
      row.dataset.side = side;
      const r = { row: row, chip: el("span", "chip"), team: el("span", "team"), lvl: el("span", "lvl") };
      row.append(r.chip, r.team, r.lvl);
      box.appendChild(row);
      bug.rows[side] = r;
    });
    bug.level = el("div", "bug-level");
    bug.levelLabel = el("span", "label");
    bug.levelCard = el("span", "lc");
    bug.level.append(bug.levelLabel, bug.levelCard);
    box.appendChild(bug.level);
    document.getElementById("ov-bug").replaceChildren(box);
  })();

  function renderBug() {
    const rnd = drawn.round, deal = liveDeal(), held = drawn.held;
    setText(bug.table, GT.tf("ov_table", { n: root.dataset.table }));
    const d = held ? held.deal : (drawn.deal ? drawn.deal.no : null);
    setText(bug.rd, !rnd ? "" : d ? GT.tf("ov_round_deal", { r: rnd.no, d: d }) : GT.tf("ov_round", { r: rnd.no }));
    // Before the first round: the wait said, not two sides at level 2 with no teams.
    bug.wait.hidden = !!rnd;
    setText(bug.wait, GT.t("ov_waiting"));
    const lv = drawn.levels || {};
    SIDES.forEach(function (side) {
      const r = bug.rows[side];
      r.row.hidden = !rnd;
      r.row.classList.toggle("playing", !!(deal && deal.level_side === side));
      setText(r.chip, sideLabel(side));
      setText(r.lvl, GT.rank(lv[side]));
    });
    if (rnd && changed("teams", [teamName("EW"), teamName("NS"), window.LANG])) {
      // Both names first, then each fitted: the box's width follows the longer.
      SIDES.forEach(function (side) { bug.rows[side].team.style.fontSize = ""; bug.rows[side].team.textContent = teamName(side); });
      SIDES.forEach(function (side) { fitText(bug.rows[side].team, teamName(side), NAME_PX, MIN_PX); });
    }
    const level = deal && deal.level ? deal.level : null;
    bug.level.hidden = !level;
    if (level && changed("level", [level, window.LANG])) {
      bug.levelLabel.textContent = GT.t("level_card");
      bug.levelCard.replaceChildren(GT.cardEl(level + "h", level));
    }
  }

  /* --- seat plates: built once, each field changed only when its value does */
  const plates = {};
  SEATS.forEach(function (seat) {
    const p = {};
    p.box = el("div", "plate-inner side-" + SIDE[seat]);
    p.box.appendChild(el("div", "stripe"));
    const who = el("div", "who");
    p.tag = el("span", "seat-tag");
    p.name = el("span", "name");
    who.append(p.tag, p.name);
    p.stats = el("div", "stats");
    p.count = el("span", "cards-left");
    p.unit = el("span", "unit");
    p.report = el("span", "report-mark lamp report off");
    p.report.dataset.on = "0";
    p.place = el("span", "place");
    p.place.hidden = true;
    p.stats.append(p.count, p.unit, p.report, p.place);
    p.clock = el("div", "clock idle");
    p.clock.id = "ov-clock-" + seat;
    p.num = el("span", "clock-num");
    const bar = el("div", "clock-bar");
    p.fill = el("i");
    bar.appendChild(p.fill);
    p.clock.append(p.num, bar);
    p.box.append(who, p.stats, p.clock);
    document.getElementById("ov-seat-" + seat).replaceChildren(p.box);
    plates[seat] = p;
  });

  function renderPlate(seat) {
    const p = plates[seat], deal = liveDeal();
    p.box.classList.toggle("turn", !!(deal && deal.turn === seat));
    setText(p.tag, GT.t("seat_" + seat));
    // The seat once, and the player's name beside it (none before a round: not "北 北").
    p.stats.hidden = !deal;
    // Fitted again when the stats come or go: the room the name has changes with them.
    if (changed("name-" + seat, [player(seat), window.LANG, !!deal])) fitText(p.name, player(seat), NAME_PX, MIN_PX);
    if (deal) {
      const n = deal.counts ? deal.counts[seat] : null;
      setText(p.count, n === null || n === undefined ? "" : String(n));
      p.count.dataset.count = String(n);
      setText(p.unit, GT.t("cards_unit"));
      // Toggled, never rebuilt: a mark that stays on keeps its glow running.
      const on = !!(deal.report_lamps && deal.report_lamps[seat]);
      p.report.classList.toggle("on", on);
      p.report.classList.toggle("off", !on);
      p.report.dataset.on = on ? "1" : "0";
      setText(p.report, GT.t("report_mark"));
      const pos = (deal.finish_order || []).indexOf(seat);
      p.place.hidden = pos < 0;
      if (pos >= 0) {
        setClass(p.place, "place place-" + (pos + 1));
        setText(p.place, GT.t("place_" + (pos + 1)));
      }
    }
    tickClock(seat);
  }

  function clockOf(seat) {
    const deal = drawn && liveDeal();
    const tm = deal && deal.phase !== "over" && deal.timers && deal.timers[seat];
    if (!tm) return null;
    const left = GT.secondsLeft(tm, drawn);
    if (left === null) return null;
    const total = tm.started_ms ? (tm.deadline_ms - tm.started_ms) / 1000 : 20;
    return { left: left, frac: total > 0 ? Math.max(0, Math.min(1, left / total)) : 0 };
  }

  function tickClock(seat) {
    if (!drawn) return;
    const p = plates[seat];
    const ck = clockOf(seat);
    p.clock.classList.toggle("idle", !ck);
    if (!ck) { setText(p.num, ""); return; }
    const over = ck.left < 0;
    p.clock.classList.toggle("over", over);
    p.clock.classList.toggle("low", !over && ck.left <= 5);
    setText(p.num, over ? "+" + Math.floor(-ck.left) : String(Math.ceil(ck.left)));
    p.fill.style.width = (ck.frac * 100).toFixed(1) + "%";
  }
  setInterval(function () { SEATS.forEach(tickClock); }, 200);

  /* --- the current trick: the last plays, newest emphasised, never more than fits */
  function ruledSeqs() {
    const s = new Set();
    (drawn.flags || []).forEach(function (f) { if (f.seq) s.add(f.seq); });
    return s;
  }

  function renderTrick(infoShown) {
    const rail = document.getElementById("ov-trick");
    const deal = liveDeal();
    const plays = deal && !infoShown ? (deal.trick && deal.trick.plays) || [] : [];
    rail.hidden = plays.length === 0;
    const ruled = ruledSeqs();
    if (!changed("trick", [plays, deal && deal.level, plays.filter(function (p) { return ruled.has(p.seq); }).map(function (p) { return p.seq; }),
      drawn.players, window.LANG])) return;
    function build(shown) {
      const box = el("div", "rail-inner");
      const hidden = plays.length - shown;
      if (hidden > 0) box.appendChild(el("div", "earlier", GT.tf("earlier_plays", { n: hidden })));
      plays.slice(plays.length - shown).forEach(function (p, i, arr) {
        const newest = i === arr.length - 1;
        const row = el("div", "tplay side-" + SIDE[p.seat] + (newest ? " newest" : "") + (p.pass ? " is-pass" : "") +
          (ruled.has(p.seq) ? " ruled" : ""));
        row.dataset.seq = p.seq;
        const seatLine = el("div", "tseat");
        if (ruled.has(p.seq)) seatLine.appendChild(el("span", "ruled-tag", GT.t("ruled")));
        seatLine.appendChild(document.createTextNode(GT.t("seat_" + p.seat) + (player(p.seat) ? " · " + player(p.seat) : "")));
        row.appendChild(seatLine);
        if (p.pass) row.appendChild(el("div", "pass", GT.t("pass")));
        else {
          const cards = GT.cardsEl(p.cards, deal.level);
          cards.classList.add(p.cards.length > 5 ? "fan" : "spread");
          row.appendChild(cards);
          if (p.kind) row.appendChild(el("div", "tkind", GT.kind(p.kind)));
        }
        box.appendChild(row);
      });
      return box;
    }
    if (!plays.length) { rail.replaceChildren(); rail.dataset.shown = "0"; return; }
    let shown = Math.min(MAX_TRICK, plays.length);
    rail.replaceChildren(build(shown));
    // Bounded: drop the oldest shown play until the rail fits its box (long bombs, straights).
    while (shown > 1 && rail.firstChild.offsetWidth > rail.clientWidth + 1) {
      shown -= 1;
      rail.replaceChildren(build(shown));
    }
    rail.dataset.shown = String(shown);
  }

  /* --- the info box: what the table does between the plays, as data ({kind, title, lines}), each
     line a list of parts ({t: text, c: class}, {card}, {cards}); drawn only when it changes. */
  function tributeLines(deal) {
    const lines = [];
    const anti = deal.anti_tribute;
    if (anti && anti.seats && anti.seats.length) {
      lines.push([{ t: GT.t("anti_tribute"), c: "what" }, { t: anti.seats.map(seatWho).join(" · ") },
        { cards: anti.cards || [] }]);
    }
    const returns = (deal.returns || []).slice();
    (deal.tributes || []).forEach(function (t) {
      const line = [{ t: GT.t("tribute"), c: "what" }, { t: seatWho(t.from) }, { t: "→", c: "arrow" }, { t: seatWho(t.to) }];
      line.push(t.card ? { card: t.card } : { t: GT.t("ov_face_down"), c: "down" });
      // The return that answers this tribute, on the same line (a double-down's two fit two lines).
      const i = returns.findIndex(function (r) { return r.from === t.to && r.to === t.from; });
      if (i >= 0) {
        const r = returns.splice(i, 1)[0];
        line.push({ t: "", c: "sep" }, { t: GT.t("return"), c: "what" }, { t: seatWho(r.from) }, { t: "→", c: "arrow" },
          { t: seatWho(r.to) }, r.card ? { card: r.card } : { t: GT.t("ov_face_down"), c: "down" });
      }
      lines.push(line);
    });
    returns.forEach(function (r) {
      lines.push([{ t: GT.t("return"), c: "what" }, { t: seatWho(r.from) }, { t: "→", c: "arrow" }, { t: seatWho(r.to) },
        r.card ? { card: r.card } : { t: GT.t("ov_face_down"), c: "down" }]);
    });
    return lines;
  }

  function placesLine(order) {
    const line = [];
    (order || []).forEach(function (seat, i) {
      if (i) line.push({ t: "·", c: "sep" });
      line.push({ t: GT.t("place_" + (i + 1)), c: "place place-" + (i + 1) }, { t: player(seat) || GT.t("seat_" + seat) });
    });
    return line;
  }

  function infoModel() {
    const rnd = drawn.round, deal = drawn.deal, res = drawn.result;
    if (!rnd) return null;
    if (res) {
      // The round's end: who won, and the points the hub will count (state.result).
      const lines = [[res.winner ? { t: GT.tf("ov_wins", { side: sideTeam(res.winner) }), c: "gain", fit: true }
        : { t: GT.t("ov_draw"), c: "gain" }]];
      const mp = res.match_points, lp = res.level_points;
      if (mp) lines.push([{ t: GT.t("match_points"), c: "what" }, { t: sideLabel("EW") + " " + mp.EW + " : " + mp.NS + " " + sideLabel("NS") }]);
      if (lp) lines.push([{ t: GT.t("level_points"), c: "what" }, { t: sideLabel("EW") + " " + lp.EW + " : " + lp.NS + " " + sideLabel("NS") }]);
      const why = res.reason && window.I18N["st_" + res.reason] ? " · " + GT.t("st_" + res.reason) : "";
      return { kind: "round", title: GT.tf("ov_round_over", { r: rnd.no }) + why, lines: lines, level: null };
    }
    if (deal && deal.phase === "over") {
      // Between deals (and while the next one is held): the places and the levels gained.
      const row = (drawn.score_sheet || []).filter(function (r) { return r.deal === deal.no; }).pop();
      const lines = [];
      if (row && row.gain && row.gain.side && row.gain.levels > 0) {
        lines.push([{ t: GT.tf("ov_gain", { side: sideLabel(row.gain.side), n: row.gain.levels }), c: "gain" },
          { t: teamName(row.gain.side), c: "what" }]);
      } else if (row) lines.push([{ t: GT.t("ov_no_gain"), c: "gain" }]);
      lines.push(placesLine(row ? row.finish_order : deal.finish_order));
      return { kind: "deal", title: GT.tf("ov_deal_result", { d: deal.no }), lines: lines, level: null };
    }
    const live = liveDeal();
    const played = (drawn.recent_plays || []).length || (live && live.trick && (live.trick.plays || []).length);
    if (live && !played && ((live.tributes || []).length || (live.returns || []).length || live.anti_tribute)) {
      // The tribute until the first lead: who gave whom which card (a return face down stays so).
      return { kind: "tribute", title: GT.t(live.anti_tribute ? "anti_tribute" : "ov_tribute_title"), lines: tributeLines(live),
        level: live.level };
    }
    return null;
  }

  function renderInfo() {
    const box = document.getElementById("ov-info");
    const m = infoModel();
    box.hidden = !m;
    if (!m || !changed("info", [m, window.LANG])) return !!m;
    const inner = el("div", "info-inner info-" + m.kind);
    inner.appendChild(el("div", "info-title", m.title));
    m.lines.forEach(function (line) {
      const row = el("div", "info-line");
      line.forEach(function (part) {
        if (part.card) row.appendChild(GT.cardEl(part.card, m.level));
        else if (part.cards) row.appendChild(GT.cardsEl(part.cards, m.level));
        else if (part.t) {
          const s = el("span", part.c || "", part.t);
          if (part.fit) s.dataset.fit = "1";
          row.appendChild(s);
        }
      });
      inner.appendChild(row);
    });
    box.replaceChildren(inner);
    box.dataset.kind = m.kind;
    inner.querySelectorAll("[data-fit]").forEach(function (n) { fitText(n, n.textContent, 34, MIN_PX); });
    return true;
  }

  /* --- pop-ups: a confirmed flag or a penalty, shown for POP_MS, then gone */
  function pop(kind, title, lines) {
    const box = document.getElementById("ov-pops");
    const p = el("div", "pop pop-" + kind);
    p.appendChild(el("div", "pop-title", title));
    lines.forEach(function (l) { if (l) p.appendChild(el("div", "pop-line", l)); });
    box.appendChild(p);
    while (box.children.length > MAX_POPS) box.firstChild.remove();
    requestAnimationFrame(function () { p.classList.add("in"); });
    setTimeout(function () { p.classList.remove("in"); p.classList.add("out"); }, POP_MS - 400);
    setTimeout(function () { p.remove(); }, POP_MS);
  }

  function popups() {
    const now = GT.tableNow(drawn);
    // On the first state (page load) only what happened in the last POP_MS of table time pops up.
    const recent = function (t) { return !first || (now !== null && t && now - t < POP_MS * GT.clock.speed); };
    (drawn.flags || []).forEach(function (f) {
      if (seenFlags.has(f.id)) return;
      seenFlags.add(f.id);
      if (recent(f.t_ms)) pop("flag", GT.t("flag_called"), [GT.rule(f), f.seat ? seatWho(f.seat) : ""]);
    });
    (drawn.penalties || []).forEach(function (r, i) {
      const key = (drawn.round ? drawn.round.no : 0) + ":" + (r.seq || i);
      if (seenPens.has(key)) return;
      seenPens.add(key);
      if (recent(r.t_ms)) pop("penalty", GT.t("ruling") + " · " + GT.t(r.level),
        [sideTeam(r.side) + (r.seat ? " · " + seatWho(r.seat) : ""), GT.bi(r.article || "")]);
    });
  }

  /* --- top right: the delay, or — while a duplicate deal waits for the other room — that it does
     (a delay of seconds claimed while the deal was kept for minutes was the audit's "false delay") */
  function renderMark() {
    const d = Number((GT.clock && GT.clock.delay !== undefined ? GT.clock.delay : root.dataset.delay) || 0);
    const mark = document.getElementById("ov-delay");
    const held = !!(drawn && drawn.held);
    mark.classList.toggle("held", held);
    mark.hidden = !held && !(d > 0);
    const text = held ? GT.t("ov_held") : GT.tf("live_delayed", { n: d % 1 ? d.toFixed(1) : d });
    if (changed("mark", text)) mark.replaceChildren(el("span", "dot"), el("span", "", text));
  }

  function render(force) {
    if (!state) return;
    if (force === true) Object.keys(memo).forEach(function (k) { delete memo[k]; });
    clearTimeout(quiet);
    quiet = null;
    drawn = state;
    heldShown = drawn.held ? drawn.held.deal : null;
    root.dataset.catchingUp = "0";
    renderBug();
    SEATS.forEach(renderPlate);
    renderTrick(renderInfo());
    renderMark();
    popups();
    first = false;
    root.dataset.drawnSeq = String(drawn.last_seq);
  }

  /* A state arrives. While a held deal is shown, the release lets all of that deal through at once
     (175 updates in 0.6 s, the audit measured): drawn once the burst is over, so the screen goes from
     "held" to where the deal ended — or, when the burst stops at the next held deal, at once. */
  function onState(st) {
    state = st;
    if (drawn && heldShown !== null && !st.held) {
      root.dataset.catchingUp = "1";
      clearTimeout(quiet);
      quiet = setTimeout(render, QUIET_MS);
      return;
    }
    render();
  }

  GT.rerender = function () { render(true); };
  // Names were fitted with whatever font was there; once the page's fonts are in, fitted again.
  if (document.fonts && document.fonts.ready) document.fonts.ready.then(function () { render(true); });
  GT.clockListeners.push(function () { SEATS.forEach(tickClock); if (drawn) renderMark(); });
  GT.startClock(root.dataset.clock);
  GT.connect(root.dataset.stream, root, onState);
})();
