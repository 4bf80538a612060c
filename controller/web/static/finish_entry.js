/* The finish entry (docs/staff.md, "The console"; docs/play.md, the claim): a hand's
   result as its settlement needs it, by taps. Who won and how (自摸, or who dealt in; 杠上花
   and 抢杠 where the ruleset reads them), the winner's tiles from the picker beside them
   (the last tile tapped is the winning tile) and melds made of the last tiles tapped, the
   win's flags the ruleset reads (天胡 …), more winners of one discard where it pays them,
   the flipped tiles no reader saw, and of every other seat only what the hand's ruleset
   reads (the view's `needs`, from the engine's Ruleset.needs): its 精 by kind and its
   kongs as steppers, its 杠精 and the melds that claimed a 精 behind one tap (副露).
   A 流局 that settles nothing is one confirmation. A result entered so and settled is
   corrected in the same entry, prefilled with what was entered (correct(entered), the
   view's `entered`), until the next hand starts.
   One entry for the console and a player's phone: mount(box, { act }) enters any seat's
   win; mount(box, { act, seat }) enters only that seat's own (a claim: the others confirm
   their own 精 on their phones). The host sends the body; it builds no markup from data. */
"use strict";

const FinishEntry = (() => {
  const { el } = MJ;
  const TXT = {
    zh: {
      title: "结束本局", won: "{s} 胡", hu: "胡", exhausted: "流局", how: "怎么胡的", self: "自摸",
      dealt_in: "{s} 放炮", hand: "胡家的牌（最后点的一张是和牌）", back: "退一张", clear: "清空",
      flip: "翻出的精", an_flip: "暗精（翻精那墩的另一张）", xia_flip: "下精", settle: "结算",
      confirm: "确认流局", confirm_only: "这个规则流局不计分：确认即可。", others: "其他家（只录结算要的）",
      first_flip: "先录翻出的精，再数各家的精。", zheng: "正精", fu: "副精", an: "暗精", xia: "下精",
      kong_exposed: "明杠", kong_concealed: "暗杠", winner_discards: "胡家打出（没被吃碰）的精",
      tiles_left: "选牌（剩余张数）", winning_tile: "和牌", editing: "正在录入",
      melds: "把最后点的几张作副露：", pung: "碰", chow: "吃", meld_from: "{t}自", remove: "拆回",
      kong_replacement: "杠上花", rob_kong: "抢杠", flags: "特殊", tian: "天胡", di: "地胡", last_tile: "海底",
      pao_long: "抛龙", also: "{s} 也胡", not_also: "{s} 不胡", winner_of: "{s} 的牌", robbed_from: "被抢的碰来自",
      seat_melds: "副露", meld_kong: "杠{t}", meld_pung: "碰{t}", meld_chow: "吃{t}", claimed_from: "{t}打的",
      chow_took: "吃的是", claim: "提交", claim_draw: "申报流局", cancel: "取消",
      correct_title: "更正录入的结果", correct_go: "更正并重新结算", correct_reason: "更正原因（可不填）",
    },
    en: {
      title: "Finish this hand", won: "{s} won", hu: "Win", exhausted: "Draw (流局)", how: "How it was won",
      self: "Self-drawn", dealt_in: "{s} dealt in", hand: "The winner's tiles (the last one tapped is the winning tile)",
      back: "Back", clear: "Clear", flip: "Flipped 精", an_flip: "暗精 (the other tile of the flipped stack)",
      xia_flip: "下精", settle: "Settle", confirm: "Confirm the draw",
      confirm_only: "This ruleset settles nothing on a draw: just confirm.", others: "The other seats (only what settles)",
      first_flip: "Enter the flipped 精 first, then count each seat's.", zheng: "正精", fu: "副精", an: "暗精",
      xia: "下精", kong_exposed: "Exposed kong", kong_concealed: "Concealed kong",
      winner_discards: "精 the winner discarded (unclaimed)", tiles_left: "Tiles (left)", winning_tile: "winning tile",
      editing: "entering",
      melds: "Make the last tiles tapped a meld:", pung: "Pung", chow: "Chow", meld_from: "{t} from", remove: "Undo meld",
      kong_replacement: "After a kong (杠上花)", rob_kong: "Robbing the kong (抢杠)", flags: "Flags", tian: "Heavenly (天胡)",
      di: "Earthly (地胡)", last_tile: "Last tile (海底)", pao_long: "抛龙", also: "{s} won too", not_also: "{s} did not win",
      winner_of: "{s}'s tiles", robbed_from: "The robbed pung came from", seat_melds: "Melds", meld_kong: "Kong {t}",
      meld_pung: "Pung {t}", meld_chow: "Chow {t}", claimed_from: "{t} discarded it", chow_took: "Claimed",
      claim: "Send", claim_draw: "Claim a draw", cancel: "Cancel",
      correct_title: "Correct the entered result", correct_go: "Correct and settle again",
      correct_reason: "Why (optional)",
    },
  };
  const T = MJ.words(TXT);
  const KINDS = [..."mps"].flatMap((s) => [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => `${n}${s}`)).concat([..."ESWNCFP"]);
  const FLIPS = [["indicator", "flip", "jing"], ["an_indicator", "an_flip", "an_jing"], ["xia_indicator", "xia_flip", "xia_jing"]];
  const HONOR_CYCLES = ["ESWN", "CFP"];
  const SEATS = [0, 1, 2, 3];
  const shangjia = (s) => (s + 3) % 4;

  /** The 副精 of a 正精 (the next kind: 9 → 1, 北 → 东, 白 → 中). */
  function successor(kind) {
    const p = MJ.parseTile(kind);
    if (!p) return null;
    if (p.suit !== "z") return `${(p.n % 9) + 1}${p.suit}`;
    const cycle = HONOR_CYCLES.find((c) => c.includes(kind));
    return cycle[(cycle.indexOf(kind) + 1) % cycle.length];
  }

  /** The runs a chow claiming ``kind`` may be (none for an honour). */
  function runsWith(kind) {
    const p = MJ.parseTile(kind);
    if (!p || p.suit === "z") return [];
    return [-2, -1, 0].map((d) => [0, 1, 2].map((i) => p.n + d + i))
      .filter((ns) => ns[0] >= 1 && ns[2] <= 9).map((ns) => ns.map((n) => `${n}${p.suit}`));
  }

  const winnerOf = (seat) => ({ seat, tiles: [], melds: [], flags: [] });

  /** ``own``: the seat whose claim this enters (a player's phone), or undefined (staff). */
  function mount(box, { act, seat: own }) {
    const claim = Number.isInteger(own);
    const S = { view: null, handId: null };
    const reset = () => Object.assign(S, { result: null, wins: [], cur: 0, how: "self", special: null, robFrom: null,
      lockHow: false, tiles: [], flips: {}, target: "hand", counts: {}, seatMelds: {}, opened: {}, picked: false,
      correcting: false, reason: "" });
    reset();
    const winner = () => S.wins[S.cur] || null;
    const kindOf = () => (S.result === "exhausted" ? "exhausted" : S.how === "self" ? "self_draw" : "discard");
    const needsOf = (kind) => {
      const all = S.view && S.view.needs && typeof S.view.needs === "object" ? S.view.needs : {};
      const n = all[kind] && typeof all[kind] === "object" ? all[kind] : {};
      const o = n.others && typeof n.others === "object" ? n.others : {};
      const list = (x) => (Array.isArray(x) ? x.filter((v) => typeof v === "string") : []);
      return { jing: list(o.jing), kongs: o.kongs === true, claims: o.jing_claims === true, winnerDiscards: n.winner_jing_discards === true,
        confirmOnly: n.confirm_only === true, flags: list(n.flags), sources: list(n.sources), several: n.several_winners === true };
    };
    const needs = () => needsOf(kindOf());
    const dealer = () => {
      const p = S.view && S.view.public && typeof S.view.public === "object" ? S.view.public : {};
      return Number.isInteger(p.dealer) ? p.dealer : null;
    };
    /** The flipped tiles entered here, where no reader saw them (the view says which); a
        流局 that settles nothing needs none, nor a claim (the dealer's phone enters them). */
    const unseenFlips = () => {
      const v = S.view || {};
      const p = v.public && typeof v.public === "object" ? v.public : {};
      const seen = p.jing && typeof p.jing === "object" && Object.keys(p.jing).length > 0;
      if (claim || (S.result === "exhausted" && needs().confirmOnly)) return [];
      // (a 精 entered with the result is shown on the table, and corrected with it)
      const again = S.correcting && !!S.flips.indicator;
      return FLIPS.filter(([, , source]) => (source === "jing" ? v.flips === true && (!seen || again) : v[source] === true));
    };
    const flipOf = (source) => {
      if (source === "jing") {
        const p = S.view && S.view.public && typeof S.view.public === "object" ? S.view.public : {};
        const z = p.jing && typeof p.jing === "object" ? MJ.str(p.jing.zheng, 2) : "";
        return S.flips.indicator || z || null;
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
    const winners = () => (S.result === "win" ? S.wins.map((w) => w.seat) : []);
    const others = () => (claim ? [] : SEATS.filter((s) => !winners().includes(s)));
    const melds = (seat) => S.seatMelds[seat] || [];
    const winTile = () => { const w = S.wins[0]; return w && w.tiles.length ? w.tiles[w.tiles.length - 1] : ""; };
    const robbing = () => S.special === "rob_kong" && Number.isInteger(S.how);

    /** The tiles left of each kind: four, less what the entry holds. */
    function left() {
      const used = Object.fromEntries(KINDS.map((k) => [k, 0]));
      const add = (k, n = 1) => { if (Object.hasOwn(used, k)) used[k] += n; };
      for (const w of S.wins) { w.tiles.forEach((k) => add(k)); w.melds.forEach((m) => m.tiles.forEach((k) => add(k))); }
      Object.values(S.flips).forEach((k) => add(k));
      for (const s of SEATS) melds(s).forEach((m) => m.tiles.forEach((k) => add(k)));
      for (const [k] of counted()) for (const s of [...SEATS, ...SEATS.map((x) => `w${x}`)]) add(k, count(s, k));
      return Object.fromEntries(KINDS.map((k) => [k, 4 - used[k]]));
    }

    function tap(kind) {
      if (S.target === "hand") { const w = winner(); if (w && w.tiles.length < 18) w.tiles.push(kind); }
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

    function pick(id, on, text, go) {
      const b = el("button", { class: `btn${on ? " primary" : ""}`, type: "button", id, "aria-pressed": on ? "true" : "false" }, text);
      b.addEventListener("click", go);
      return b;
    }

    /** The melds of a seat that did not win that its settlement reads (needs): a kong of a
        counted kind (杠精), and where a claimed 精 is priced, the pung or chow that claimed
        one (from whom). Behind one tap (副露), as they are rare. */
    function seatMeldRows(seat) {
      const n = needs();
      const kinds = counted().map(([k]) => k);
      if (!kinds.length) return [];
      const list = melds(seat);
      const id = `fe-s${seat}`;
      const rows = list.map((m, i) => {
        const froms = m.type === "kong_concealed" || m.type === "chow" ? [] : SEATS.filter((s) => s !== seat);
        return el("div", { class: "row fe-meld", "data-seat-meld": `${seat}:${i}` },
          el("span", null, T(m.type)), m.tiles.map((k) => MJ.tile(k, "tile-s")),
          m.type.startsWith("kong") ? pick(`${id}-m${i}-type`, false, T(m.type === "kong_concealed" ? "kong_exposed" : "kong_concealed"), () => {
            m.type = m.type === "kong_concealed" ? "kong_exposed" : "kong_concealed";
            m.from = null;
            render();
          }) : null,
          m.type === "chow" ? runsWith(m.claimed).map((run, r) => pick(`${id}-m${i}-run${r}`, run.join("") === m.tiles.join(""),
            run.map(MJ.tileName).join(""), () => { m.tiles = run; render(); })) : null,
          froms.map((s) => pick(`${id}-m${i}-from-${s}`, m.from === s, T("claimed_from", { t: MJ.seatName(s, null) }), () => { m.from = s; render(); })),
          pick(`${id}-m${i}-remove`, false, T("remove"), () => { list.splice(i, 1); render(); }));
      });
      if (!S.opened[seat]) {
        return [...rows, pick(`${id}-melds`, false, `＋${T("seat_melds")}`, () => { S.opened[seat] = true; render(); })];
      }
      const add = (m) => { S.seatMelds[seat] = [...list, m]; render(); };
      const offers = kinds.flatMap((k) => [
        pick(`${id}-kong-${k}`, false, T("meld_kong", { t: MJ.tileName(k) }), () => add({ type: "kong_concealed", tiles: [k, k, k, k], from: null })),
        n.claims ? pick(`${id}-pung-${k}`, false, T("meld_pung", { t: MJ.tileName(k) }), () => add({ type: "pung", tiles: [k, k, k], from: null })) : null,
        n.claims && runsWith(k).length ? pick(`${id}-chow-${k}`, false, T("meld_chow", { t: MJ.tileName(k) }),
          () => add({ type: "chow", tiles: runsWith(k)[0], from: shangjia(seat), claimed: k })) : null,
      ]);
      return [...rows, el("div", { class: "row fe-seat-melds" }, el("span", { class: "muted" }, T("seat_melds")), offers)];
    }

    function seatSteppers(seat) {
      const n = needs();
      const rows = counted().map(([k, words]) => stepper(`fe-s${seat}-${k}`, words, count(seat, k), (d) => bump(seat, k, d), k));
      if (n.kongs) for (const t of ["kong_exposed", "kong_concealed"]) rows.push(stepper(`fe-s${seat}-${t}`, T(t), count(seat, t), (d) => bump(seat, t, d)));
      return [...rows, ...seatMeldRows(seat)];
    }

    const meldOut = (m) => ({ type: m.type, tiles: m.tiles.join(""), ...(m.from === null ? {} : { from: m.from }), ...(m.claimed ? { claimed: m.claimed } : {}) });

    function body() {
      const n = needs();
      const kinds = counted();
      const out = { reason: S.correcting ? S.reason : "" };
      for (const [field] of unseenFlips()) if (S.flips[field]) out[field] = S.flips[field];
      out.seats = others().map((s) => {
        const seat = { seat: s, partial: true, hand: kinds.map(([k]) => k.repeat(count(s, k))).join("") };
        const kept = melds(s).map(meldOut);
        if (robbing() && S.how === s && winTile()) kept.push({ type: "pung", tiles: winTile().repeat(3), ...(S.robFrom === null ? {} : { from: S.robFrom }) });
        if (kept.length) seat.melds = kept;
        if (n.kongs) seat.kongs = ["kong_exposed", "kong_concealed"].flatMap((t) => Array(count(s, t)).fill(t));
        return seat;
      });
      if (S.result === "exhausted") return { ...out, result: "exhausted" };
      const from = S.special === "kong_replacement" && S.how === "self" ? "kong_replacement" : robbing() ? `rob_kong:${S.how}` : S.how;
      const tile = winTile();
      const wins = S.wins.map((w, i) => {
        const one = { seat: w.seat, hand: w.tiles.join(""), tile: i === 0 ? tile : w.tiles[w.tiles.length - 1] || "", from, melds: w.melds.map(meldOut) };
        const flags = w.flags.filter((f) => n.flags.includes(f));
        if (flags.length) one.flags = flags;
        if (n.winnerDiscards && !claim) one.discards = kinds.map(([k]) => k.repeat(count(`w${w.seat}`, k))).join("");
        if (claim && i === 0 && robbing()) one.robbed_from = S.robFrom; // (the engine adds the robbed pung)
        return one;
      });
      return { ...out, winners: wins };
    }

    /** The meld the last tiles tapped make (碰, 吃 from the 上家, 明杠, 暗杠), or null. */
    function meldOf(type) {
      const w = winner();
      if (!w) return null;
      const n = type.startsWith("kong") ? 4 : 3;
      const last = w.tiles.slice(-n);
      if (last.length < n || w.melds.length >= 4) return null;
      if (type === "chow") {
        const p = last.map(MJ.parseTile).sort((a, b) => a.n - b.n);
        const run = p.every((x) => x && x.suit !== "z" && x.suit === p[0].suit) && p[1].n === p[0].n + 1 && p[2].n === p[0].n + 2;
        return run ? { type, tiles: last, from: shangjia(w.seat), claimed: null } : null;
      }
      if (!last.every((k) => k === last[0])) return null;
      return { type, tiles: last, from: type === "kong_concealed" ? null : shangjia(w.seat) };
    }

    function meldRows() {
      const w = winner();
      const jing = counted().map(([k]) => k);
      const make = el("div", { class: "row fe-meld-make" }, el("span", { class: "muted" }, T("melds")),
        ["pung", "chow", "kong_exposed", "kong_concealed"].map((type) => {
          const b = pick(`fe-meld-${type}`, false, T(type), () => {
            const m = meldOf(type);
            if (m) { w.tiles.splice(-m.tiles.length); w.melds.push(m); render(); }
          });
          b.disabled = !meldOf(type);
          return b;
        }));
      const made = w.melds.map((m, i) => el("div", { class: "row fe-meld", "data-meld": i },
        el("span", null, T(m.type)), m.tiles.map((k) => MJ.tile(k, "tile-s")),
        m.type === "pung" || m.type === "kong_exposed"
          ? SEATS.filter((s) => s !== w.seat).map((s) => pick(`fe-meld-${i}-from-${s}`, m.from === s,
            T("meld_from", { t: MJ.seatName(s, null) }), () => { m.from = s; render(); }))
          : null,
        // a chow that took a 精: which (the discarder's 精 is counted where it is priced)
        m.type === "chow" && m.tiles.some((k) => jing.includes(k))
          ? [el("span", { class: "muted" }, T("chow_took")), ...m.tiles.filter((k) => jing.includes(k)).map((k) =>
            pick(`fe-meld-${i}-took-${k}`, m.claimed === k, MJ.tileName(k), () => { m.claimed = m.claimed === k ? null : k; render(); }))]
          : null,
        pick(`fe-meld-${i}-remove`, false, T("remove"), () => { w.melds.splice(i, 1); w.tiles.push(...m.tiles); render(); })));
      return [...made, make];
    }

    /** 自摸 or who dealt in; 杠上花 / 抢杠 where the ruleset reads them; the flags it reads;
        more winners of the discard where it pays them. */
    function howRows() {
      const rows = [];
      const w0 = S.wins[0];
      const how = el("div", { class: "row fe-how" }, el("span", null, T("how")));
      if (!S.lockHow) {
        how.append(pick("fe-how-self", S.how === "self", T("self"), () => { S.how = "self"; S.special = null; render(); }),
          ...SEATS.filter((s) => !winners().includes(s)).map((s) =>
            pick(`fe-how-${s}`, S.how === s, T("dealt_in", { s: MJ.seatName(s, null) }), () => {
              S.how = s; S.special = S.special === "rob_kong" ? S.special : null; S.robFrom = null;
              S.wins = S.wins.filter((w, i) => i === 0 || w.seat !== s); S.cur = Math.min(S.cur, S.wins.length - 1);
              render();
            })));
      } else how.append(pick(`fe-how-${S.how}`, true, T("dealt_in", { s: MJ.seatName(S.how, null) }), () => {}));
      const special = S.how === "self" ? "kong_replacement" : "rob_kong";
      // (a claim's 抢杠 sends whose kong it robbed and whom that pung came from, not the pung)
      if (!S.lockHow && S.how !== null && needsOf(S.how === "self" ? "self_draw" : "discard").sources.includes(special)) {
        how.append(pick(`fe-${special}`, S.special === special, T(special), () => { S.special = S.special === special ? null : special; render(); }));
      }
      rows.push(how);
      if (robbing()) {
        rows.push(el("div", { class: "row fe-robbed" }, el("span", null, T("robbed_from")),
          SEATS.filter((s) => s !== S.how).map((s) => pick(`fe-rob-from-${s}`, S.robFrom === s, MJ.seatName(s, null), () => { S.robFrom = s; render(); }))));
      }
      const n = needs();
      const w = winner();
      const flags = n.flags.filter((f) => (f === "tian" ? w.seat === dealer() : f === "di" ? w.seat !== dealer() : true));
      if (flags.length) {
        rows.push(el("div", { class: "row fe-flags" }, el("span", null, T("flags")), flags.map((f) =>
          pick(`fe-flag-${f}`, w.flags.includes(f), T(f), () => {
            w.flags = w.flags.includes(f) ? w.flags.filter((x) => x !== f) : [...w.flags.filter((x) => !(f === "tian" && x === "di") && !(f === "di" && x === "tian")), f];
            render();
          }))));
      }
      if (!claim && n.several && Number.isInteger(S.how)) {
        rows.push(el("div", { class: "row fe-also" }, SEATS.filter((s) => s !== S.how && s !== w0.seat).map((s) => {
          const i = S.wins.findIndex((x) => x.seat === s);
          return pick(`fe-also-${s}`, i > 0, T(i > 0 ? "not_also" : "also", { s: MJ.seatName(s, null) }), () => {
            if (i > 0) { S.wins.splice(i, 1); S.cur = 0; } else { S.wins.push(winnerOf(s)); S.cur = S.wins.length - 1; }
            S.target = "hand";
            render();
          });
        })));
      }
      return rows;
    }

    function handField(w, i) {
      const on = S.target === "hand" && i === S.cur;
      const words = S.wins.length > 1 ? T("winner_of", { s: MJ.seatName(w.seat, null) }) : T("hand");
      const hand = el("div", { class: `fe-field fe-hand${on ? " editing" : ""}`, id: `fe-hand-${w.seat}`, "data-count": w.tiles.length },
        el("span", null, `${words} · ${w.tiles.length + 3 * w.melds.length}`),
        el("div", { class: "tile-row" }, w.melds.flatMap((m) => m.tiles.map((k) => MJ.tile(k, "tile-s fe-melded"))), w.tiles.map((k, j) => {
          const last = j === w.tiles.length - 1;
          const t = el("button", { class: `fe-tile${last ? " winning" : ""}`, type: "button", title: last ? T("winning_tile") : MJ.tileName(k) }, MJ.tile(k, "tile-s"));
          t.addEventListener("click", () => { w.tiles.push(w.tiles.splice(j, 1)[0]); S.cur = i; S.target = "hand"; render(); });
          return t;
        })));
      hand.addEventListener("click", (e) => { if (!e.target.closest(".fe-tile")) { S.cur = i; S.target = "hand"; S.picked = true; render(); } });
      return hand;
    }

    function resultRow() {
      if (claim) {
        return el("div", { class: "row fe-results" },
          pick(`fe-won-${own}`, S.result === "win", T("hu"), () => { Object.assign(S, { result: "win", wins: [winnerOf(own)], cur: 0, how: null, lockHow: false }); render(); }),
          pick("fe-exhausted", S.result === "exhausted", T("exhausted"), () => { S.result = "exhausted"; render(); }));
      }
      return el("div", { class: "row fe-results" },
        SEATS.map((s) => pick(`fe-won-${s}`, S.result === "win" && S.wins[0].seat === s, T("won", { s: MJ.seatName(s, null) }), () => {
          const kept = S.result === "win" && S.wins[0] ? S.wins[0] : winnerOf(s);
          Object.assign(S, { result: "win", wins: [{ ...kept, seat: s }], cur: 0, how: S.how === s ? "self" : S.how });
          render();
        })),
        pick("fe-exhausted", S.result === "exhausted", T("exhausted"), () => { S.result = "exhausted"; render(); }));
    }

    /** What must still be chosen before sending: how a claim was won, a claimed meld's source. */
    function ready() {
      if (S.result !== "win") return true;
      if (S.how === null) return false;
      if (robbing() && S.robFrom === null) return false;
      return others().every((s) => melds(s).every((m) => m.from !== null || m.type === "kong_concealed"));
    }

    function render() {
      const v = S.view;
      if (!v || !v.hand_id || !(v.in_progress || S.correcting)) { box.replaceChildren(el("div", { class: "error", id: "fe-error", role: "alert" })); return; }
      const n = needs();
      const parts = claim ? [] : [el("h3", null, T(S.correcting ? "correct_title" : "title"))];
      if (!S.lockHow) parts.push(resultRow());
      if (S.result === "win") parts.push(...howRows());
      if (S.result && (S.result !== "win" || S.how !== null)) {
        const flips = unseenFlips();
        if (S.target !== "hand" && !flips.some(([f]) => f === S.target)) S.target = "hand";
        // the flipped tiles first, while nothing else is entered: one tap each
        const unfilled = flips.find(([f]) => !S.flips[f]);
        const empty = S.wins.every((w) => !w.tiles.length);
        if (S.target === "hand" && unfilled && empty && !S.picked) S.target = unfilled[0];
        for (const [field, words] of flips) {
          const chosen = S.flips[field];
          const f = el("button", { class: `fe-field${S.target === field ? " editing" : ""}`, type: "button", id: `fe-${field}` },
            el("span", null, T(words)), chosen ? MJ.tile(chosen, "tile-s") : el("span", { class: "muted" }, "?"));
          f.addEventListener("click", () => { S.target = field; render(); });
          parts.push(f);
        }
        if (S.result === "win") {
          S.wins.forEach((w, i) => parts.push(handField(w, i)));
          parts.push(...meldRows());
        }
        if (S.result === "win" || flips.length) parts.push(picker());
        if (S.result === "exhausted" && (n.confirmOnly || claim)) {
          if (!claim) parts.push(el("p", { class: "muted", id: "fe-confirm-only" }, T("confirm_only")));
        } else if (!claim) {
          if (n.jing.length && !counted().length) parts.push(el("p", { class: "muted" }, T("first_flip")));
          if (S.result === "win" && n.winnerDiscards && counted().length) {
            for (const w of S.wins) {
              parts.push(el("div", { class: "fe-seat", "data-fe-seat": `w${w.seat}` },
                el("b", null, S.wins.length > 1 ? `${MJ.seatName(w.seat, null)} · ${T("winner_discards")}` : T("winner_discards")),
                counted().map(([k, words]) => stepper(`fe-sw${w.seat}-${k}`, words, count(`w${w.seat}`, k), (d) => bump(`w${w.seat}`, k, d), k))));
            }
          }
          const rows = [];
          for (const s of others()) {
            const steps = seatSteppers(s);
            if (steps.length) rows.push(el("div", { class: "fe-seat", "data-fe-seat": s }, el("b", null, MJ.seatName(s, null)), steps));
          }
          if (rows.length) parts.push(el("div", { class: "fe-others" }, el("h4", null, T("others")), rows));
        }
        const words = claim ? (S.result === "exhausted" ? "claim_draw" : "claim")
          : S.correcting ? "correct_go" : S.result === "exhausted" ? "confirm" : "settle";
        if (S.correcting) {
          const why = el("input", { id: "fe-reason", maxlength: 500, placeholder: T("correct_reason"), value: S.reason });
          why.addEventListener("input", () => { S.reason = why.value; });
          parts.push(why);
        }
        const go = el("button", { class: "btn primary", type: "button", id: "fe-go", disabled: !ready() }, T(words));
        go.addEventListener("click", async () => { await act(body()); });
        const row = el("div", { class: "row" }, go);
        if (claim) row.append(pick("fe-cancel", false, T("cancel"), () => { reset(); render(); }));
        parts.push(row);
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
      const w = winner();
      const back = el("button", { class: "btn", type: "button", id: "fe-back" }, T("back"));
      back.addEventListener("click", () => { if (S.target !== "hand") delete S.flips[S.target]; else if (w) w.tiles.pop(); render(); });
      const clear = el("button", { class: "btn", type: "button", id: "fe-clear" }, T("clear"));
      clear.addEventListener("click", () => { if (S.target !== "hand") delete S.flips[S.target]; else if (w) w.tiles = []; render(); });
      return el("div", { class: "fe-picker-box" }, el("div", { class: "row" }, el("span", { class: "muted" }, T("tiles_left")), back, clear), grid);
    }

    /** What of a look the entry shows: a look that changes none of it leaves the entry be
        (rebuilt under a finger, a tap pressed on one button and released on its successor
        would be lost; the players' page looks every 1.5 s). */
    const shown = (v) => {
      const p = v && v.public && typeof v.public === "object" ? v.public : {};
      const names = SEATS.map((s) => MJ.seatName(s, null));
      return JSON.stringify([v && v.hand_id, v && v.in_progress, v && v.needs, v && v.flips, v && v.an_jing, v && v.xia_jing, p.jing, p.dealer, names]);
    };
    document.addEventListener("mj:lang", () => render());

    /** A new look at the hand: a new hand (or a settled one) starts the entry afresh. */
    function update(view) {
      const id = view && view.hand_id ? view.hand_id : null;
      const same = S.view !== null && shown(view) === shown(S.view) && box.firstChild;
      const open = view && (view.in_progress || (S.correcting && view.entered));
      if (id !== S.handId || !open) reset();
      S.handId = id;
      S.view = view;
      if (!same) render();
    }
    /** A claim's entry opened on another's discard (a second winner of it). */
    function joinWin(from) {
      Object.assign(S, { result: "win", wins: [winnerOf(own)], cur: 0, how: from, special: null, lockHow: true });
      render();
    }
    /** The settled result entered by hand (the view's `entered`, in the finish's terms),
        to correct: the entry as it was filled, the winning tile last. */
    function correct(entered) {
      reset();
      const e = entered && typeof entered === "object" ? entered : {};
      const kinds = (text) => MJ.parseTiles(MJ.str(text, 128)).kinds || [];
      const meldIn = (m) => ({ type: MJ.str(m.type, 16), tiles: kinds(m.tiles), from: Number.isInteger(m.from) ? m.from : null,
        ...(typeof m.claimed === "string" ? { claimed: MJ.str(m.claimed, 2) } : {}) });
      const list = (x, n) => (Array.isArray(x) ? x.filter((v) => v && typeof v === "object").slice(0, n) : []);
      const wins = list(e.winners, 3).filter((w) => SEATS.includes(w.seat));
      S.result = wins.length ? "win" : "exhausted";
      S.wins = wins.map((w) => {
        const tiles = kinds(w.hand);
        const at = tiles.lastIndexOf(MJ.str(w.tile, 2));
        if (at >= 0) tiles.push(tiles.splice(at, 1)[0]); // (the winning tile last)
        return { seat: w.seat, tiles, melds: list(w.melds, 4).map(meldIn), flags: Array.isArray(w.flags) ? w.flags.filter((f) => typeof f === "string") : [] };
      });
      const from = wins.length ? wins[0].from : "self";
      const [source, robbed] = String(from).split(":");
      S.how = Number.isInteger(from) ? from : source === "rob_kong" && SEATS.includes(Number(robbed)) ? Number(robbed) : "self";
      S.special = ["kong_replacement", "rob_kong"].includes(source) ? source : null;
      for (const field of ["indicator", "an_indicator", "xia_indicator"]) if (typeof e[field] === "string") S.flips[field] = MJ.str(e[field], 2);
      for (const w of wins) for (const k of kinds(w.discards)) S.counts[`w${w.seat}:${k}`] = count(`w${w.seat}`, k) + 1;
      for (const seat of list(e.seats, 4).filter((x) => SEATS.includes(x.seat))) {
        for (const k of kinds(seat.hand)) S.counts[`${seat.seat}:${k}`] = count(seat.seat, k) + 1;
        for (const t of Array.isArray(seat.kongs) ? seat.kongs : []) {
          const key = t === "kong_concealed" ? "kong_concealed" : "kong_exposed";
          S.counts[`${seat.seat}:${key}`] = count(seat.seat, key) + 1;
        }
        const ms = list(seat.melds, 4).map(meldIn);
        // the pung a 抢杠 robbed goes with the win (the body adds it back)
        const robbedPung = S.special === "rob_kong" && seat.seat === S.how
          ? ms.findIndex((m) => m.type === "pung" && m.tiles[0] === MJ.str(wins[0].tile, 2)) : -1;
        if (robbedPung >= 0) S.robFrom = ms.splice(robbedPung, 1)[0].from;
        if (ms.length) { S.seatMelds[seat.seat] = ms; S.opened[seat.seat] = true; }
      }
      S.picked = true;
      S.correcting = true;
      render();
    }
    return { update, reset: () => { reset(); render(); }, joinWin, correct };
  }

  return { mount, successor };
})();
