/* The dealer's part of a player's phone (docs/play.md): the turned-up 精 entered with one
   tap on its tile where no reader saw it, and the dice rolled where the table has no
   button. The same acts as the console's (flip_entered, dice_rolled), named by the phone. */
"use strict";

(() => {
  const { el } = MJ;
  const P = window.MJPlay;
  const KINDS = [..."123456789"].map((n) => n + "m").concat([..."123456789"].map((n) => n + "p"),
    [..."123456789"].map((n) => n + "s"), [..."ESWNCFP"]);
  const TXT = {
    zh: { dealer_part: "庄家操作", flip_prompt: "翻出的精牌：点一下", roll: "掷骰子" },
    en: { dealer_part: "Dealer", flip_prompt: "The turned-up tile: tap it", roll: "Roll the dice" },
  };
  const T = MJ.words(TXT);

  /** A grid of the 34 kinds; `tap(kind)` on a tap. */
  function picker(id, tap) {
    return el("div", { class: "picker", id }, KINDS.map((k) => {
      const b = el("button", { class: "btn pick", type: "button", "data-kind": k, title: MJ.tileName(k) }, MJ.tile(k, "tile-s"));
      b.addEventListener("click", () => tap(k));
      return b;
    }));
  }

  let kept = { key: null, node: null }; // the part as last built, kept in place while it shows the same

  /** The dealer's part, the same node while it would show the same (rebuilt or moved under
      a finger, a tap is lost: play.js's place); its buttons act on the latest look. */
  function dealerPart(me) {
    const key = JSON.stringify([me.seat, me.dealer, me.hand_id, me.in_progress, me.flips, me.jing && me.jing.zheng, me.dice_due, MJ.lang()]);
    if (key !== kept.key) kept = { key, node: buildDealerPart(me) };
    return kept.node;
  }

  function buildDealerPart(me) {
    if (me.seat !== me.dealer) return null;
    const error = P.errorBox("dealer-error");
    const parts = [el("h2", null, T("dealer_part"))];
    // the 精 is turned up once the dice have broken the wall: its tiles only after the roll
    if (me.in_progress && me.flips && !me.dice_due && !(me.jing && me.jing.zheng)) {
      parts.push(el("p", null, T("flip_prompt")), picker("flip-picker", async (kind) => {
        const now = P.current() || me;
        try { await MJ.api("/api/v1/play/flip", { body: { hand_id: now.hand_id, seen: now.seen, indicator: kind } }); await P.refresh(); }
        catch (e) { error.textContent = e.message; }
      }));
    }
    if (me.dice_due) {
      const roll = el("button", { class: "btn primary", type: "button", id: "roll" }, T("roll"));
      roll.addEventListener("click", async () => {
        const now = P.current() || me;
        try { await MJ.api("/api/v1/play/dice", { body: { hand_id: now.hand_id, seen: now.seen } }); await P.refresh(); }
        catch (e) { error.textContent = e.message; }
      });
      parts.push(el("div", { class: "actions" }, roll));
    }
    if (parts.length === 1) return null;
    return el("div", { class: "panel", id: "dealer-part" }, ...parts, error);
  }

  window.MJPlay.picker = picker;
  P.extra.push(dealerPart);
})();
