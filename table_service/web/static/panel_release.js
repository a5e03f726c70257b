/* The chief's 公开复式牌局 box: one release button per ended deal not yet released, for a table in
   duplicate mode or a round the hub set up as a duplicate board (the public feed holds those deals,
   views/feed.py), and below them the deals released lately, each saying who released it and when:
   the hub (赛事中心已公布: both rooms of the board ended it) or the chief's tap — so a chief who
   sees a button vanish knows the hub did it, not a colleague. Apart from panel_actions.js (the
   referee's entries) because it is the chief's alone and concerns the public feed, not the deal.
   Loaded after panel_state.js. */
(function () {
  "use strict";
  const app = document.getElementById("app");
  if (!document.getElementById("release-card")) return;  // the chief's page only
  const el = GT.el;

  /* --- duplicate (复式) release: one button per ended deal not yet released (chief only; the box
     is on the page only in duplicate mode). The engine's rule (engine/deal_end.py
     on_deal_released): every deal started in this round or an archived one (round.deals_started,
     an abandoned deal too), but not the deal still being played, and not one released already
     (state.released_deals). */
  function releasable(st, boardsOnly) {
    const released = {};
    (st.released_deals || []).forEach(function (r) { released[r.round + ":" + r.deal] = true; });
    const rounds = (st.rounds || []).map(function (a) { return a.round; }).filter(Boolean);
    if (st.round) rounds.push(st.round);
    // Without the table's duplicate setting only a duplicate board's deals are held (views/feed.py is_board).
    if (boardsOnly) rounds.splice(0, rounds.length, ...rounds.filter(function (r) { return !!r.board; }));
    const out = [];
    rounds.forEach(function (rnd) {
      const live = st.round && rnd.no === st.round.no && st.deal && st.deal.phase !== "over" ? st.deal.no : null;
      for (let d = 1; d <= (rnd.deals_started || 0); d++) {
        if (d !== live && !released[rnd.no + ":" + d]) out.push({ round: rnd.no, deal: d });
      }
    });
    return out;
  }
  async function release(b, item) {
    const ok = await GT.confirmDialog({ title: GT.tf("confirm_release", { r: item.round, d: item.deal }),
      text: GT.t("confirm_release_text"), ok: GT.t("release_now") });
    if (ok === null) return;
    b.disabled = true;  // one tap, one release
    try {
      const r = await GT.post(app.dataset.release, { round: item.round, deal: item.deal });
      if (r.ok) GT.toast(GT.t("released") + " · " + GT.tf("release_btn", { r: item.round, d: item.deal }) + " #" + r.json.seq, true);
      else GT.toast(GT.t("rejected") + GT.colon() + GT.refusal((r.json && r.json.error) || GT.both("http_error", { n: r.status })), false);
    } finally {
      b.disabled = false;
    }
  }
  /* The latest releases, newest first (state.released_deals is in log order; each has the source
     and t_ms of its deal_released event): who made the call, and when. */
  const DONE_SHOWN = 6;
  function renderDone(st) {
    const host = document.getElementById("release-done");
    if (!host) return;
    const done = (st.released_deals || []).slice(-DONE_SHOWN).reverse();
    const key = window.LANG + "|" + done.map(function (r) { return r.seq; }).join(",");
    if (key === host.dataset.shown) return;
    host.dataset.shown = key;
    const list = el("ul", "release-done-list");
    done.forEach(function (r) {
      const by = r.source === "hub" ? "released_by_hub" : "released_by_chief";
      const li = el("li", "release-done-item " + (r.source === "hub" ? "by-hub" : "by-chief"));
      li.dataset.round = String(r.round);
      li.dataset.deal = String(r.deal);
      li.appendChild(el("span", "release-done-deal", GT.tf("released_deal", { r: r.round, d: r.deal })));
      li.appendChild(document.createTextNode(" · "));
      li.appendChild(el("span", "release-done-by", GT.tf(by, { t: GT.clockTime(r.t_ms) })));
      list.appendChild(li);
    });
    host.replaceChildren(done.length ? list : document.createTextNode(""));
  }
  let shownRelease = null;
  function renderRelease(st) {
    renderDone(st);
    const host = document.getElementById("release-list");
    if (!host) return;
    const card = document.getElementById("release-card");
    const dup = !!card && card.dataset.duplicate === "1";
    const items = releasable(st, !dup);
    if (card) card.hidden = !(dup || (st.round && st.round.board) || items.length);
    const key = window.LANG + "|" + items.map(function (i) { return i.round + ":" + i.deal; }).join(",");
    if (key === shownRelease) return;  // a button is never replaced under the chief's finger
    shownRelease = key;
    const box = el("div", "step-row");
    items.forEach(function (item) {
      const b = el("button", "release-deal", GT.tf("release_btn", { r: item.round, d: item.deal }));
      b.type = "button";
      b.dataset.round = String(item.round);
      b.dataset.deal = String(item.deal);
      b.onclick = function () { release(b, item); };
      box.appendChild(b);
    });
    if (!items.length) box.appendChild(el("p", "muted release-none", GT.t("release_none")));
    host.replaceChildren(box);
  }

  GT.addHook(renderRelease);
  const rerender = GT.rerender;
  GT.rerender = function () {
    shownRelease = null;
    const done = document.getElementById("release-done");
    if (done) delete done.dataset.shown;
    rerender();
  };
})();
