/* The claims part of a player's phone (docs/play.md): the winner taps 胡, then 自摸 or the
   seat that dealt in, then the winning hand on the picker (the last tile tapped is the
   winning tile), and sends it; any seat may claim a 流局. The paying seats see the claim
   and its payout, enter their 精 where the settlement needs it, and answer 确认 or 有异议. */
"use strict";

(() => {
  const { el } = MJ;
  const P = window.MJPlay;
  const TXT = {
    zh: { hu: "胡", liuju: "流局", self_draw: "自摸", dealt_in: "{s}放炮", your_hand: "胡牌（含胡的那张，最后一张为胡的牌）",
      undo_tile: "退一张", send: "提交", cancel: "取消", claimed_win: "{s}申报胡牌", claimed_draw: "{s}申报流局",
      payout: "按申报结算", agree: "确认", dispute: "有异议", your_zheng: "您的正精张数", your_fu: "您的副精张数",
      waiting: "等待 {list} 确认", disputed: "{s}有异议：已请工作人员处理", answered: "您已回答", from_who: "来源",
      jing_note: "（各家精数确认后计入）", settled: "本局结算", pays: "{a} 付 {b} {n} 分", zimo_tile: "胡的牌" },
    en: { hu: "Win", liuju: "Draw", self_draw: "Self-drawn", dealt_in: "{s} dealt in", your_hand: "Your hand (the winning tile last)",
      undo_tile: "Take one back", send: "Send", cancel: "Cancel", claimed_win: "{s} claims a win", claimed_draw: "{s} claims a draw",
      payout: "Payout as claimed", agree: "Confirm", dispute: "Dispute", your_zheng: "Your 正精", your_fu: "Your 副精",
      waiting: "Waiting for {list}", disputed: "{s} disputes it: staff are called", answered: "You answered", from_who: "From",
      jing_note: " (each seat's 精 counted once confirmed)", settled: "Settlement", pays: "{a} pays {b} {n}", zimo_tile: "Winning tile" },
  };
  const T = MJ.words(TXT);
  const S = P.seatName;
  const draft = { open: false, from: null, tiles: [] }; // the winner's entry, kept across refreshes
  const mine = { zheng: 0, fu: 0 }; // this seat's 精, as chosen
  let refusal = ""; // the last refusal, in the API's words, until the next act

  async function send(path, body, error) {
    try {
      await MJ.api(path, { body });
      refusal = "";
      Object.assign(draft, { open: false, from: null, tiles: [] });
      await P.refresh();
    } catch (e) { refusal = e.message; error.textContent = e.message; }
  }

  function lines(list) {
    return el("ul", { class: "payout", id: "payout" }, (Array.isArray(list) ? list : []).map((ln) =>
      el("li", null, T("pays", { a: S(ln.from), b: S(ln.to), n: MJ.fmtNum(ln.amount) }), " · ", MJ.str(ln.reason, 80))));
  }

  function claimEntry(me, error) {
    const parts = [];
    if (!draft.open) {
      const hu = el("button", { class: "btn primary", type: "button", id: "claim-win" }, T("hu"));
      hu.addEventListener("click", () => { draft.open = true; P.refresh(); });
      const draw = el("button", { class: "btn", type: "button", id: "claim-draw" }, T("liuju"));
      draw.addEventListener("click", () => send("/api/v1/play/claim", { hand_id: me.hand_id, seen: me.seen, seat: me.seat, result: "exhausted" }, error));
      return [el("div", { class: "actions" }, hu, draw)];
    }
    const sources = ["self", 0, 1, 2, 3].filter((s) => s !== me.seat).map((s) => {
      const b = el("button", { class: `btn${draft.from === s ? " primary" : ""}`, type: "button", id: `from-${s}` },
        s === "self" ? T("self_draw") : T("dealt_in", { s: S(s) }));
      b.addEventListener("click", () => { draft.from = s; P.refresh(); });
      return b;
    });
    parts.push(el("div", { class: "actions", id: "claim-from" }, sources));
    if (draft.from === null) return parts;
    parts.push(el("p", null, T("your_hand"), ` (${draft.tiles.length}/14)`),
      el("div", { class: "claim-hand", id: "claim-hand" }, draft.tiles.map((k) => MJ.tile(k, "tile-s"))),
      P.picker("claim-picker", (k) => { if (draft.tiles.length < 18) draft.tiles.push(k); P.refresh(); }));
    const back = el("button", { class: "btn", type: "button", id: "claim-undo" }, T("undo_tile"));
    back.addEventListener("click", () => { draft.tiles.pop(); P.refresh(); });
    const go = el("button", { class: "btn primary", type: "button", id: "claim-send" }, T("send"));
    go.addEventListener("click", () => {
      const tile = draft.tiles[draft.tiles.length - 1] || "";
      send("/api/v1/play/claim", { hand_id: me.hand_id, seen: me.seen, seat: me.seat, result: "win",
        win: { hand: draft.tiles.join(""), tile, from: draft.from, melds: [] } }, error);
    });
    const cancel = el("button", { class: "btn", type: "button", id: "claim-cancel" }, T("cancel"));
    cancel.addEventListener("click", () => { Object.assign(draft, { open: false, from: null, tiles: [] }); P.refresh(); });
    parts.push(el("div", { class: "actions" }, back, go, cancel));
    return parts;
  }

  function pending(me, c, error) {
    const parts = [el("h2", { id: "claim-title" }, (c.winners.length ? T("claimed_win", { s: S(c.seat) }) : T("claimed_draw", { s: S(c.seat) })))];
    for (const w of c.winners) {
      const src = w.from === "self" ? T("self_draw") : T("dealt_in", { s: S(w.from) });
      const kinds = MJ.parseTiles(MJ.str(w.hand, 64)).kinds || [];
      parts.push(el("p", null, src), el("div", { class: "claim-hand", id: "claimed-hand" }, kinds.map((k) => MJ.tile(k, "tile-s"))));
    }
    parts.push(el("h3", null, T("payout"), c.jing_counts ? T("jing_note") : ""), lines(c.lines));
    const answered = new Set(c.answers.map((a) => a.seat));
    const disputed = c.answers.find((a) => !a.agree);
    if (disputed) parts.push(el("p", { class: "error", id: "claim-disputed" }, T("disputed", { s: S(disputed.seat) })));
    const left = c.payers.filter((s) => !answered.has(s));
    if (left.length && !disputed) parts.push(el("p", { class: "muted", id: "claim-waiting" }, T("waiting", { list: left.map(S).join("、") })));
    if (c.payers.includes(me.seat) && !answered.has(me.seat)) {
      const count = (id, key) => {
        const box = el("select", { id }, [0, 1, 2, 3, 4].map((n) => el("option", { value: String(n) }, String(n))));
        box.value = String(mine[key]);
        box.addEventListener("change", () => { mine[key] = Number(box.value); });
        return box;
      };
      const z = count("my-zheng", "zheng"); const f = count("my-fu", "fu");
      if (c.jing_counts) parts.push(el("div", { class: "kv" }, el("label", null, T("your_zheng"), " ", z), el("label", null, T("your_fu"), " ", f)));
      const yes = el("button", { class: "btn primary", type: "button", id: "confirm" }, T("agree"));
      yes.addEventListener("click", () => send("/api/v1/play/answer", { hand_id: me.hand_id, seen: me.seen, seat: me.seat, agree: true,
        jing: c.jing_counts ? [Number(z.value), Number(f.value)] : null }, error));
      const no = el("button", { class: "btn", type: "button", id: "dispute" }, T("dispute"));
      no.addEventListener("click", () => send("/api/v1/play/answer", { hand_id: me.hand_id, seen: me.seen, seat: me.seat, agree: false }, error));
      parts.push(el("div", { class: "actions" }, yes, no));
    } else if (answered.has(me.seat)) parts.push(el("p", { class: "muted" }, T("answered")));
    return parts;
  }

  function claimPart(me) {
    const error = P.errorBox("claim-error");
    error.textContent = refusal;
    if (me.claim) return el("div", { class: "panel", id: "claim" }, ...pending(me, me.claim, error), error);
    if (me.settlement && !me.in_progress) {
      return el("div", { class: "panel", id: "settled" }, el("h2", null, T("settled")), lines(me.settlement.lines));
    }
    if (!me.in_progress) return null;
    return el("div", { class: "panel", id: "claim-entry" }, ...claimEntry(me, error), error);
  }

  P.extra.push(claimPart);
})();
