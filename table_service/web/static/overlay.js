/* Broadcast overlay (OBS browser source): the public, delayed feed drawn over the video. */
(function () {
  "use strict";
  const root = document.getElementById("ov");
  const el = GT.el;
  let state = null;

  function render() {
    if (!state) return;
    const deal = state.deal;
    const lv = state.levels || {};
    document.getElementById("ov-levels").textContent = GT.t("levels") + " " + (state.teams ? (state.teams.EW || "EW") : "EW") + " " + lv.EW +
      " · " + (state.teams ? (state.teams.NS || "NS") : "NS") + " " + lv.NS;
    document.getElementById("ov-deal").textContent = deal ? GT.t("deal") + " " + deal.no + " · " + GT.t("level_card") + " " + deal.level : "";
    ["E", "S", "W", "N"].forEach(function (s) {
      const box = el("div", "seat-inner" + (deal && deal.turn === s ? " turn" : ""));
      box.appendChild(el("span", "seat-name", GT.seat(s)));
      box.appendChild(el("span", "player", (state.players && state.players[s]) || ""));
      if (deal) {
        const c = el("span", "cards-left", String(deal.counts ? deal.counts[s] : ""));
        c.dataset.count = String(deal.counts ? deal.counts[s] : "");
        box.appendChild(c);
        const on = deal.report_lamps && deal.report_lamps[s];
        const lamp = el("span", "lamp report " + (on ? "on" : "off"), GT.t("report"));
        lamp.dataset.on = on ? "1" : "0";
        box.appendChild(lamp);
      }
      const slot = document.getElementById("ov-seat-" + s);
      slot.replaceChildren(box);
    });
    const trick = el("div");
    if (deal && deal.trick) deal.trick.plays.forEach(function (p) {
      const row = el("div", "play");
      row.appendChild(el("span", "who", GT.seat(p.seat)));
      if (p.pass) row.appendChild(el("span", "pass", GT.t("pass")));
      else row.appendChild(GT.cardsEl(p.cards, deal.level));
      trick.appendChild(row);
    });
    document.getElementById("ov-trick").replaceChildren(trick);
    const recent = el("span");
    (state.recent_plays || []).slice(-6).forEach(function (p) {
      const r = el("span", "recent");
      r.appendChild(el("span", "who", p.seat));
      r.appendChild(GT.cardsEl(p.cards, deal && deal.level));
      recent.appendChild(r);
    });
    document.getElementById("ov-recent").replaceChildren(recent);
    const flags = el("div");
    (state.flags || []).slice(-3).forEach(function (f) { flags.appendChild(el("div", "flag confirmed", (f.article || f.rule) + " · " + GT.seat(f.seat))); });
    (state.penalties || []).slice(-3).forEach(function (p) { flags.appendChild(el("div", "flag penalty", p.side + " " + GT.t(p.level) + " · " + (p.article || ""))); });
    document.getElementById("ov-flags").replaceChildren(flags);
  }
  GT.rerender = render;
  GT.connect(root.dataset.stream, root, function (st) { state = st; render(); });
})();
