/* The table display: 精, dice, dealer, turn, wall, seats and scores live; the settlement
   after each hand until the next one starts. Everything comes from the live hub. */
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  let renders = 0;
  const S = { hand: null, jing: null, dice: null, scores: null, settlement: null, cashout: null, status: null, last: null };

  const sameHand = (payload) => !payload || !S.hand || !payload.hand_id || !S.hand.hand_id || payload.hand_id === S.hand.hand_id;

  function jingTiles() {
    // A new hand's jing message before the flip names no tile: not "東" (parseTile(undefined)).
    if (S.jing && sameHand(S.jing) && (S.jing.caishen || S.jing.zheng_jing)) {
      const j = S.jing;
      if (j.caishen) return { caishen: j.caishen, indicator: j.indicator };
      return { zheng: j.zheng_jing, fu: j.fu_jing, indicator: j.indicator };
    }
    const j = (S.hand && S.hand.jing) || {};
    if (j.caishen) return { caishen: j.caishen, indicator: j.flipped };
    if (j.zheng) return { zheng: j.zheng, fu: j.fu };
    return null;
  }

  const { el } = MJ;

  function renderJing() {
    const j = jingTiles();
    const box = $("jing");
    if (!j) {
      box.replaceChildren(el("div", { class: "jing-empty" }, MJ.t("no_jing")));
      return;
    }
    const one = (label, name, mark, cls = "tile-xl") =>
      el("figure", { class: "jing-tile", "data-role": mark }, MJ.tile(name, cls, { mark }),
        el("figcaption", null, el("b", null, label), el("span", null, MJ.tileName(name))));
    box.replaceChildren(...(j.caishen
      ? [one(MJ.t("caishen"), j.caishen, "caishen"), j.indicator ? one(MJ.t("indicator"), j.indicator, "indicator", "tile-l") : null]
      : [one(MJ.t("zheng"), j.zheng, "zheng"), one(MJ.t("fu"), j.fu, "fu")]).filter(Boolean));
  }

  function renderDice() {
    let roll = S.dice && sameHand(S.dice) ? S.dice : null;
    const rolls = (S.hand && S.hand.dice) || [];
    if (!roll && rolls.length) roll = rolls[rolls.length - 1];
    $("dice").replaceChildren(...(roll
      ? [MJ.die(roll.a), MJ.die(roll.b), el("span", { class: "dice-sum" }, String(roll.a + roll.b))]
      : ["—"]));
    $("dice-note").textContent = roll
      ? `${MJ.seatName(roll.seat, S.hand ? S.hand.dealer : null)} · ${roll.purpose ? MJ.t("purpose_" + roll.purpose) : ""}`
      : "";
    // The hand's dice were fixed before its walls rose: the commitment (SHA-256), and the
    // seed once the hand is settled (docs/fairness.md). Shown as text, never markup.
    const c = S.hand && S.hand.dice_commitment;
    const box = $("dice-commitment");
    box.textContent = c ? `${MJ.t("dice_commitment")} ${String(c.commitment).slice(0, 16)}…` : "";
    box.title = c ? `SHA-256 ${c.commitment} · ${c.table} · ${c.session} · #${c.hand_no}${S.hand.dice_seed ? ` · seed ${S.hand.dice_seed}` : ""}` : "";
    box.dataset.commitment = c ? String(c.commitment) : "";
    box.dataset.seed = S.hand && S.hand.dice_seed ? String(S.hand.dice_seed) : "";
  }

  function seatParts(seat) {
    const h = S.hand;
    const info = h && h.seats ? h.seats[seat] : null;
    const dealer = h ? h.dealer : null;
    const totals = S.scores && S.scores.totals ? S.scores.totals : null;
    const score = totals ? MJ.fmtNum(totals[seat]) || "0" : "";
    const melds = info ? info.melds.map((m) =>
      el("span", { class: "meld" }, (m.tiles.length ? m.tiles : [null, null, null, null]).map((x) => MJ.tile(x, "tile-s", { hidden: x === null })))) : [];
    const discards = info ? info.discards.map((x) => MJ.tile(x, "tile-xs")) : [];
    return [
      el("div", { class: "seat-head" },
        el("span", { class: "seat-name" }, MJ.seatName(seat, dealer)),
        dealer === seat ? el("span", { class: "badge dealer-badge" }, MJ.lang() === "zh" ? "庄" : "D") : null,
        el("span", { class: "seat-count" }, info && info.tiles !== null ? `${info.tiles} ${MJ.t("tiles")}` : ""),
        el("span", { class: "seat-score", "data-seat-score": seat }, score)),
      el("div", { class: "melds" }, melds),
      el("div", { class: "discards" }, discards),
    ];
  }

  // the claim window's passes would hide the discard they answer
  const QUIET = ["passed", "claims_resolved"];

  /** The event in words, as the service wrote them (engine.round.narration's public text). */
  function eventText(e) {
    return e ? MJ.inLang(e.text) : "";
  }

  function renderTable() {
    const h = S.hand;
    for (let s = 0; s < 4; s++) {
      const box = $("seat-" + s);
      box.replaceChildren(...seatParts(s));
      box.classList.toggle("is-turn", !!h && h.turn === s && ["turn", "draw", "replacement"].includes(h.phase));
      box.classList.toggle("is-dealer", !!h && h.dealer === s);
    }
    const rules = (S.scores && S.scores.house) || (h ? h.ruleset_name || h.ruleset : ""); // an owner's 店规 by its name
    $("hand-title").textContent = h && h.hand_no !== null ? `${MJ.t("hand_no", { n: h.hand_no })} · ${rules}` : "";
    $("dealer").textContent = h ? MJ.seatName(h.dealer, h.dealer) : "—";
    $("turn").textContent = h && h.turn !== null && h.turn !== undefined ? MJ.seatName(h.turn, h.dealer) : "—";
    const live = h && h.live !== null && h.live !== undefined ? `${h.live} ${MJ.t("tiles")}` : "—";
    $("wall").textContent = live;
    $("wall-big").textContent = h && h.live !== null && h.live !== undefined ? h.live : "—";
    $("wall-big").dataset.unit = h && h.live !== null && h.live !== undefined ? MJ.t("tiles") : "";
    // a hand that waits for staff says so in place of its phase (the status topic's notice)
    const n = S.status && S.status.hand === "waiting_for_staff" && h && (!S.status.hand_id || S.status.hand_id === h.hand_id) ? S.status : null;
    $("phase").textContent = n ? `${MJ.inLang(n.title)}：${MJ.inLang(n.why)}`
      : h ? (h.phase ? MJ.t("phase_" + h.phase) : "") : (S.status && S.status.state === "offline" ? MJ.t("offline") : MJ.t("waiting"));
    $("last-action").textContent = S.last && sameHand(S.last) ? eventText(S.last) : "";
  }

  function renderSettlement() {
    const box = $("settlement");
    const st = S.settlement;
    if (!st || !sameHand(st) || !st.net) { box.hidden = true; document.body.dataset.settled = "no"; return; }
    const h = S.hand;
    const dealer = h ? h.dealer : null;
    const wins = (h && h.wins) || [];
    const summary = wins.length
      ? wins.map((w) => `${MJ.seatName(w.seat, dealer)} ${MJ.t("win")} ${MJ.tileName(w.tile)}` +
          (w.source === "self" ? ` · ${MJ.t("self_draw")}` : "")).join("；")
      : (h && h.exhausted) || (st.void && !st.voided) ? MJ.t("draw") : "";
    const sign = (n) => { const v = Number(MJ.fmtNum(n)); return v > 0 ? "pos" : v < 0 ? "neg" : ""; };
    const nets = st.net.map((n, s) =>
      el("div", { class: `net ${sign(n)}` }, el("span", null, MJ.seatName(s, dealer)), el("b", null, MJ.fmtNum(n) || "0")));
    const lines = st.lines.map((l) => el("tr", null,
      el("td", { class: "reason" }, l.reason),
      el("td", null, MJ.seatName(l.from, dealer)), el("td", { class: "arrow" }, "→"),
      el("td", null, MJ.seatName(l.to, dealer)),
      el("td", { class: "amount" }, l.amount === null ? "" : String(l.amount))));
    const title = (h && h.hand_no !== null ? MJ.t("hand_no", { n: h.hand_no }) + " · " : "") + MJ.t("settlement");
    const head = ["reason", "payer", "", "payee", "amount"].map((k) => el("th", null, k ? MJ.t(k) : ""));
    box.replaceChildren(
      el("h2", null, title),
      el("div", { class: "settle-summary" }, summary + (st.voided ? " · " + MJ.t("void") : ""),
        st.entered ? el("span", { class: "entered", "data-entered": st.entered }, ` · ${MJ.t("entered_" + st.entered)}`) : null),
      el("div", { class: "nets" }, nets),
      el("table", { class: "lines" }, el("thead", null, el("tr", null, head)), el("tbody", null, lines)));
    box.hidden = false;
    document.body.dataset.settled = "yes";
  }

  // The last session's cash-out, while no hand is being played (until the next session's
  // first result takes it off the topic): names or seats and points, nothing else.
  function renderCashout() {
    const box = $("cashout");
    const c = S.cashout;
    const phase = S.hand ? S.hand.phase : null;
    const inPlay = phase !== null && !["shuffle", "break_dice", "second_dice", "settle", "done"].includes(phase);
    if (!c || !c.players.length || inPlay) { box.hidden = true; document.body.dataset.cashout = "no"; return; }
    box.replaceChildren(
      el("h2", null, `${MJ.t("cashout")} · ${MJ.t("hands_n", { n: c.played ?? "?" })}`),
      MJ.cashoutView(c));
    box.hidden = false;
    $("settlement").hidden = true;
    document.body.dataset.cashout = "yes";
  }

  // The players' join code (docs/play.md) while no hand is being played: the QR code is the
  // phones' link, drawn by the app as an SVG image; looked up again each minute shown.
  let joinShown = 0;
  function renderJoin() {
    const box = $("join-card");
    const phase = S.hand ? S.hand.phase : null;
    const inPlay = phase !== null && !["shuffle", "break_dice", "second_dice", "settle", "done"].includes(phase);
    if (inPlay) { box.hidden = true; return; }
    box.hidden = false;
    const now = Date.now();
    if (now - joinShown < 60000) return;
    joinShown = now;
    MJ.api("/api/v1/play/join").then((j) => {
      if (!j || !j.code) { box.hidden = true; return; } // no live table here: nothing to join
      $("join-qr").src = `/api/v1/play/join/qr.svg?c=${encodeURIComponent(MJ.str(j.code, 16))}`;
      $("join-code").textContent = `${MJ.t("join_code")} ${MJ.str(j.code, 16)}`;
    }).catch(() => { box.hidden = true; }); // (asked again a minute later)
  }

  function render() {
    renderJoin();
    renderJing();
    renderDice();
    renderTable();
    renderSettlement();
    renderCashout();
    document.body.dataset.handId = S.hand && S.hand.hand_id ? S.hand.hand_id : "";
    document.body.dataset.rendered = String(++renders); // (tests wait for a render)
  }

  function onMessage(topic, payload) {
    if (payload === null) return; // not a topic of the display
    switch (topic) {
      case "events": if (!QUIET.includes(payload.type)) S.last = payload; break;
      case "alerts": return;
      case "dealer": return;
      default: S[topic] = payload;
    }
    render();
  }

  document.addEventListener("DOMContentLoaded", () => {
    MJ.applyI18n();
    MJ.langToggle($("lang"));
    document.addEventListener("mj:lang", render);
    render();
    // ?broker=…: straight from the parlour's broker (broker.js); else the web app's stream
    const broker = MJBroker.settings();
    MJ.api("/api/v1/public/table").catch(() => ({})).then((t) => {
      const parlour = broker.parlour || t.parlour, table = broker.table || t.table;
      $("table-name").textContent = `${parlour} · ${table}`;
      if (!broker.wanted) return;
      MJBroker.allow(broker, t);
      if (!MJBroker.permitted(broker)) { MJ.showLive($("live-banner"), "refused"); return; }
      MJBroker.load().then(() => MJBroker.tableLive(broker, parlour, table, onMessage, $("live-banner")));
    });
    if (!broker.wanted) MJ.live(onMessage, $("live-banner"));
  });
})();
