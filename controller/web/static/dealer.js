/* The dealer's view: where to break the wall and which 墩 to flip (the live hub's `dealer`
   topic), and alerts with what to do (`alerts`). A hand that waits for staff (`status`)
   is one notice card at the top: the dealer card says the same, and the discrepancy alerts
   it explains are folded into it while it stands. */
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const S = { dealer: null, hand: null, jing: null, status: null, alerts: [], dismissed: new Set() };
  // what a hand's readers and the hand disagree on, or why it waits: said by the one notice
  const FOLDED = new Set(["xianggong", "duplicate_tag", "tile_misplaced", "tile_missing", "refused",
    "false_win", "walls_changed", "reader_silent"]);

  /** The hand in play waits for staff: the status topic's notice, or null. */
  function notice() {
    const s = S.status, h = S.hand;
    if (!s || s.hand !== "waiting_for_staff" || !s.text) return null;
    return !h || !s.hand_id || s.hand_id === h.hand_id ? s : null;
  }

  /** The one card while the hand waits for staff: what happened, what to do. */
  function renderNotice() {
    const n = notice(), box = $("stuck-banner");
    box.hidden = !n;
    if (!n) { box.replaceChildren(); return; }
    const folded = S.alerts.filter((a) => isFolded(a, n)).length;
    box.replaceChildren(
      el("h3", null, MJ.inLang(n.title) || n.text),
      el("div", { class: "why" }, MJ.inLang(n.why) || n.text),
      el("div", { class: "advice" }, `${MJ.t("what_to_do")}: ${MJ.inLang(n.advice)}`),
      ...(folded ? [el("div", { class: "folded" }, MJ.t("folded_alerts", { n: folded }))] : []));
  }

  const isFolded = (a, n) => FOLDED.has(a.payload.kind) && (!a.payload.hand_id || !n.hand_id || a.payload.hand_id === n.hand_id);

  /** The 墩 to mark: {rel: wall relative to the dealer 0-3, n: 1-17 from its right end}. */
  function place(d) {
    if (!d) return null;
    const dealer = d.dealer ?? (S.hand ? S.hand.dealer : 0);
    let wall = null, n = null;
    if (d.place && Number.isInteger(d.place.wall_seat)) { wall = d.place.wall_seat; n = d.place.stack; }
    else if (d.count_from === "left") { wall = d.wall_seat; n = 18 - d.stack; }
    else if (d.count_from !== "tail") { wall = d.wall_seat; n = d.stack; }
    if (!Number.isInteger(wall) || !Number.isInteger(n) || n < 1 || n > 17) return null;
    return { rel: (wall - dealer + 4) % 4, n };
  }

  const { el, svg } = MJ;

  /** Four walls of 17 墩 seen from the dealer's chair (the dealer's wall at the bottom). */
  function wallMap(mark) {
    const S0 = 18, T = 12, L = 17 * S0, O = 40;
    const size = L + 2 * O;
    const rects = [];
    for (let rel = 0; rel < 4; rel++) {
      for (let n = 1; n <= 17; n++) {
        let x, y, w, h;
        if (rel === 0) { x = O + (17 - n) * S0; y = O + L - T; w = S0 - 2; h = T; }
        else if (rel === 1) { x = O + L - T; y = O + (n - 1) * S0; w = T; h = S0 - 2; }
        else if (rel === 2) { x = O + (n - 1) * S0; y = O; w = S0 - 2; h = T; }
        else { x = O; y = O + (17 - n) * S0; w = T; h = S0 - 2; }
        const hit = mark && mark.rel === rel && mark.n === n;
        rects.push(svg("rect", { x, y, width: w, height: h, rx: 2, fill: hit ? "#e63946" : "#e9e2cf",
          stroke: hit ? "#fff" : null, "stroke-width": hit ? 2 : null, "data-mark": hit ? 1 : null }));
      }
    }
    const zh = MJ.lang() === "zh";
    const names = zh ? ["庄家（你）", "下家", "对家", "上家"] : ["Dealer (you)", "Next", "Opposite", "Previous"];
    const labels = [
      svg("text", { x: size / 2, y: size - 10, "text-anchor": "middle" }, names[0]),
      svg("text", { x: size - 12, y: size / 2, "text-anchor": "middle", transform: `rotate(-90 ${size - 12} ${size / 2})` }, names[1]),
      svg("text", { x: size / 2, y: 24, "text-anchor": "middle" }, names[2]),
      svg("text", { x: 14, y: size / 2, "text-anchor": "middle", transform: `rotate(90 14 ${size / 2})` }, names[3]),
    ];
    return svg("svg", { class: "wall-map", viewBox: `0 0 ${size} ${size}`, "font-size": 15, fill: "#cfe3d8", role: "img", "aria-label": "wall" }, rects, labels);
  }

  function renderInstruction() {
    const d = S.dealer && (!S.hand || !S.dealer.hand_id || S.dealer.hand_id === S.hand.hand_id) ? S.dealer : null;
    const n = notice();
    // waiting for staff: the card says so, whichever of the two topics came first
    const text = n ? `${MJ.inLang(n.title)}：${MJ.inLang(n.why)}` : d && d.text ? MJ.inLang(d.text) : MJ.t("waiting");
    $("instruction").textContent = text;
    const rolls = d ? d.dice : [];
    $("dice").replaceChildren(...rolls.map((r, i) => [
      i ? el("span", { class: "dice-gap" }) : null,
      MJ.die(r.a), MJ.die(r.b), el("span", { class: "dice-sum" }, String(r.a + r.b)),
    ]).flat().filter(Boolean));
    const h = S.hand;
    $("hand-title").textContent = h && h.hand_no !== null ? `${MJ.t("hand_no", { n: h.hand_no })} · ${h.ruleset_name || h.ruleset}` : "";
    const bits = [];
    if (h) bits.push(`${MJ.t("dealer")}: ${MJ.seatName(h.dealer, h.dealer)}`, h.phase ? MJ.t("phase_" + h.phase) : "");
    if (h && h.live !== null) bits.push(`${MJ.t("wall")} ${h.live} ${MJ.t("tiles")}`);
    const j = S.jing && (!h || S.jing.hand_id === h.hand_id) ? S.jing : null;
    // a 精 only once one is turned up (read or entered): a hand's jing before names none
    if (j && (j.caishen || j.zheng_jing)) bits.push(j.caishen ? `${MJ.t("caishen")} ${MJ.tileName(j.caishen)}` : `${MJ.t("zheng")} ${MJ.tileName(j.zheng_jing)} · ${MJ.t("fu")} ${MJ.tileName(j.fu_jing)}`);
    $("sub").textContent = bits.filter(Boolean).join(" · ");
    // In play too (nothing to mark then): the walls stay on screen.
    $("wall-map").replaceChildren(...(d ? [wallMap(d.step !== "wait" ? place(d) : null)] : []));
  }

  function renderAlerts() {
    const n = notice();
    const shown = S.alerts.filter((a) => !S.dismissed.has(a.key) && !(n && isFolded(a, n)));
    if (!shown.length) { $("alerts").replaceChildren(el("p", { class: "muted" }, MJ.t("no_alerts"))); return; }
    $("alerts").replaceChildren(...shown.slice().reverse().map((a) => {
      const p = a.payload;
      const title = p.title ? MJ.inLang(p.title) : p.kind;
      const advice = MJ.inLang(p.advice);
      const seat = p.seat !== null ? ` · ${MJ.seatName(p.seat, S.hand ? S.hand.dealer : null)}` : "";
      const when = new Date(a.at * 1000).toLocaleTimeString();
      return el("div", { class: `alert${a.fresh ? " fresh" : ""}${a.replayed ? " replayed" : ""}`, "data-kind": p.kind, "data-hand": MJ.str(p.hand_id, 64) || "" },
        el("span", { class: "when" }, when + (a.replayed ? " · " + MJ.t("recent") : "")),
        el("h3", null, title + seat),
        el("div", null, p.message),
        el("div", { class: "advice" }, `${MJ.t("what_to_do")}: ${advice}`),
        el("button", { class: "btn", type: "button", "data-dismiss": a.key }, MJ.t("dismiss")));
    }));
  }

  function render() { renderNotice(); renderInstruction(); renderAlerts(); }

  function onMessage(topic, payload, meta) {
    if (payload === null) return; // not a topic of this page
    // the staff console (console.js) follows the same stream
    document.dispatchEvent(new CustomEvent("mj:topic", { detail: { topic, payload } }));
    if (topic === "alerts") {
      const at = Number.isFinite(meta.at) ? meta.at : Date.now() / 1000;
      S.alerts.push({ key: MJ.str(meta.id, 40) || String(Math.random()), payload, at, replayed: !!meta.replayed, fresh: !meta.replayed });
      S.alerts = S.alerts.slice(-30);
      renderAlerts();
      renderNotice();
      S.alerts.forEach((a) => { a.fresh = false; });
      return;
    }
    if (topic === "status") { S.status = payload; render(); }
    if (topic === "hand") { S.hand = payload; render(); return; }
    if (["dealer", "jing"].includes(topic)) { S[topic] = payload; renderInstruction(); }
  }

  document.addEventListener("DOMContentLoaded", () => {
    MJ.applyI18n();
    MJ.langToggle($("lang"));
    $("alerts").addEventListener("click", (e) => {
      const key = e.target && e.target.dataset ? e.target.dataset.dismiss : null;
      if (key) { S.dismissed.add(key); renderAlerts(); }
    });
    document.addEventListener("mj:lang", render);
    render();
    MJ.live(onMessage, $("live-banner"));
  });
})();
