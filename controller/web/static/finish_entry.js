/* The finish entry (docs/staff.md, "The console"): a hand's result as its settlement
   needs it, by taps. Who won and how (自摸, or who dealt in), the winner's tiles from the
   picker beside them (the last tile tapped is the winning tile), the flipped tiles no
   reader saw, and of every other seat only what the hand's ruleset reads (the view's
   `needs`, from the engine's Ruleset.needs): its 精 by kind and its kongs, as steppers.
   A 流局 that settles nothing is one confirmation. The page hosting it (the console)
   mounts it and hands it the way to send a finish; it builds no markup from data. */
"use strict";

const FinishEntry = (() => {
  const { el } = MJ;
  const TXT = {
    zh: {
      title: "结束本局", won: "{s} 胡", exhausted: "流局", how: "怎么胡的", self: "自摸",
      dealt_in: "{s} 放炮", hand: "胡家的牌（最后点的一张是和牌）", back: "退一张", clear: "清空",
      flip: "翻出的精", an_flip: "暗精（翻精那墩的另一张）", xia_flip: "下精", settle: "结算",
      confirm: "确认流局", confirm_only: "这个规则流局不计分：确认即可。", others: "其他家（只录结算要的）",
      first_flip: "先录翻出的精，再数各家的精。", zheng: "正精", fu: "副精", an: "暗精", xia: "下精",
      kong_exposed: "明杠", kong_concealed: "暗杠", winner_discards: "胡家打出（没被吃碰）的精",
      tiles_left: "选牌（剩余张数）", winning_tile: "和牌", editing: "正在录入",
      melds: "把最后点的几张作副露：", pung: "碰", chow: "吃", meld_from: "{t}自", remove: "拆回",
    },
    en: {
      title: "Finish this hand", won: "{s} won", exhausted: "Draw (流局)", how: "How it was won",
      self: "Self-drawn", dealt_in: "{s} dealt in", hand: "The winner's tiles (the last one tapped is the winning tile)",
      back: "Back", clear: "Clear", flip: "Flipped 精", an_flip: "暗精 (the other tile of the flipped stack)",
      xia_flip: "下精", settle: "Settle", confirm: "Confirm the draw",
      confirm_only: "This ruleset settles nothing on a draw: just confirm.", others: "The other seats (only what settles)",
      first_flip: "Enter the flipped 精 first, then count each seat's.", zheng: "正精", fu: "副精", an: "暗精",
      xia: "下精", kong_exposed: "Exposed kong", kong_concealed: "Concealed kong",
      winner_discards: "精 the winner discarded (unclaimed)", tiles_left: "Tiles (left)", winning_tile: "winning tile",
      editing: "entering",
      melds: "Make the last tiles tapped a meld:", pung: "Pung", chow: "Chow", meld_from: "{t} from", remove: "Undo meld",
    },
  };
  const T = MJ.words(TXT);
  const KINDS = [..."mps"].flatMap((s) => [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => `${n}${s}`)).concat([..."ESWNCFP"]);
  const FLIPS = [["indicator", "flip", "jing"], ["an_indicator", "an_flip", "an_jing"], ["xia_indicator", "xia_flip", "xia_jing"]];
  const HONOR_CYCLES = ["ESWN", "CFP"];

  /** The 副精 of a 正精 (the next kind: 9 → 1, 北 → 东, 白 → 中). */
  function successor(kind) {
    const p = MJ.parseTile(kind);
    if (!p) return null;
    if (p.suit !== "z") return `${(p.n % 9) + 1}${p.suit}`;
    const cycle = HONOR_CYCLES.find((c) => c.includes(kind));
    return cycle[(cycle.indexOf(kind) + 1) % cycle.length];
  }

  function mount(box, { act }) {
    const S = { view: null, handId: null, result: null, winner: null, how: "self", tiles: [], melds: [], flips: {}, target: "hand", counts: {} };

    const reset = () => Object.assign(S, { result: null, winner: null, how: "self", tiles: [], melds: [], flips: {}, target: "hand", counts: {}, picked: false });
    const needs = () => {
      const all = S.view && S.view.needs && typeof S.view.needs === "object" ? S.view.needs : {};
      const kind = S.result === "exhausted" ? "exhausted" : S.how === "self" ? "self_draw" : "discard";
      const n = all[kind] && typeof all[kind] === "object" ? all[kind] : {};
      const o = n.others && typeof n.others === "object" ? n.others : {};
      return { jing: Array.isArray(o.jing) ? o.jing : [], kongs: o.kongs === true, winnerDiscards: n.winner_jing_discards === true, confirmOnly: n.confirm_only === true };
    };
    /** The flipped tiles entered here, where no reader saw them (the view says which); a
        流局 that settles nothing needs none. */
    const unseenFlips = () => {
      const v = S.view || {};
      const p = v.public && typeof v.public === "object" ? v.public : {};
      const seen = p.jing && typeof p.jing === "object" && Object.keys(p.jing).length > 0;
      if (S.result === "exhausted" && needs().confirmOnly) return [];
      return FLIPS.filter(([, , source]) => (source === "jing" ? v.flips === true && !seen : v[source] === true));
    };
    const flipOf = (source) => {
      if (source === "jing") {
        const p = S.view && S.view.public && typeof S.view.public === "object" ? S.view.public : {};
        const z = p.jing && typeof p.jing === "object" ? MJ.str(p.jing.zheng, 2) : "";
        return z || S.flips.indicator || null;
      }
      return S.flips[source === "an_jing" ? "an_indicator" : "xia_indicator"] || null;
    };
    /** The kinds counted of each seat: [kind, words], one per kind however many flips make it. */
    const counted = () => {
      const out = [];
      const label = { jing: ["zheng", "fu"], an_jing: ["an", "an"], xia_jing: ["xia", "xia"] };
      for (const source of needs().jing) {
        const z = flipOf(source);
        if (!z) continue;
        [z, successor(z)].forEach((k, i) => { if (k && !out.some(([x]) => x === k)) out.push([k, T(label[source][i])]); });
      }
      return out;
    };
    const count = (seat, key) => S.counts[`${seat}:${key}`] || 0;
    const others = () => [0, 1, 2, 3].filter((s) => s !== (S.result === "win" ? S.winner : null));

    /** The tiles left of each kind: four, less what the entry holds. */
    function left() {
      const used = Object.fromEntries(KINDS.map((k) => [k, 0]));
      const add = (k, n = 1) => { if (Object.hasOwn(used, k)) used[k] += n; };
      S.tiles.forEach((k) => add(k));
      S.melds.forEach((m) => m.tiles.forEach((k) => add(k)));
      Object.values(S.flips).forEach((k) => add(k));
      for (const [k] of counted()) for (const s of [0, 1, 2, 3]) add(k, count(s, k));
      return Object.fromEntries(KINDS.map((k) => [k, 4 - used[k]]));
    }

    function tap(kind) {
      if (S.target === "hand") { if (S.tiles.length < 18) S.tiles.push(kind); }
      else {
        S.flips[S.target] = kind;
        S.target = unseenFlips().map(([f]) => f).find((f) => !S.flips[f]) || "hand";
        S.picked = true;
      }
      render();
    }

    function stepper(id, label, value, change, tile) {
      const minus = el("button", { class: "btn fe-step", type: "button", id: `${id}-minus`, "aria-label": "−" }, "−");
      const plus = el("button", { class: "btn fe-step", type: "button", id: `${id}-plus`, "aria-label": "+" }, "+");
      minus.addEventListener("click", () => change(-1));
      plus.addEventListener("click", () => change(1));
      return el("div", { class: "fe-stepper", "data-stepper": id },
        tile ? MJ.tile(tile, "tile-s") : null, el("span", null, label), minus, el("b", { id }, String(value)), plus);
    }
    const bump = (seat, key, d, max = 4) => { S.counts[`${seat}:${key}`] = Math.max(0, Math.min(max, count(seat, key) + d)); render(); };

    function seatSteppers(seat) {
      const n = needs();
      const rows = counted().map(([k, words]) => stepper(`fe-s${seat}-${k}`, words, count(seat, k), (d) => bump(seat, k, d), k));
      if (n.kongs) for (const t of ["kong_exposed", "kong_concealed"]) rows.push(stepper(`fe-s${seat}-${t}`, T(t), count(seat, t), (d) => bump(seat, t, d)));
      return rows;
    }

    function body() {
      const n = needs();
      const kinds = counted();
      const out = { reason: "" };
      for (const [field] of unseenFlips()) if (S.flips[field]) out[field] = S.flips[field];
      out.seats = others().map((s) => {
        const seat = { seat: s, partial: true, hand: kinds.map(([k]) => k.repeat(count(s, k))).join("") };
        if (n.kongs) seat.kongs = ["kong_exposed", "kong_concealed"].flatMap((t) => Array(count(s, t)).fill(t));
        return seat;
      });
      if (S.result === "exhausted") return { ...out, result: "exhausted" };
      const melds = S.melds.map((m) => ({ type: m.type, tiles: m.tiles.join(""), ...(m.from === null ? {} : { from: m.from }) }));
      const winner = { seat: S.winner, hand: S.tiles.join(""), tile: S.tiles[S.tiles.length - 1] || "", from: S.how, melds };
      if (n.winnerDiscards) winner.discards = kinds.map(([k]) => k.repeat(count("w", k))).join("");
      return { ...out, winners: [winner] };
    }

    /** The meld the last tiles tapped make (碰, 吃 from the 上家, 明杠, 暗杠), or null. */
    function meldOf(type) {
      const n = type.startsWith("kong") ? 4 : 3;
      const last = S.tiles.slice(-n);
      if (last.length < n || S.melds.length >= 4) return null;
      if (type === "chow") {
        const p = last.map(MJ.parseTile).sort((a, b) => a.n - b.n);
        const run = p.every((x) => x && x.suit !== "z" && x.suit === p[0].suit) && p[1].n === p[0].n + 1 && p[2].n === p[0].n + 2;
        return run ? { type, tiles: last, from: (S.winner + 3) % 4 } : null;
      }
      if (!last.every((k) => k === last[0])) return null;
      return { type, tiles: last, from: type === "kong_concealed" ? null : (S.winner + 3) % 4 };
    }

    function meldRows(pick) {
      const make = el("div", { class: "row fe-meld-make" }, el("span", { class: "muted" }, T("melds")),
        ["pung", "chow", "kong_exposed", "kong_concealed"].map((type) => {
          const b = pick(`fe-meld-${type}`, false, T(type), () => {
            const m = meldOf(type);
            if (m) { S.tiles.splice(-m.tiles.length); S.melds.push(m); render(); }
          });
          b.disabled = !meldOf(type);
          return b;
        }));
      const made = S.melds.map((m, i) => el("div", { class: "row fe-meld", "data-meld": i },
        el("span", null, T(m.type)), m.tiles.map((k) => MJ.tile(k, "tile-s")),
        m.type === "pung" || m.type === "kong_exposed"
          ? [0, 1, 2, 3].filter((s) => s !== S.winner).map((s) => pick(`fe-meld-${i}-from-${s}`, m.from === s,
            T("meld_from", { t: MJ.seatName(s, null) }), () => { m.from = s; render(); }))
          : null,
        pick(`fe-meld-${i}-remove`, false, T("remove"), () => { S.melds.splice(i, 1); S.tiles.push(...m.tiles); render(); })));
      return [...made, make];
    }

    function render() {
      const v = S.view;
      if (!v || !v.hand_id || !v.in_progress) { box.replaceChildren(el("div", { class: "error", id: "fe-error", role: "alert" })); return; }
      const n = needs();
      const parts = [el("h3", null, T("title"))];
      const pick = (id, on, text, go) => {
        const b = el("button", { class: `btn${on ? " primary" : ""}`, type: "button", id, "aria-pressed": on ? "true" : "false" }, text);
        b.addEventListener("click", go);
        return b;
      };
      parts.push(el("div", { class: "row fe-results" },
        [0, 1, 2, 3].map((s) => pick(`fe-won-${s}`, S.result === "win" && S.winner === s, T("won", { s: MJ.seatName(s, null) }), () => {
          Object.assign(S, { result: "win", winner: s, how: S.how === s ? "self" : S.how });
          render();
        })),
        pick("fe-exhausted", S.result === "exhausted", T("exhausted"), () => { S.result = "exhausted"; render(); })));
      if (S.result === "win") {
        parts.push(el("div", { class: "row fe-how" }, el("span", null, T("how")),
          pick("fe-how-self", S.how === "self", T("self"), () => { S.how = "self"; render(); }),
          [0, 1, 2, 3].filter((s) => s !== S.winner).map((s) =>
            pick(`fe-how-${s}`, S.how === s, T("dealt_in", { s: MJ.seatName(s, null) }), () => { S.how = s; render(); }))));
      }
      if (S.result) {
        const flips = unseenFlips();
        if (S.target !== "hand" && !flips.some(([f]) => f === S.target)) S.target = "hand";
        // the flipped tiles first, while nothing else is entered: one tap each
        const unfilled = flips.find(([f]) => !S.flips[f]);
        if (S.target === "hand" && unfilled && !S.tiles.length && !S.picked) S.target = unfilled[0];
        for (const [field, words] of flips) {
          const chosen = S.flips[field];
          const f = el("button", { class: `fe-field${S.target === field ? " editing" : ""}`, type: "button", id: `fe-${field}` },
            el("span", null, T(words)), chosen ? MJ.tile(chosen, "tile-s") : el("span", { class: "muted" }, "?"));
          f.addEventListener("click", () => { S.target = field; render(); });
          parts.push(f);
        }
        if (S.result === "win") {
          const hand = el("div", { class: `fe-field fe-hand${S.target === "hand" ? " editing" : ""}`, id: "fe-hand", "data-count": S.tiles.length },
            el("span", null, `${T("hand")} · ${S.tiles.length + 3 * S.melds.length}`),
            el("div", { class: "tile-row" }, S.tiles.map((k, i) => {
              const last = i === S.tiles.length - 1;
              const t = el("button", { class: `fe-tile${last ? " winning" : ""}`, type: "button", title: last ? T("winning_tile") : MJ.tileName(k) }, MJ.tile(k, "tile-s"));
              t.addEventListener("click", () => { S.tiles.push(S.tiles.splice(i, 1)[0]); S.target = "hand"; render(); });
              return t;
            })));
          hand.addEventListener("click", (e) => { if (!e.target.closest(".fe-tile")) { S.target = "hand"; S.picked = true; render(); } });
          parts.push(hand, ...meldRows(pick));
        }
        if (S.result === "win" || flips.length) parts.push(picker());
        if (S.result === "exhausted" && n.confirmOnly) parts.push(el("p", { class: "muted", id: "fe-confirm-only" }, T("confirm_only")));
        else {
          if (n.jing.length && !counted().length) parts.push(el("p", { class: "muted" }, T("first_flip")));
          if (S.result === "win" && n.winnerDiscards && counted().length) {
            parts.push(el("div", { class: "fe-seat", "data-fe-seat": "winner" }, el("b", null, T("winner_discards")),
              counted().map(([k, words]) => stepper(`fe-sw-${k}`, words, count("w", k), (d) => bump("w", k, d), k))));
          }
          const rows = [];
          for (const s of others()) {
            const steps = seatSteppers(s);
            if (steps.length) rows.push(el("div", { class: "fe-seat", "data-fe-seat": s }, el("b", null, MJ.seatName(s, null)), steps));
          }
          if (rows.length) parts.push(el("div", { class: "fe-others" }, el("h4", null, T("others")), rows));
        }
        const go = el("button", { class: "btn primary", type: "button", id: "fe-go" }, T(S.result === "exhausted" ? "confirm" : "settle"));
        go.addEventListener("click", async () => { await act(body()); });
        parts.push(el("div", { class: "row" }, go));
      }
      const said = box.querySelector("#fe-error"); // (the host's answer to the last send stays)
      parts.push(el("div", { class: said ? said.className : "error", id: "fe-error", role: "alert" }, said ? said.textContent : ""));
      box.replaceChildren(...parts);
    }

    function picker() {
      const counts = left();
      const grid = el("div", { class: "picker fe-picker", id: "fe-picker" }, KINDS.map((k) => {
        const b = el("button", { class: "pick", type: "button", "data-kind": k, title: MJ.tileName(k), disabled: counts[k] <= 0 },
          MJ.tile(k, "tile-m"), el("span", { class: "left" }, String(Math.max(counts[k], 0))));
        b.addEventListener("click", () => tap(k));
        return b;
      }));
      const back = el("button", { class: "btn", type: "button", id: "fe-back" }, T("back"));
      back.addEventListener("click", () => { if (S.target === "hand") S.tiles.pop(); else delete S.flips[S.target]; render(); });
      const clear = el("button", { class: "btn", type: "button", id: "fe-clear" }, T("clear"));
      clear.addEventListener("click", () => { if (S.target === "hand") S.tiles = []; else delete S.flips[S.target]; render(); });
      return el("div", { class: "fe-picker-box" }, el("div", { class: "row" }, el("span", { class: "muted" }, T("tiles_left")), back, clear), grid);
    }

    /** A new look at the hand: a new hand (or a settled one) starts the entry afresh. */
    function update(view) {
      const id = view && view.hand_id ? view.hand_id : null;
      if (id !== S.handId || !(view && view.in_progress)) reset();
      S.handId = id;
      S.view = view;
      render();
    }
    return { update };
  }

  return { mount, successor };
})();
