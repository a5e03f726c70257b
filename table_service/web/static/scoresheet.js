/* The deal-by-deal score sheet, live: gains, levels, penalties, the result with level-difference
   points, and each side's signature (a score_sheet_signed event). */
(function () {
  "use strict";
  const app = document.getElementById("app");
  const el = GT.el;
  let state = null;

  function td(tr, text) { tr.appendChild(el("td", "", text)); }
  const ORDER = "23456789TJQKA";
  /* Level difference d after a deal, and the 13-level / 26-point level-difference points it
     would give if the round ended there: leader 13 + d, trailer 13 - d. */
  function levelDiff(lv) {
    if (!lv) return "";
    const d = ORDER.indexOf(lv.EW) - ORDER.indexOf(lv.NS);
    if (d === 0) return "0 · 13 : 13";
    const a = Math.min(Math.abs(d), 13);
    return (d > 0 ? "EW" : "NS") + " +" + a + " · " + (d > 0 ? (13 + a) + " : " + (13 - a) : (13 - a) + " : " + (13 + a));
  }

  /* A side said with its team: the name the hub gave (round.team_names) where the round came from
     its assignment (round.teams then holds the hub's ids, "T01", which nobody at the table knows),
     else the team typed at the panel; the side alone where the round names none. */
  function sideTeam(side) {
    const rnd = state.round || {};
    const name = (rnd.team_names && rnd.team_names[side]) || (rnd.teams && rnd.teams[side]);
    return name && name !== side ? side + " " + name : side;
  }

  function render() {
    if (!state) return;
    const rows = document.getElementById("sheet-rows");
    rows.replaceChildren();
    (state.score_sheet || []).forEach(function (r) {
      const tr = el("tr");
      tr.dataset.deal = r.deal;
      td(tr, r.deal);
      td(tr, r.level);
      td(tr, (r.finish_order || []).map(GT.seat).join(" › "));
      td(tr, r.gain ? r.gain.side + " +" + r.gain.levels : "—");
      td(tr, r.levels_after ? "EW " + r.levels_after.EW + " · NS " + r.levels_after.NS : "");
      const diff = el("td", "level-diff", levelDiff(r.levels_after));
      tr.appendChild(diff);
      td(tr, r.ended_by && r.ended_by !== "play" ? GT.w(r.ended_by) : "");
      rows.appendChild(tr);
    });
    const pen = document.getElementById("sheet-penalties");
    pen.replaceChildren();
    ((state.penalties && state.penalties.records) || []).forEach(function (r, i) {
      const tr = el("tr", "penalty-" + r.level);
      td(tr, i + 1); td(tr, r.side); td(tr, r.seat ? GT.seat(r.seat) : "—");
      td(tr, GT.t(r.level) + (r.auto ? " (" + GT.t("auto") + ")" : "")); td(tr, GT.bi(r.article || ""));
      pen.appendChild(tr);
    });
    const rnd = state.round || {};
    const head = document.getElementById("sheet-head");
    head.textContent = (rnd.no !== undefined ? GT.t("round") + " " + rnd.no + " · " : "") +
      (rnd.players ? ["E", "S", "W", "N"].map(function (s) { return GT.seat(s) + ": " + (rnd.players[s] || ""); }).join(" · ") : "") +
      (rnd.teams ? " | " + GT.t("teams") + ": " + sideTeam("EW") + " · " + sideTeam("NS") : "") +
      " | " + GT.t("levels") + ": EW " + state.levels.EW + " · NS " + state.levels.NS;
    const res = document.getElementById("sheet-result");
    res.replaceChildren();
    if (state.result) {
      const r = state.result;
      res.appendChild(el("div", "winner", GT.t("result") + ": " + (r.winner ? sideTeam(r.winner) : "—") + " (" + GT.w(r.reason) + ")"));
      if (r.level_points) res.appendChild(el("div", "level-points", GT.t("level_points") + ": EW " + r.level_points.EW + " : NS " + r.level_points.NS));
      if (r.match_points) res.appendChild(el("div", "", GT.t("match_points") + ": EW " + r.match_points.EW + " : NS " + r.match_points.NS));
    } else res.appendChild(el("div", "muted", "—"));
    const sig = document.getElementById("signatures");
    sig.replaceChildren();
    const canSign = app.dataset.role !== "viewer";
    ["EW", "NS"].forEach(function (side) {
      const signed = state.signatures && state.signatures[side];
      const box = el("div", "signature " + (signed ? "signed" : ""));
      box.id = "sign-" + side;
      box.dataset.signed = signed ? "1" : "0";
      box.appendChild(el("span", "", sideTeam(side) + ": " + (signed ? "✓ " + GT.t("signed") : "")));
      if (!signed && canSign && state.result) {
        const b = el("button", "", GT.t("sign") + " " + side);
        b.onclick = async function () {
          const r = await GT.post(app.dataset.actions, { type: "score_sheet_signed", data: { side: side } });
          GT.toast(r.ok ? GT.t("done") : (r.json && r.json.error) || String(r.status), r.ok);
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
    row.appendChild(el("span", "who", label + ": " + GT.seat(t.from) + " → " + GT.seat(t.to)));
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
    box.appendChild(el("summary", "", GT.tf("deal_no", { n: rec.deal }) + " · " + GT.t("level_card") + " " + rec.level +
      " · " + GT.tf("tricks_count", { n: tricks.length })));
    const order = el("div", "past-order");
    order.appendChild(el("span", "", GT.t("finish_order") + ": " + (rec.finish_order || []).map(function (s, i) {
      return (window.I18N["place_" + (i + 1)] ? GT.t("place_" + (i + 1)) + " " : "") + GT.seat(s);
    }).join(" · ")));
    box.appendChild(order);
    if (rec.anti_tribute) {
      const a = el("div", "play past-tribute");
      a.appendChild(el("span", "who", GT.t("anti_tribute") + ": " + (rec.anti_tribute.seats || []).map(GT.seat).join(", ")));
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

  GT.rerender = function () { shownPast = null; render(); renderPast(); };
  GT.connect(app.dataset.stream, app, function (st) { state = st; render(); renderPast(); });
})();
