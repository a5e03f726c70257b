/* The deal-by-deal score sheet, live: gains, levels, penalties, the result with level-difference
   points, and each side's signature (a score_sheet_signed event). */
(function () {
  "use strict";
  const app = document.getElementById("app");
  const el = GT.el;
  let state = null;

  function td(tr, text) { tr.appendChild(el("td", "", text)); }
  /* A side by its team where the round has one (common.js GT.sideLabelEl: 东西 / EW without), the
     sheet said "EW" / "NS": the players who sign read their team, not a compass. */
  function side(s) { return GT.sideLabelEl(state, s); }
  /* A line that names sides: text and side labels in turn, one line (a long name cut, whole in its title). */
  function sideLine(cls, parts) {
    const line = el("div", "side-line" + (cls ? " " + cls : ""));
    parts.forEach(function (p, i) {
      if (i) line.appendChild(document.createTextNode(" "));  // read and copied as words (the gap spaces them on screen)
      line.appendChild(typeof p === "string" ? el("span", "", p) : p);
    });
    return line;
  }
  /* A finishing order in the words of the game: "上游 东 E · 二游 北 N · …" (the sheet said "东 E › 北 N"). */
  function placed(order) {
    return (order || []).map(function (s, i) {
      return (window.I18N["place_" + (i + 1)] ? GT.t("place_" + (i + 1)) + " " : "") + GT.seat(s);
    }).join(" · ");
  }
  const ORDER = "23456789TJQKA";
  /* Level difference d after a deal, and the 13-level / 26-point level-difference points it
     would give if the round ended there: leader 13 + d, trailer 13 - d (East-West's first, as the
     column's head names them). */
  function levelDiff(cell, lv) {
    if (!lv) return;
    const d = ORDER.indexOf(lv.EW) - ORDER.indexOf(lv.NS);
    if (d === 0) { cell.appendChild(sideLine("diff-lead", ["0"])); cell.appendChild(el("div", "diff-points", "13 : 13")); return; }
    const a = Math.min(Math.abs(d), 13);
    cell.appendChild(sideLine("diff-lead", [side(d > 0 ? "EW" : "NS"), "+" + a]));
    cell.appendChild(el("div", "diff-points", d > 0 ? (13 + a) + " : " + (13 - a) : (13 - a) + " : " + (13 + a)));
  }

  function render() {
    if (!state) return;
    const rows = document.getElementById("sheet-rows");
    rows.replaceChildren();
    (state.score_sheet || []).forEach(function (r) {
      const tr = el("tr");
      tr.dataset.deal = r.deal;
      td(tr, r.deal);
      td(tr, GT.rank(r.level));
      td(tr, placed(r.finish_order));
      const gain = el("td", "gain");
      gain.appendChild(r.gain ? sideLine("", [side(r.gain.side), "+" + r.gain.levels]) : el("span", "", "—"));
      tr.appendChild(gain);
      // The levels after the deal by team, a line each (a long name cut: the head names it whole).
      const after = el("td", "levels-after");
      if (r.levels_after) ["EW", "NS"].forEach(function (side) {
        const line = el("div", "lv-side");
        line.dataset.side = side;
        line.appendChild(GT.sideLabelEl(state, side));
        line.appendChild(el("span", "lv-level", GT.rank(r.levels_after[side])));
        after.appendChild(line);
      });
      tr.appendChild(after);
      const diff = el("td", "level-diff");
      levelDiff(diff, r.levels_after);
      tr.appendChild(diff);
      td(tr, r.ended_by && r.ended_by !== "play" ? GT.w(r.ended_by) : "");
      rows.appendChild(tr);
    });
    const pen = document.getElementById("sheet-penalties");
    pen.replaceChildren();
    ((state.penalties && state.penalties.records) || []).forEach(function (r, i) {
      const tr = el("tr", "penalty-" + r.level);
      td(tr, i + 1);
      const who = el("td", "penalty-side");
      who.appendChild(r.side ? sideLine("", [side(r.side)]) : el("span", "", "—"));
      tr.appendChild(who);
      td(tr, r.seat ? GT.seat(r.seat) : "—");
      td(tr, GT.t(r.level) + (r.auto ? GT.paren(GT.t("auto")) : "")); td(tr, GT.bi(r.article || ""));
      pen.appendChild(tr);
    });
    const rnd = state.round || {};
    const head = document.getElementById("sheet-head");
    head.textContent = (rnd.no !== undefined ? GT.tf("score_bug_round", { n: rnd.no }) + " · " : "") +
      (rnd.players ? ["E", "S", "W", "N"].map(function (s) { return GT.seat(s) + GT.colon() + (rnd.players[s] || ""); }).join(" · ") : "");
    GT.fillLevels(document.getElementById("sheet-levels"), state.levels, state);
    // The level-difference column's points are East-West's first: its head names the two teams.
    const diffHead = document.getElementById("level-diff-sides");
    if (diffHead) diffHead.replaceChildren(sideLine("", [side("EW"), ":", side("NS")]));
    const res = document.getElementById("sheet-result");
    res.replaceChildren();
    if (state.result) {
      const r = state.result;
      res.appendChild(sideLine("winner", [GT.t("result") + ":", r.winner ? side(r.winner) : "—", "(" + GT.w(r.reason) + ")"]));
      if (r.level_points) res.appendChild(sideLine("level-points", [GT.t("level_points") + ":", side("EW"), r.level_points.EW + " :",
        side("NS"), String(r.level_points.NS)]));
      if (r.match_points) res.appendChild(sideLine("match-points", [GT.t("match_points") + ":", side("EW"), r.match_points.EW + " :",
        side("NS"), String(r.match_points.NS)]));
    } else res.appendChild(el("div", "muted", "—"));
    const sig = document.getElementById("signatures");
    sig.replaceChildren();
    const canSign = app.dataset.role !== "viewer";
    ["EW", "NS"].forEach(function (s) {
      const signed = state.signatures && state.signatures[s];
      const box = el("div", "signature " + (signed ? "signed" : ""));
      box.id = "sign-" + s;
      box.dataset.signed = signed ? "1" : "0";
      // Which team signs, on the screen and on the printed sheet: "东西 · 江苏队 签字" (the sheet said "EW:").
      const head = el("div", "sig-head");
      head.appendChild(GT.sideSays("signature_of", GT.sideTeamEl(state, s)));
      box.appendChild(head);
      box.appendChild(el("div", "sig-line", signed ? "✓ " + GT.t("signed") : ""));
      if (!signed && canSign && state.result) {
        const b = el("button", "sign-button");
        b.type = "button";
        b.title = GT.t("sign") + " · " + GT.sideTeam(state, s);
        b.appendChild(GT.sideSays("sign_for", side(s)));  // the side's value sent stays its id
        b.onclick = async function () {
          const r = await GT.post(app.dataset.actions, { type: "score_sheet_signed", data: { side: s } });
          // The refusal in the view's language ("本轮尚未结束", not both halves and the event's name).
          GT.toast(r.ok ? GT.t("done") : GT.t("rejected") + GT.colon() + GT.refusal((r.json && r.json.error) ||
            GT.both("http_error", { n: r.status })), r.ok);
        };
        box.appendChild(b);
      }
      sig.appendChild(box);
    });
  }
  /* --- past deals (往副记录), for an appeal: every ended deal of this round and the rounds before
     (the engine's deal_records, and rounds[].deal_records), each folded to one line: its number,
     level card, tribute / return, each trick's plays seat by seat, the finishing order. Redrawn
     only when the records change, and a deal the referee opened stays open. */
  const openDeals = {};
  let shownPast = null;
  function pastRounds() {
    const out = [];
    if (state.round) out.push({ no: state.round.no, records: state.deal_records || [] });
    (state.rounds || []).slice().reverse().forEach(function (a) {
      out.push({ no: a.round ? a.round.no : "?", records: a.deal_records || [] });
    });
    return out.filter(function (r) { return r.records.length; });
  }
  function tributeLine(label, t, level) {
    const row = el("div", "play past-tribute");
    row.appendChild(el("span", "who", label + GT.colon() + GT.seat(t.from) + " → " + GT.seat(t.to)));
    row.appendChild(GT.cardEl(t.card, level));
    return row;
  }
  function dealEl(roundNo, rec) {
    const key = roundNo + ":" + rec.deal;
    const box = el("details", "flag-group past-deal");
    box.dataset.round = String(roundNo);
    box.dataset.deal = String(rec.deal);
    box.open = !!openDeals[key];
    box.addEventListener("toggle", function () { openDeals[key] = box.open; });
    const tricks = rec.tricks || [];
    box.appendChild(el("summary", "", GT.tf("deal_no", { n: rec.deal }) + " · " + GT.t("level_card") + " " + GT.rank(rec.level) +
      " · " + GT.tf("tricks_count", { n: tricks.length })));
    const order = el("div", "past-order");
    order.appendChild(el("span", "", GT.t("finish_order") + GT.colon() + placed(rec.finish_order)));
    box.appendChild(order);
    if (rec.anti_tribute) {
      const a = el("div", "play past-tribute");
      a.appendChild(el("span", "who", GT.t("anti_tribute") + GT.colon() + (rec.anti_tribute.seats || []).map(GT.seat).join(", ")));
      (rec.anti_tribute.cards || []).forEach(function (c) { a.appendChild(GT.cardEl(c, rec.level)); });
      box.appendChild(a);
    }
    (rec.tributes || []).forEach(function (t) { box.appendChild(tributeLine(GT.t("tribute"), t, rec.level)); });
    (rec.returns || []).forEach(function (t) { box.appendChild(tributeLine(GT.t("return"), t, rec.level)); });
    tricks.forEach(function (plays, i) {
      const tr = el("div", "trick-row past-trick");
      tr.dataset.trick = String(i + 1);
      tr.appendChild(el("span", "trick-no", (i + 1) + "."));
      (plays || []).forEach(function (p) {
        // The cards straight in the row (a .play wraps): a 10-card bomb fits a 390 px phone.
        const row = el("div", "play");
        row.dataset.seat = p.seat;
        row.appendChild(el("span", "who", GT.seat(p.seat)));
        if (p.pass) row.appendChild(el("span", "pass", GT.t("pass")));
        else (p.cards || []).forEach(function (c) { row.appendChild(GT.cardEl(c, rec.level)); });
        tr.appendChild(row);
      });
      box.appendChild(tr);
    });
    return box;
  }
  function renderPast() {
    const host = document.getElementById("past-deals");
    if (!host) return;
    const rounds = pastRounds();
    const key = JSON.stringify([window.LANG, rounds]);
    if (key === shownPast) return;
    shownPast = key;
    const box = el("div");
    if (!rounds.length) box.appendChild(el("p", "muted", GT.t("no_past_deals")));
    rounds.forEach(function (r) {
      box.appendChild(el("h3", "past-round", GT.tf("past_round", { n: r.no })));
      r.records.forEach(function (rec) { box.appendChild(dealEl(r.no, rec)); });
    });
    host.replaceChildren(box);
  }

  /* The teams' names the hub gave (its assignment; the round keeps the hub's ids for its teams), read
     once a round where the table has a hub: the sheet names each side by its team, as the panel does. */
  let namesFor;
  function loadNames() {
    const no = state && state.round ? state.round.no : null;
    if (!app.dataset.assignment || no === namesFor) return;
    namesFor = no;
    fetch(app.dataset.assignment, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (d) { if (d) { GT.assignment = d.assignment || null; render(); } })
      .catch(function () { namesFor = undefined; });
  }

  GT.rerender = function () { shownPast = null; render(); renderPast(); };
  GT.connect(app.dataset.stream, app, function (st) { state = st; render(); renderPast(); loadNames(); });
})();
