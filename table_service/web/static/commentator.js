/* 解说 / Commentator: one table for the commentator's tablet or phone, drawn from the delayed
   public feed alone (the overlay's stream, state.json and clock.json, through common.js's GT.connect):
   both sides' levels, each seat's cards left and report card, the current trick, the deal's last
   plays, tribute / return / anti-tribute as the public sees them (a return face down stays so),
   confirmed flags and penalties, the deal's and the round's results. Nothing here asks the live
   table: what the commentator says never runs ahead of what the audience sees. */
(function () {
  "use strict";
  const root = document.getElementById("cm");
  const el = GT.el;
  const PLAY_ORDER = ["E", "N", "W", "S"];  // counter-clockwise, as the deal is played
  const SIDE = { E: "EW", W: "EW", S: "NS", N: "NS" };
  let state = null;

  /* A side's team by name ("" without one), and the side as the commentator says it: its team, else 东西. */
  function teamOnly(side) {
    const t = state.teams && state.teams[side];
    return t ? GT.bi(t) : "";
  }
  function teamName(side) { return teamOnly(side) || GT.t("side_" + side); }
  function player(seat) { return (state.players && state.players[seat]) || ""; }
  function who(seat) {
    const name = player(seat);
    return GT.t("seat_" + seat) + (name ? " " + name : "");
  }
  function box(id) { return document.getElementById(id); }
  function line(cls, text) { return el("div", cls, text); }
  function empty(key) { return el("p", "muted", GT.t(key)); }

  /* --- head: round, deal, phase, level card; the delay; a duplicate board's hold */
  function renderHead() {
    const deal = state.deal;
    const head = box("cm-round");
    // "第 1 轮 · 第 2 副 · 出牌阶段" (it read "轮次 1 · 副 2 · 出牌").
    head.replaceChildren(el("span", "cm-where", GT.where(state) || GT.t("cm_no_deal")));
    if (deal && deal.level) {
      const lc = el("span", "cm-levelcard");
      lc.appendChild(el("span", "", GT.t("level_card") + " "));
      lc.appendChild(GT.cardEl(deal.level + "h", deal.level));
      head.appendChild(lc);
    }
    const d = Number((GT.clock && GT.clock.delay !== undefined ? GT.clock.delay : root.dataset.delay) || 0);
    box("cm-delay").textContent = d > 0 ? GT.tf("delayed", { n: d % 1 ? d.toFixed(1) : d }) : "";
    const held = box("cm-held");
    held.hidden = !state.held;
    held.textContent = state.held ? GT.t("cm_held") : "";
  }

  /* --- levels: both sides, the side whose level this deal plays marked */
  function renderLevels() {
    const lv = state.levels || {}, deal = state.deal;
    const out = ["EW", "NS"].map(function (side) {
      const row = el("div", "cm-side side-" + side + (deal && deal.level_side === side ? " playing" : ""));
      row.dataset.side = side;
      // The side in words (东西, not "EW"), its team's name beside it where it has one.
      row.appendChild(el("span", "chip", GT.t("side_" + side)));
      row.appendChild(el("span", "team", teamOnly(side)));
      row.appendChild(el("span", "lvl", GT.rank(lv[side])));
      return row;
    });
    if (deal && deal.level_side) out.push(line("muted small", GT.tf("cm_playing_level", { side: teamName(deal.level_side) })));
    box("cm-levels").replaceChildren.apply(box("cm-levels"), out);
  }

  /* --- seats in play order: cards left, report card, turn, finishing place, clock */
  function clockText(deal, seat) {
    const tm = deal.timers && deal.timers[seat];
    const left = tm ? GT.secondsLeft(tm, state) : null;
    return left === null ? "" : GT.tf("cm_seconds", { n: Math.max(-99, Math.round(left)) });
  }
  function renderSeats() {
    const deal = state.deal;
    const out = PLAY_ORDER.map(function (seat) {
      const card = el("div", "cm-seat side-" + SIDE[seat] + (deal && deal.turn === seat ? " turn" : ""));
      card.dataset.seat = seat;
      const top = el("div", "cm-seat-top");
      top.appendChild(el("span", "seat-tag", GT.t("seat_" + seat)));
      top.appendChild(el("span", "name", player(seat) || "—"));
      card.appendChild(top);
      if (!deal) return card;
      const stats = el("div", "cm-seat-stats");
      const n = deal.counts ? deal.counts[seat] : null;
      stats.appendChild(el("span", "left", n === null || n === undefined ? "—" : String(n)));
      stats.appendChild(el("span", "unit", GT.t("cards_unit")));
      const rep = deal.reports && deal.reports[seat];
      if (rep || (deal.report_lamps && deal.report_lamps[seat])) {
        stats.appendChild(el("span", "report-mark", rep && rep.count ? GT.tf("cm_reported", { n: rep.count }) : GT.t("report")));
      }
      const pos = (deal.finish_order || []).indexOf(seat);
      if (pos >= 0) stats.appendChild(el("span", "place", GT.t("place_" + (pos + 1))));
      if (deal.turn === seat) {
        stats.appendChild(el("span", "to-play", GT.t("cm_to_play")));
        stats.appendChild(el("span", "clock", clockText(deal, seat)));
      }
      card.appendChild(stats);
      return card;
    });
    box("cm-seats").replaceChildren.apply(box("cm-seats"), out);
  }

  function playEl(p, level, newest) {
    const row = el("li", "cm-play side-" + SIDE[p.seat] + (newest ? " newest" : ""));
    row.dataset.seq = String(p.seq);
    row.appendChild(el("span", "cm-who", who(p.seat)));
    if (p.pass) row.appendChild(el("span", "pass", GT.t("pass")));
    else {
      row.appendChild(GT.cardsEl(p.cards, level));
      if (p.kind) row.appendChild(el("span", "kind", GT.kind(p.kind)));
    }
    return row;
  }

  /* --- the current trick, in order, newest marked; the last plays of the deal, newest first */
  function renderPlays() {
    const deal = state.deal, level = deal && deal.level;
    const trick = box("cm-trick");
    const plays = (deal && deal.trick && deal.trick.plays) || [];
    if (!plays.length) {
      trick.replaceChildren(empty(deal ? "cm_no_plays" : "cm_no_deal"));
      if (deal && deal.leader) trick.appendChild(line("muted", who(deal.leader) + " · " + GT.t("cm_leads")));
    } else {
      const list = el("ol", "cm-plays");
      plays.forEach(function (p, i) { list.appendChild(playEl(p, level, i === plays.length - 1)); });
      trick.replaceChildren(list);
    }
    const recent = box("cm-recent");
    const items = (state.recent_plays || []).slice().reverse();
    recent.replaceChildren.apply(recent, items.map(function (p, i) { return playEl(p, level, i === 0); }));
    if (!items.length) recent.appendChild(el("li", "muted", GT.t("cm_no_plays")));
  }

  /* --- tribute, return (face down until every return is given: the feed leaves its card out), anti-tribute */
  function renderTribute() {
    const deal = state.deal, out = [];
    if (deal && deal.anti_tribute) {
      const a = deal.anti_tribute, row = line("cm-anti", GT.t("anti_tribute") + GT.colon() + (a.seats || []).map(who).join("、") + " ");
      row.appendChild(GT.cardsEl(a.cards, deal.level));
      out.push(row);
    }
    [["tributes", "tribute"], ["returns", "return"]].forEach(function (kind) {
      ((deal && deal[kind[0]]) || []).forEach(function (t) {
        const row = line("cm-" + kind[1], GT.t(kind[1]) + GT.colon() + who(t.from) + " → " + who(t.to) + " ");
        if (t.card) row.appendChild(GT.cardsEl([t.card], deal.level));
        else row.appendChild(el("span", "face-down", GT.t("cm_face_down")));
        out.push(row);
      });
    });
    const tr = box("cm-tribute");
    tr.replaceChildren.apply(tr, out.length ? out : [empty("cm_none")]);
  }

  /* --- confirmed flags and penalties (the public state holds no other kind) */
  function renderRulings() {
    const out = [];
    (state.flags || []).forEach(function (f) {
      out.push(line("cm-flag", GT.t("flags") + " · " + GT.rule(f) + (f.seat ? " · " + who(f.seat) : "") +
        (f.deal ? " · " + GT.tf("deal_no", { n: f.deal }) : "")));
    });
    (state.penalties || []).forEach(function (r) {
      out.push(line("cm-penalty penalty-" + r.level, GT.t(r.level) + " · " + teamName(r.side) +
        (r.seat ? " · " + who(r.seat) : "") + (r.article ? " · " + GT.bi(r.article) : "")));
    });
    const rl = box("cm-rulings");
    rl.replaceChildren.apply(rl, out.length ? out : [empty("cm_none")]);
  }

  /* --- the deal's finishing order once over, each deal's gain, the round's result */
  function renderResults() {
    const out = [], deal = state.deal, res = state.result;
    if (res) {
      const won = line("cm-result", res.winner ? GT.tf("cm_winner", { side: teamName(res.winner) }) : GT.t("result") + ": —");
      won.appendChild(el("span", "muted", GT.paren(GT.w(res.reason))));
      out.push(won);
      if (res.level_points) out.push(line("", GT.t("level_points") + GT.colon() + teamName("EW") + " " + res.level_points.EW + " : " + res.level_points.NS + " " + teamName("NS")));
      if (res.match_points) out.push(line("", GT.t("match_points") + GT.colon() + teamName("EW") + " " + res.match_points.EW + " : " + res.match_points.NS + " " + teamName("NS")));
    }
    if (deal && deal.phase === "over" && (deal.finish_order || []).length) {
      out.push(line("cm-finish", GT.tf("deal_no", { n: deal.no }) + " · " + deal.finish_order.map(function (s, i) {
        return GT.t("place_" + (i + 1)) + " " + who(s);
      }).join(" · ")));
    }
    (state.score_sheet || []).slice().reverse().forEach(function (r) {
      // The levels after the deal by team ("级数 南京 5 · 常州 3"; it said "EW 5 / NS 3").
      const after = r.levels_after ? " · " + GT.t("levels") + " " + teamName("EW") + " " + GT.rank(r.levels_after.EW) +
        " · " + teamName("NS") + " " + GT.rank(r.levels_after.NS) : "";
      out.push(line("cm-sheet-row", GT.tf("deal_no", { n: r.deal }) + " · " +
        (r.gain ? GT.tf("cm_gain", { side: teamName(r.gain.side), n: r.gain.levels }) : "—") + after));
    });
    const rs = box("cm-results");
    rs.replaceChildren.apply(rs, out.length ? out : [empty("cm_none")]);
  }

  function render() {
    if (!state) return;
    renderHead();
    renderLevels();
    renderSeats();
    renderPlays();
    renderTribute();
    renderRulings();
    renderResults();
  }
  /* The seat to play's clock runs on between states (the public clock: table time − delay). */
  function tick() {
    if (!state || !state.deal || !state.deal.turn) return;
    const c = document.querySelector('#cm-seats [data-seat="' + state.deal.turn + '"] .clock');
    if (c) c.textContent = clockText(state.deal, state.deal.turn);
  }
  GT.rerender = render;
  GT.startClock(root.dataset.clock);
  GT.clockListeners.push(tick);
  setInterval(tick, 500);
  GT.connect(root.dataset.stream, root, function (st) { state = st; render(); });
})();
