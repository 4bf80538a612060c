/* The table display: 精, dice, dealer, turn, wall, seats and scores live; the settlement
   after each hand until the next one starts. Everything comes from the live hub. */
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const S = { hand: null, jing: null, dice: null, scores: null, settlement: null, status: null, last: null };

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

  function renderJing() {
    const j = jingTiles();
    const box = $("jing");
    if (!j) {
      box.innerHTML = `<div class="jing-empty">${MJ.t("no_jing")}</div>`;
      return;
    }
    const one = (label, name, mark, cls = "tile-xl") =>
      `<figure class="jing-tile" data-role="${mark}">${MJ.tile(name, cls, { mark })}` +
      `<figcaption><b>${label}</b><span>${MJ.tileName(name)}</span></figcaption></figure>`;
    box.innerHTML = j.caishen
      ? one(MJ.t("caishen"), j.caishen, "caishen") + (j.indicator ? one(MJ.t("indicator"), j.indicator, "indicator", "tile-l") : "")
      : one(MJ.t("zheng"), j.zheng, "zheng") + one(MJ.t("fu"), j.fu, "fu");
  }

  function renderDice() {
    let roll = S.dice && sameHand(S.dice) ? S.dice : null;
    const rolls = (S.hand && S.hand.dice) || [];
    if (!roll && rolls.length) roll = rolls[rolls.length - 1];
    $("dice").innerHTML = roll ? MJ.die(roll.a) + MJ.die(roll.b) + `<span class="dice-sum">${roll.a + roll.b}</span>` : "—";
    $("dice-note").textContent = roll
      ? `${MJ.seatName(roll.seat, S.hand ? S.hand.dealer : null)} · ${MJ.t("purpose_" + roll.purpose)}`
      : "";
  }

  function seatHtml(seat) {
    const h = S.hand;
    const info = h && h.seats ? h.seats[seat] : null;
    const dealer = h ? h.dealer : null;
    const totals = S.scores && S.scores.totals ? S.scores.totals : null;
    const score = totals ? MJ.fmtNum(totals[seat]) || "0" : "";
    const melds = info ? info.melds.map((m) =>
      `<span class="meld">${(m.tiles.length ? m.tiles : [null, null, null, null]).map((x) => MJ.tile(x, "tile-s", { hidden: x === null })).join("")}</span>`).join("") : "";
    const discards = info ? info.discards.map((x) => MJ.tile(x, "tile-xs")).join("") : "";
    return `<div class="seat-head">
        <span class="seat-name">${MJ.seatName(seat, dealer)}</span>
        ${dealer === seat ? `<span class="badge dealer-badge">${MJ.lang() === "zh" ? "庄" : "D"}</span>` : ""}
        <span class="seat-count">${info ? info.tiles + " " + MJ.t("tiles") : ""}</span>
        <span class="seat-score" data-seat-score="${seat}">${score}</span>
      </div>
      <div class="melds">${melds}</div>
      <div class="discards">${discards}</div>`;
  }

  function describeEvent(e) {
    if (!e || !e.type) return "";
    const who = e.seat !== undefined ? MJ.seatName(e.seat, S.hand ? S.hand.dealer : null) : "";
    const zh = MJ.lang() === "zh";
    const tile = (id) => (id === undefined || id === null ? "" : MJ.tileName(Math.floor(id / 4)));
    switch (e.type) {
      case "discarded": return zh ? `${who} 打出 ${tile(e.tile)}` : `${who} discards ${tile(e.tile)}`;
      case "chowed": return zh ? `${who} 吃 ${tile(e.tile)}` : `${who} chows ${tile(e.tile)}`;
      case "punged": return zh ? `${who} 碰 ${tile(e.tile)}` : `${who} pungs ${tile(e.tile)}`;
      case "konged": return zh ? `${who} 杠` : `${who} kong`;
      case "win_declared": return zh ? `${who} 胡了！` : `${who} wins!`;
      case "win_rejected": return zh ? `${who} 诈胡` : `${who}: false win`;
      case "jing_flipped": return zh ? `翻精：${tile(e.tile)}` : `Flipped: ${tile(e.tile)}`;
      case "exhausted": return MJ.t("draw");
      case "drew": return zh ? `${who} 摸牌` : `${who} draws`;
      default: return "";
    }
  }

  function renderTable() {
    const h = S.hand;
    for (let s = 0; s < 4; s++) {
      const el = $("seat-" + s);
      el.innerHTML = seatHtml(s);
      el.classList.toggle("is-turn", !!h && h.turn === s && ["turn", "draw", "replacement"].includes(h.phase));
      el.classList.toggle("is-dealer", !!h && h.dealer === s);
    }
    $("hand-title").textContent = h ? `${MJ.t("hand_no", { n: h.hand_no })} · ${h.ruleset}` : "";
    $("dealer").textContent = h ? MJ.seatName(h.dealer, h.dealer) : "—";
    $("turn").textContent = h && h.turn !== null && h.turn !== undefined ? MJ.seatName(h.turn, h.dealer) : "—";
    const live = h && h.live !== null && h.live !== undefined ? `${h.live} ${MJ.t("tiles")}` : "—";
    $("wall").textContent = live;
    $("wall-big").textContent = h && h.live !== null && h.live !== undefined ? h.live : "—";
    $("wall-big").dataset.unit = h && h.live !== null && h.live !== undefined ? MJ.t("tiles") : "";
    $("phase").textContent = h ? MJ.t("phase_" + h.phase) : (S.status && S.status.state === "offline" ? MJ.t("offline") : MJ.t("waiting"));
    $("last-action").textContent = S.last && sameHand(S.last) ? describeEvent(S.last) : "";
  }

  function renderSettlement() {
    const box = $("settlement");
    const st = S.settlement;
    if (!st || !sameHand(st) || !Array.isArray(st.net)) { box.hidden = true; document.body.dataset.settled = "no"; return; }
    const h = S.hand;
    const dealer = h ? h.dealer : null;
    const wins = (h && h.wins) || [];
    const summary = wins.length
      ? wins.map((w) => `${MJ.seatName(w.seat, dealer)} ${MJ.t("win")} ${MJ.tileName(w.tile)}` +
          (w.source === "self" ? ` · ${MJ.t("self_draw")}` : "")).join("；")
      : (h && h.exhausted) ? MJ.t("draw") : "";
    const nets = st.net.map((n, s) =>
      `<div class="net ${n > 0 ? "pos" : n < 0 ? "neg" : ""}"><span>${MJ.seatName(s, dealer)}</span><b>${MJ.fmtNum(n) || "0"}</b></div>`).join("");
    const lines = (st.lines || []).map((l) =>
      `<tr><td class="reason">${MJ.esc(MJ.lang() === "zh" ? l.reason : `${l.reason}`)}</td>` +
      `<td>${MJ.seatName(l.from, dealer)}</td><td class="arrow">→</td><td>${MJ.seatName(l.to, dealer)}</td>` +
      `<td class="amount">${MJ.esc(l.amount)}</td></tr>`).join("");
    box.innerHTML = `<h2>${h ? MJ.t("hand_no", { n: h.hand_no }) + " · " : ""}${MJ.t("settlement")}</h2>
      <div class="settle-summary">${MJ.esc(summary)}${st.void ? " · " + MJ.t("void") : ""}</div>
      <div class="nets">${nets}</div>
      <table class="lines"><thead><tr><th>${MJ.t("reason")}</th><th>${MJ.t("payer")}</th><th></th><th>${MJ.t("payee")}</th><th>${MJ.t("amount")}</th></tr></thead><tbody>${lines}</tbody></table>`;
    box.hidden = false;
    document.body.dataset.settled = "yes";
  }

  function render() {
    renderJing();
    renderDice();
    renderTable();
    renderSettlement();
    document.body.dataset.handId = S.hand && S.hand.hand_id ? S.hand.hand_id : "";
  }

  function onMessage(topic, payload) {
    switch (topic) {
      case "events": S.last = payload; break;
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
    fetch("/api/v1/public/table").then((r) => r.json()).catch(() => ({})).then((t) => {
      const parlour = broker.parlour || t.parlour, table = broker.table || t.table;
      $("table-name").textContent = `${parlour} · ${table}`;
      if (!broker.wanted) return;
      MJBroker.load().then(() => MJBroker.tableLive(broker, parlour, table, onMessage, $("live-banner")));
    });
    if (!broker.wanted) MJ.live(onMessage, $("live-banner"));
  });
})();
