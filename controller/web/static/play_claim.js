/* The claims part of a player's phone (docs/play.md): the winner enters its hand with the
   console's finish entry (finish_entry.js, for its own seat only): 胡, then 自摸 or the seat
   that dealt in (杠上花 and the win's flags where the ruleset reads them), then the hand
   on the picker with its melds (the last tile tapped is the winning tile), and sends it;
   any seat may claim a 流局. The paying seats see the claim and its payout, enter their 精
   where the settlement needs it, and answer 确认 or 有异议; where the ruleset pays several
   winners of a discard, another seat that won on it claims its own hand (我也胡) and joins
   the pending claim, and each seat that could have won on it but did not says so (没胡):
   the claim settles only then. */
"use strict";

(() => {
  const { el } = MJ;
  const P = window.MJPlay;
  const TXT = {
    zh: { self_draw: "自摸", dealt_in: "{s}放炮", claimed_win: "{s}申报胡牌", claimed_draw: "{s}申报流局",
      payout: "按申报结算", agree: "确认", dispute: "有异议", your_zheng: "您的正精张数", your_fu: "您的副精张数",
      waiting: "等待 {list} 确认", disputed: "{s}有异议：已请工作人员处理", answered: "您已回答",
      jing_note: "（各家精数确认后计入）", kong_replacement: "杠上花", settled: "本局结算", pays: "{a} 付 {b} {n} 分", also: "我也胡（一炮多响）",
      robbed: "抢{s}的杠", pass: "没胡", undecided: "等待 {list} 回答是否也胡", passed: "您已回答：没胡" },
    en: { self_draw: "Self-drawn", dealt_in: "{s} dealt in", claimed_win: "{s} claims a win", claimed_draw: "{s} claims a draw",
      payout: "Payout as claimed", agree: "Confirm", dispute: "Dispute", your_zheng: "Your 正精", your_fu: "Your 副精",
      waiting: "Waiting for {list}", disputed: "{s} disputes it: staff are called", answered: "You answered",
      jing_note: " (each seat's 精 counted once confirmed)", kong_replacement: "After a kong", settled: "Settlement", pays: "{a} pays {b} {n}",
      also: "I won on it too", robbed: "Robbed {s}'s kong", pass: "I did not win", undecided: "Waiting for {list}: did they win too?",
      passed: "You said you did not win" },
  };
  const T = MJ.words(TXT);
  const S = P.seatName;
  const mine = { zheng: 0, fu: 0 }; // this seat's 精, as chosen
  let refusal = ""; // the last refusal, in the API's words, until the next act
  // the finish entry, for this phone's seat: kept across refreshes (the page is rebuilt)
  const entryBox = el("div", { class: "finish-entry", id: "claim-entry-box" });
  const entryPanel = el("div", { class: "panel", id: "claim-entry" }, entryBox); // (kept in place)
  let entry = null;
  let entrySeat = null;
  let also = null; // the hand whose pending claim this seat joins as another winner

  async function send(path, body, error) {
    try {
      await MJ.api(path, { body });
      refusal = "";
      await P.refresh();
    } catch (e) { refusal = e.message; error.textContent = e.message; }
  }

  /** The entry's finish as a claim of this seat (the shape /api/v1/play/claim takes). */
  async function claim(body) {
    const me = P.current();
    // (the page is rebuilt while the claim is sent: the entry's message line as it is then)
    const say = (text) => { const line = entryBox.querySelector("#fe-error"); if (line) line.textContent = text; };
    const [w] = Array.isArray(body.winners) ? body.winners : [];
    const result = w ? { result: "win", win: { hand: w.hand, tile: w.tile, from: w.from, melds: w.melds, ...(w.flags ? { flags: w.flags } : {}),
      ...(Number.isInteger(w.robbed_from) ? { robbed_from: w.robbed_from } : {}) } }
      : { result: "exhausted" };
    try {
      await MJ.api("/api/v1/play/claim", { body: { hand_id: me.hand_id, seen: me.seen, seat: me.seat, ...result } });
      say("");
      also = null;
      entry.reset();
      await P.refresh();
    } catch (e) { say(e.message); }
  }

  /** The hand as the entry reads a look at it: what a finish needs, the 精, the dealer. */
  function entryView(me) {
    return { hand_id: me.hand_id, in_progress: me.in_progress, seen: me.seen, needs: me.needs, flips: false,
      public: { jing: me.jing, dealer: me.dealer } };
  }

  function claimEntry(me) {
    if (!entry || entrySeat !== me.seat) {
      entry = FinishEntry.mount(entryBox, { seat: me.seat, act: claim });
      entrySeat = me.seat;
    }
    entry.update(entryView(me));
    return entryBox;
  }

  function lines(list) {
    return el("ul", { class: "payout", id: "payout" }, (Array.isArray(list) ? list : []).map((ln) =>
      el("li", null, T("pays", { a: S(ln.from), b: S(ln.to), n: MJ.fmtNum(ln.amount) }), " · ", MJ.str(ln.reason, 80))));
  }
  function pending(me, c, error) {
    const parts = [el("h2", { id: "claim-title" }, (c.winners.length ? T("claimed_win", { s: S(c.seat) }) : T("claimed_draw", { s: S(c.seat) })))];
    for (const w of c.winners) {
      const robbed = /^rob_kong:([0-3])$/.exec(MJ.str(w.from, 12));
      const src = Number.isInteger(w.from) ? T("dealt_in", { s: S(w.from) }) : robbed ? T("robbed", { s: S(Number(robbed[1])) })
        : w.from === "kong_replacement" ? T("kong_replacement") : T("self_draw");
      const kinds = MJ.parseTiles(MJ.str(w.hand, 64)).kinds || [];
      const who = c.winners.length > 1 ? `${S(w.seat)} · ` : "";
      parts.push(el("p", null, who, src), el("div", { class: "claim-hand", id: c.winners.length > 1 ? `claimed-hand-${w.seat}` : "claimed-hand" }, kinds.map((k) => MJ.tile(k, "tile-s"))));
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
    // another winner of the same discard joins the claim with its own hand, where the
    // ruleset pays several (the claim says it is joinable)
    const [first] = c.winners;
    const from = first ? first.from : null;
    const undecided = Array.isArray(c.undecided) ? c.undecided : [];
    const passed = (Array.isArray(c.passed) ? c.passed : []).some((p) => p.seat === me.seat);
    if (undecided.length && !disputed) parts.push(el("p", { class: "muted", id: "claim-undecided" }, T("undecided", { list: undecided.map(S).join("、") })));
    const buttons = [];
    if (c.joinable === true && Number.isInteger(from) && from !== me.seat && !c.winners.some((w) => w.seat === me.seat) && also !== me.hand_id && !passed) {
      const join = el("button", { class: "btn", type: "button", id: "claim-also" }, T("also"));
      join.addEventListener("click", () => { claimEntry(me); entry.joinWin(from); also = me.hand_id; P.refresh(); });
      buttons.push(join);
    }
    // a seat that could have won on the discard says it did not: the claim waits for it
    if (undecided.includes(me.seat) && also !== me.hand_id) {
      const no = el("button", { class: "btn", type: "button", id: "claim-pass" }, T("pass"));
      no.addEventListener("click", () => send("/api/v1/play/pass", { hand_id: me.hand_id, seen: me.seen, seat: me.seat }, error));
      buttons.push(no);
    }
    if (buttons.length) parts.push(el("div", { class: "actions" }, ...buttons));
    if (passed) parts.push(el("p", { class: "muted", id: "claim-passed" }, T("passed")));
    return parts;
  }

  function claimPart(me) {
    const error = P.errorBox("claim-error");
    error.textContent = refusal;
    if (me.claim) {
      const claimed = el("div", { class: "panel", id: "claim" }, ...pending(me, me.claim, error), error);
      if (also === me.hand_id && me.in_progress) { claimEntry(me); return [claimed, entryPanel]; }
      return claimed;
    }
    also = null;
    if (me.settlement && !me.in_progress) {
      return el("div", { class: "panel", id: "settled" }, el("h2", null, T("settled")), lines(me.settlement.lines));
    }
    if (!me.in_progress) return null;
    claimEntry(me);
    return entryPanel;
  }

  P.extra.push(claimPart);
})();
