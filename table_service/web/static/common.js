/* Shared helpers of the panel, score sheet and overlay: labels (Chinese first, English toggle),
   cards drawn as cards, JSON POST with the CSRF header, and the resumable SSE connection. */
(function () {
  "use strict";
  const GT = (window.GT = {});
  const SUITS = { s: "♠", h: "♥", d: "♦", c: "♣" };

  GT.t = function (key) {
    const pair = window.I18N[key];
    if (!pair) return key;
    return window.LANG === "zh" ? pair[0] : pair[1];
  };
  GT.applyI18n = function (root) {
    (root || document).querySelectorAll("[data-i18n]").forEach(function (el) {
      el.textContent = GT.t(el.dataset.i18n);
    });
  };
  GT.toggleLang = function () {
    window.LANG = window.LANG === "zh" ? "en" : "zh";
    document.cookie = "lang=" + window.LANG + "; path=/; max-age=31536000; SameSite=Strict";
    document.documentElement.lang = window.LANG === "zh" ? "zh-CN" : "en";
    GT.applyI18n();
    const conn = document.getElementById("conn");
    if (conn) conn.textContent = GT.t(conn.classList.contains("on") ? "live" : "reconnecting");
    if (GT.rerender) GT.rerender();
  };
  /* A status word or pattern name: translated when known, shown as is otherwise. */
  GT.w = function (value) {
    if (value === null || value === undefined) return "—";
    const key = "st_" + value;
    return window.I18N[key] ? GT.t(key) : String(value);
  };
  GT.kind = function (kind) { return window.I18N["kind_" + kind] ? GT.t("kind_" + kind) : String(kind); };
  GT.seat = function (s) { return s ? GT.t("seat_" + s) + " " + s : "—"; };
  GT.el = function (tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  };

  /* One card as a small card face. The heart level card (逢人配) is marked as wild. */
  GT.cardEl = function (c, level) {
    c = String(c);
    const e = GT.el("span", "card");
    e.dataset.card = c;
    let rank, suit;
    if (c === "SJ" || c === "BJ") {
      e.classList.add("joker", c === "BJ" ? "red" : "black");
      rank = window.LANG === "zh" ? (c === "BJ" ? "大王" : "小王") : (c === "BJ" ? "BIG" : "SMALL");
      suit = "★";
    } else {
      const r = c.charAt(0), s = c.charAt(1);
      if (s === "h" || s === "d") e.classList.add("red");
      if (level && r === level) e.classList.add(s === "h" ? "wild" : "levelcard");
      rank = r === "T" ? "10" : r;
      suit = SUITS[s] || s;
    }
    // Built with textContent only: card strings are data, never markup.
    e.appendChild(GT.el("span", "rank", rank));
    e.appendChild(GT.el("span", "suit", suit));
    return e;
  };
  GT.cardsEl = function (cards, level) {
    const box = GT.el("span", "cards");
    (cards || []).forEach(function (c) { box.appendChild(GT.cardEl(c, level)); });
    return box;
  };

  GT.csrf = function () {
    const m = document.querySelector('meta[name="csrf-token"]');
    return m ? m.content : "";
  };
  GT.post = async function (url, body) {
    const resp = await fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": GT.csrf(), Accept: "application/json" },
      body: JSON.stringify(body),
    });
    let json = null;
    try { json = await resp.json(); } catch (e) { json = { error: resp.statusText }; }
    return { status: resp.status, ok: resp.ok, json: json };
  };
  GT.toast = function (msg, ok) {
    const t = document.getElementById("toast");
    if (!t) return;
    t.textContent = msg;
    t.className = "toast show " + (ok ? "ok" : "bad");
    clearTimeout(GT._toastTimer);
    GT._toastTimer = setTimeout(function () { t.className = "toast"; }, 6000);
  };

  /* EventSource resumes by itself: on reconnect the browser sends Last-Event-ID, and the server
     replays what was missed (or a snapshot). States with an older seq than shown are ignored. */
  GT.connect = function (url, root, onState) {
    let shownSeq = -1;
    const conn = document.getElementById("conn");
    const es = new EventSource(url);
    function handle(e) {
      const msg = JSON.parse(e.data);
      const st = msg.state;
      const seq = st && typeof st.last_seq === "number" ? st.last_seq : Number(e.lastEventId || 0);
      if (seq < shownSeq) return;
      shownSeq = seq;
      GT.receivedAt = performance.now();
      onState(st, msg.event);
      root.dataset.lastSeq = String(seq);
      root.dataset.lastEvent = e.lastEventId || "";
    }
    es.addEventListener("snapshot", handle);
    es.addEventListener("update", handle);
    es.onopen = function () { if (conn) { conn.className = "conn on"; conn.textContent = GT.t("live"); } root.dataset.connected = "1"; };
    es.onerror = function () { if (conn) { conn.className = "conn off"; conn.textContent = GT.t("reconnecting"); } root.dataset.connected = "0"; };
    GT.source = es;
    return es;
  };

  /* The table's clock: the last event's t_ms plus the time since it arrived. */
  GT.tableNow = function (state) {
    if (!state || state.t_ms === null || state.t_ms === undefined) return null;
    return state.t_ms + (performance.now() - (GT.receivedAt || performance.now()));
  };
})();
