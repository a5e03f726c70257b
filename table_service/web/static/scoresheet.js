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
      " | " + GT.t("levels") + ": EW " + state.levels.EW + " · NS " + state.levels.NS;
    const res = document.getElementById("sheet-result");
    res.replaceChildren();
    if (state.result) {
      const r = state.result;
      res.appendChild(el("div", "winner", GT.t("result") + ": " + (r.winner || "—") + " (" + GT.w(r.reason) + ")"));
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
      box.appendChild(el("span", "", side + ": " + (signed ? "✓ " + GT.t("signed") : "")));
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
  GT.rerender = render;
  GT.connect(app.dataset.stream, app, function (st) { state = st; render(); });
})();
