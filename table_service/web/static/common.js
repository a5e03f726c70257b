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
      el.textContent = GT.t(el.dataset.i18n) + (el.dataset.i18n2 ? " (" + GT.t(el.dataset.i18n2) + ")" : "");
    });
    (root || document).querySelectorAll("[data-i18n-ph]").forEach(function (el) {
      el.placeholder = GT.t(el.dataset.i18nPh);
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
  /* Buttons declare what they do with data-action (the Content-Security-Policy allows no inline
     onclick handlers). */
  document.addEventListener("click", function (e) {
    const el = e.target.closest && e.target.closest("[data-action]");
    if (!el) return;
    if (el.dataset.action === "toggle-lang") GT.toggleLang();
    else if (el.dataset.action === "print") window.print();
  });
  /* A status word or pattern name: translated when known, shown as is otherwise. */
  GT.w = function (value) {
    if (value === null || value === undefined) return "—";
    const key = "st_" + value;
    return window.I18N[key] ? GT.t(key) : String(value);
  };
  GT.kind = function (kind) { return window.I18N["kind_" + kind] ? GT.t("kind_" + kind) : String(kind); };
  GT.seat = function (s) { return s ? GT.t("seat_" + s) + (window.LANG === "zh" ? " " + s : "") : "—"; };
  /* A rank or a level as people say it: the engine's "T" is 10 (the status bar said "级牌 T"). */
  GT.rank = function (r) { return r === null || r === undefined || r === "" ? "—" : r === "T" ? "10" : String(r); };
  /* A card in a sentence ("进贡 东 E 大王", "10♥"), never the engine's code ("BJ", "Th"). */
  GT.cardName = function (c) {
    c = String(c === null || c === undefined ? "" : c);
    if (c === "BJ" || c === "SJ") return GT.t(c === "BJ" ? "big_joker" : "small_joker");
    return c.length === 2 && SUITS[c.charAt(1)] ? GT.rank(c.charAt(0)) + SUITS[c.charAt(1)] : c;
  };
  /* Punctuation after words of the view's language: "规则：…" in Chinese, "Rule: …" in English. */
  GT.colon = function () { return window.LANG === "zh" ? "：" : ": "; };
  GT.paren = function (text) { return window.LANG === "zh" ? "（" + text + "）" : " (" + text + ")"; };
  /* Where the table is: "第 1 轮 · 第 2 副 · 出牌阶段" (the round's status between deals, the deal's phase
     in one). A state without a round says nothing. */
  GT.where = function (state) {
    const rnd = (state && state.round) || {}, deal = state && state.deal;
    const parts = [];
    if (rnd.no !== undefined && rnd.no !== null) parts.push(GT.tf("score_bug_round", { n: rnd.no }));
    if (deal) parts.push(GT.tf("deal_no", { n: deal.no }));
    const between = { cutting: 1, drawing: 1, over: 1 };
    const stage = between[rnd.status] ? rnd.status : deal ? (deal.phase === "over" ? "deal_over" : deal.phase) : rnd.status;
    if (stage) parts.push(window.I18N["stage_" + stage] ? GT.t("stage_" + stage) : GT.w(stage));
    return parts.join(" · ");
  };
  GT.el = function (tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  };

  /* --- sides by their teams. The hub's assignment (teams by id, and their names) where the page read
     it (assignment.js on the panel, scoresheet.js), else null. */
  GT.assignment = null;
  /* A side's team by name in `state`'s round: the assignment's name when its teams are this round's,
     else the round's own entry where it is more than the side's id (a name typed at the panel), else "". */
  GT.teamOf = function (state, side) {
    const rnd = state && state.round;
    // The round's own name for it first: a round set up from the hub's assignment keeps the names
    // beside the ids (round.team_names), so a reload or a restart still says them.
    if (rnd && rnd.team_names && rnd.team_names[side]) return String(rnd.team_names[side]);
    const id = rnd && rnd.teams ? rnd.teams[side] : null;
    const a = GT.assignment;
    if (a && a.teams && a.team_names && a.team_names[side] && (!id || a.teams[side] === id)) return String(a.team_names[side]);
    return id && id !== side ? String(id) : "";
  };
  /* A side as a referee in a hurry reads it: its team ("南京队") where the round has teams, else the
     side ("东西" / "EW"), never the bare compass letters. */
  GT.sideLabel = function (state, side) { return GT.teamOf(state, side) || GT.t("side_" + side); };
  /* A side's label that gives way on a narrow screen: one line, cut with an ellipsis (panel.css
     .side-label), whole in its title. */
  GT.sideLabelEl = function (state, side) {
    const name = GT.sideLabel(state, side);
    const e = GT.el("span", "side-label", name);
    e.title = name;
    return e;
  };
  /* A side as a team signs for it: the side and its team ("东西 · 江苏队"), the side alone without one. */
  GT.sideTeam = function (state, side) {
    const team = GT.teamOf(state, side);
    return GT.t("side_" + side) + (team ? " · " + team : "");
  };
  /* The same as one line (panel.css .side-team): the side's word whole, the team's name giving way
     (ellipsis), the whole in the title. */
  GT.sideTeamEl = function (state, side) {
    const team = GT.teamOf(state, side);
    const e = GT.el("span", "side-team");
    e.dataset.side = side;
    e.title = GT.sideTeam(state, side);
    e.appendChild(GT.el("span", "side-word", GT.t("side_" + side)));
    if (team) {
      e.appendChild(document.createTextNode(" "));
      e.appendChild(GT.el("span", "side-dot", "·"));
      e.appendChild(document.createTextNode(" "));
      const name = GT.el("span", "side-label", team);
      name.title = team;
      e.appendChild(name);
    }
    return e;
  };
  /* Label `key` with a side's element at its {side} ("{side} 签字": 东西 · 江苏队 签字), one line
     (panel.css .side-says): the words kept, the side giving way. */
  GT.sideSays = function (key, sideEl) {
    const e = GT.el("span", "side-says");
    GT.t(key).split("{side}").forEach(function (part, i) {
      if (i) e.appendChild(sideEl);
      if (!part.trim()) return;
      if (i) e.appendChild(document.createTextNode(" "));  // words apart in the text too (the gap spaces them on screen)
      e.appendChild(GT.el("span", "", part.trim()));
      if (!i) e.appendChild(document.createTextNode(" "));
    });
    return e;
  };
  /* The levels by side into `box` ("级数 南京队 2 · 常州队 4"; the status bar and the score sheet said
     "EW 2 · NS 4"): one item a part, so the line keeps to one line on a phone (panel.css .levels). */
  GT.fillLevels = function (box, levels, state) {
    const lv = levels || {};
    box.replaceChildren(GT.el("span", "lv-head", GT.t("levels")));
    ["EW", "NS"].forEach(function (side, i) {
      if (i) box.appendChild(GT.el("span", "lv-sep", "·"));
      const part = GT.el("span", "lv-side");
      part.dataset.side = side;
      part.appendChild(GT.sideLabelEl(state, side));
      part.appendChild(GT.el("span", "lv-level", GT.rank(lv[side])));
      box.appendChild(part);
    });
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
    // Not JSON (a proxy's "Bad Gateway" page): said in both languages with its status, as the table's own are.
    try { json = await resp.json(); } catch (e) { json = { error: GT.both("http_error", { n: resp.status }) }; }
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

  /* The page's live stream. EventSource resumes a dropped connection by itself (sending
     Last-Event-ID: the server replays what was missed, or a snapshot); this adds what it does not do:
     - An HTTP error (503: every public slot taken) closes an EventSource for good, and an overlay
       left blank on air: retried here with backoff (1 s doubling to 15 s, jittered, so 40 overlays
       refused together do not come back together), reading the state meanwhile every 3 s
       (opts.poll, by default a feed stream's own state.json), so the page still moves.
     - The stream opens with hello {log, heartbeat_s}. Another log than the one shown (a new day's,
       a replaced Pi's) has its own seqs, so the page starts again from a fresh snapshot (a lower seq
       would otherwise be ignored for ever, and a resume id of the old log means nothing there).
     - Nothing for 2.5 heartbeats (the server pings each one): the stream is dead (a half-open
       connection after a network change, a hung Pi), so it is closed and opened again.
     States with an older seq than the one shown (of the same log) are ignored. */
  GT.connect = function (url, root, onState, opts) {
    opts = opts || {};
    const feed = /^(.*\/feed\/[^/?#]+)\/stream(?:[?#].*)?$/.exec(url);
    const pollUrl = opts.poll !== undefined ? opts.poll : (feed ? feed[1] + "/state.json" : null);
    const conn = document.getElementById("conn");
    let shownSeq = -1, shownLog = null, heartbeatMs = 0, failures = 0;
    let es = null, retryTimer = null, pollTimer = null, watchdog = null;

    function setConn(on) {
      if (conn && !GT.ended) { conn.className = "conn " + (on ? "on" : "off"); conn.textContent = GT.t(on ? "live" : "reconnecting"); }
      root.dataset.connected = on ? "1" : "0";
    }
    /* A message of log `log` (null: not said): another log than the one shown starts the seqs again. */
    function sameLog(log) {
      if (log === null || log === undefined) return true;
      const same = shownLog === null || shownLog === log;
      if (!same) shownSeq = -1;
      shownLog = log;
      root.dataset.log = log;
      return same;
    }
    function show(st, ev, id) {
      const seq = st && typeof st.last_seq === "number" ? st.last_seq : Number(id || 0);
      if (seq < shownSeq) return;
      shownSeq = seq;
      GT.receivedAt = performance.now();
      onState(st, ev);
      root.dataset.lastSeq = String(seq);
      root.dataset.lastEvent = id || "";
    }
    function arm() {
      clearTimeout(watchdog);
      if (heartbeatMs > 0) watchdog = setTimeout(stale, Math.max(2.5 * heartbeatMs, heartbeatMs + 3000));
    }
    function stale() {
      if (GT.ended) return;
      root.dataset.reconnects = String(Number(root.dataset.reconnects || 0) + 1);
      setConn(false);
      open();
    }
    function poll() {
      if (!pollUrl || GT.ended) return;
      fetch(pollUrl, { cache: "no-store", headers: { Accept: "application/json" } })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (j) {
          if (!j || !j.state || !pollTimer) return;
          sameLog(j.log);
          show(j.state, null, "");
          root.dataset.polled = String(Number(root.dataset.polled || 0) + 1);
        })
        .catch(function () { /* offline: the next try */ });
    }
    function startPolling() {
      if (pollTimer || !pollUrl) return;
      pollTimer = setInterval(poll, 3000);
      poll();
    }
    function stopPolling() { clearInterval(pollTimer); pollTimer = null; }
    function retryLater() {
      if (GT.ended || retryTimer) return;
      failures += 1;
      const wait = Math.min(15000, 1000 * Math.pow(2, failures - 1)) * (0.8 + 0.4 * Math.random());
      retryTimer = setTimeout(function () { retryTimer = null; open(); }, wait);
      startPolling();
    }
    function open() {
      if (GT.ended) return;
      clearTimeout(retryTimer); retryTimer = null;
      clearTimeout(watchdog);
      if (es) es.close();
      const src = (es = GT.source = new EventSource(url));
      function mine(fn) { return function (e) { if (src === es) fn(e); }; }
      function handle(e) {
        arm();
        const msg = JSON.parse(e.data);
        show(msg.state, msg.event, e.lastEventId);
      }
      src.addEventListener("hello", mine(function (e) {
        const h = JSON.parse(e.data);
        heartbeatMs = h.heartbeat_s > 0 ? h.heartbeat_s * 1000 : 0;
        arm();
        // Another log: this connection may have resumed after an id of the old one, so start afresh.
        if (!sameLog(h.log)) open();
      }));
      src.addEventListener("ping", mine(arm));
      src.addEventListener("snapshot", mine(handle));
      src.addEventListener("update", mine(handle));
      src.onopen = mine(function () { failures = 0; stopPolling(); setConn(true); arm(); GT.syncClock(); });
      src.onerror = mine(function () {
        if (GT.ended) return;
        setConn(false);
        clearTimeout(watchdog);
        // Closed for good (an HTTP error: 503, 401): EventSource will not try again, so this does.
        if (src.readyState === EventSource.CLOSED) retryLater();
        GT.syncClock();  // a stream refused for a login that ended looks like any drop: the clock's 401 tells
      });
    }
    GT.stopStream = function () { stopPolling(); clearTimeout(retryTimer); clearTimeout(watchdog); if (es) es.close(); };
    open();
    return es;
  };

  /* The login ended (12 h, a password changed, logged out elsewhere): the stream will not come back,
     so the page says so and offers the login page, instead of "reconnecting…" for ever. */
  GT.loginEnded = function () {
    if (GT.ended) return;
    GT.ended = true;
    if (GT.stopStream) GT.stopStream();
    else if (GT.source) GT.source.close();
    const conn = document.getElementById("conn");
    if (conn) {
      const a = GT.el("a", "conn off login-ended", GT.t("login_ended"));
      a.id = "conn";
      a.href = "/auth/login?next=" + encodeURIComponent(location.pathname);
      conn.replaceWith(a);
    }
    GT.toast(GT.t("login_ended"), false);
  };

  /* The table's clock, read from the server (GET …/clock: now_ms and speed) and run on between
     readings at its speed. A countdown is deadline_ms − this, so a page loaded mid-countdown shows
     the engine's deadline, not a countdown restarted at the last event's time. Re-read every 10 s
     (and on reconnect) so a sleeping tablet or a drifting clock cannot carry an error for long. */
  GT.clock = { nowMs: null, at: 0, speed: 1, url: null };
  /* Called after each clock reading: a page redraws its countdowns at once, not at its next tick. */
  GT.clockListeners = [];
  GT.syncClock = async function (url) {
    if (url) GT.clock.url = url;
    if (!GT.clock.url) return;
    const t0 = performance.now();
    try {
      const resp = await fetch(GT.clock.url, { credentials: "same-origin", cache: "no-store", headers: { Accept: "application/json" } });
      if (resp.status === 401) { GT.loginEnded(); return; }
      if (!resp.ok) return;
      const j = await resp.json();
      const t1 = performance.now();
      if (typeof j.now_ms !== "number") return;
      GT.clock = { nowMs: j.now_ms, at: (t0 + t1) / 2, speed: j.speed > 0 ? j.speed : 1, url: GT.clock.url, delay: j.delay_s,
        period: GT.clock.period };
      document.documentElement.dataset.clockSynced = "1";
      /* The reading carries the camera's health exactly where the table runs a camera pipeline
         (docs/api.md): what the page knows of "this table has a camera". Buttons that need one
         (.needs-camera: enrol the deck, recalibrate) show only then (panel.css). */
      document.documentElement.dataset.camera = j.camera && typeof j.camera === "object" ? "1" : "0";
      GT.clockListeners.forEach(function (fn) { try { fn(); } catch (e) { console.error(e); } });
      if (j.camera && typeof j.camera === "object" && GT.onCamera) GT.onCamera(j.camera);
    } catch (e) { /* offline: keep the last reading */ }
  };
  GT.startClock = function (url, periodMs) {
    GT.syncClock(url);
    setInterval(function () { GT.syncClock(); }, periodMs || 10000);
  };
  GT.tableNow = function (state) {
    if (GT.clock.nowMs !== null) return GT.clock.nowMs + (performance.now() - GT.clock.at) * GT.clock.speed;
    // No reading yet: the last event's time plus the time since it arrived (a lower bound).
    if (!state || state.t_ms === null || state.t_ms === undefined) return null;
    return state.t_ms + (performance.now() - (GT.receivedAt || performance.now())) * GT.clock.speed;
  };
  /* Seconds left of a timer {deadline_ms} (negative: overtime), or null. Null until the server's
     clock has been read once: the last event's time is only a lower bound of "now", so a countdown
     from it over-reads (a page loaded mid-countdown would show the full 40 s), and a referee rules
     on this number. */
  GT.secondsLeft = function (timer, state) {
    if (!timer || timer.deadline_ms === undefined || timer.deadline_ms === null) return null;
    if (GT.clock.nowMs === null) return null;
    const now = GT.tableNow(state);
    return now === null ? null : (timer.deadline_ms - now) / 1000;
  };

  /* "中文 / English" text (engine messages, rule articles): the half of the view's language, an
     event's internal name at its head said in words ("round_set_up: …" reads "New round: …", as
     web/i18n.py's in_words says it on the record page). */
  GT.bi = function (text) {
    if (text === null || text === undefined) return "";
    const s = String(text);
    const i = s.indexOf(" / ");
    const half = i < 0 ? s : (window.LANG === "zh" ? s.slice(0, i).trim() : s.slice(i + 3).trim());
    const m = /^([a-z]+(?:_[a-z]+)+): /.exec(half);
    const names = m && window.I18N["evt_" + m[1]];
    if (!names) return half;
    const word = window.LANG === "zh" ? names[0] + "：" : names[1].charAt(0).toUpperCase() + names[1].slice(1) + ": ";
    return word + half.slice(m[0].length);
  };
  /* A refusal (the engine's, the hub's, the server's) as a page says it: the view's half, its event in
     words, and — on the panel, whose panel_state.js defines GT.named — who by name. */
  GT.refusal = function (text) { const half = GT.bi(text); return GT.named ? GT.named(half) : half; };
  /* An event type in the view's language (its internal name only where no word is known). */
  GT.evt = function (type) { return window.I18N["evt_" + type] ? GT.t("evt_" + type) : String(type); };
  /* A label with {placeholders} filled in. */
  function fill(s, vars) {
    Object.keys(vars || {}).forEach(function (k) { s = s.split("{" + k + "}").join(String(vars[k])); });
    return s;
  }
  GT.tf = function (key, vars) { return fill(GT.t(key), vars); };
  /* A label in both languages, "中文 / English" (a text that GT.bi splits again). */
  GT.both = function (key, vars) {
    const pair = window.I18N[key] || [key, key];
    return fill(pair[0], vars) + " / " + fill(pair[1], vars);
  };
  /* A flag's rule in the view's language (the rule key's label, else its bilingual article). */
  GT.rule = function (f) {
    if (!f) return "";
    if (f.rule && window.I18N["rule_" + f.rule]) return GT.t("rule_" + f.rule);
    return GT.bi(f.article || f.rule);
  };
  /* Table milliseconds as a clock time (hh:mm:ss, local). */
  GT.clockTime = function (ms) {
    const d = new Date(Number(ms));
    if (isNaN(d.getTime())) return String(ms);
    const p = function (n) { return (n < 10 ? "0" : "") + n; };
    return p(d.getHours()) + ":" + p(d.getMinutes()) + ":" + p(d.getSeconds());
  };
  GT.secs = function (ms) { return (Number(ms) / 1000).toFixed(1) + " " + GT.t("seconds"); };
})();
