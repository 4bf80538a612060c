/* Shared by the pages: language, tile faces (SVG drawn here), dice, seats, the live stream.
   Written by hand, no framework: it runs in the Pi's Chromium kiosk and on cheap tablets. */
"use strict";

const MJ = (() => {
  const params = new URLSearchParams(location.search);
  const LANG_KEY = "mjtable.lang";
  let lang = params.get("lang") || localStorage.getItem(LANG_KEY) || "zh";
  if (lang !== "en") lang = "zh";

  const TEXT = {
    zh: {
      zheng: "正精", fu: "副精", caishen: "财神", indicator: "翻牌", jing: "精",
      dice: "骰子", dealer: "庄家", turn: "轮到", wall: "牌墙剩余", tiles: "张",
      hand_no: "第{n}局", score: "总分", connected: "已连接", reconnecting: "连接中断，正在重连…",
      connecting: "连接中…", refused: "未连接：链接里的消息服务器不是本机的，也不是本店设定的",
      offline: "牌桌离线", waiting: "等待开局", settlement: "结算",
      net: "输赢", reason: "项目", payer: "付", payee: "收", amount: "分", draw: "流局",
      void: "本局作废", next_dealer: "下局庄家",
      entered_staff: "工作人员录入", entered_player: "玩家录入", entered_owner: "老板录入", no_jing: "未翻精", melds: "副露",
      discards: "弃牌", hand: "手牌", self_draw: "自摸", win: "胡", from: "放炮",
      phase_shuffle: "洗牌", phase_break_dice: "掷骰开牌", phase_second_dice: "第二次掷骰",
      phase_deal: "发牌", phase_flip: "翻精", phase_turn: "出牌", phase_draw: "摸牌",
      phase_replacement: "补牌", phase_claim: "等待吃碰杠胡", phase_rob: "抢杠",
      phase_xia_dice: "下精", phase_settle: "结算", phase_done: "本局结束",
      dice_commitment: "骰子承诺", purpose_break: "开牌", purpose_break_second: "开牌（二）", purpose_jing: "翻精",
      purpose_xia_jing: "下精",
      dealer_view: "庄家提示", instruction: "现在", alerts: "警报", no_alerts: "没有警报",
      dismiss: "已处理", what_to_do: "处理办法", seat_of: "座位", recent: "之前",
      folded_alerts: "这期间的{n}条牌桌提醒都由此而来，已并入本通知",
      lang: "English",
      cashout: "本场结算", cashout_open: "本场累计（尚未结束）", transfers: "谁付给谁",
      pays: "付给", player: "玩家", hands_n: "{n}局", money: "金额", fee: "台费",
      fee_hand: "每局", fee_hour: "每小时", fee_session: "每场", no_transfer: "无需转账",
      points_unit: "分", closed_by: "结束人", print: "打印", no_cashout: "还没有结算",
      links: "个人链接（扫码看自己的战绩）", make_link: "生成二维码", recent_closed: "本台最近结束的场次",
      name: "用户名", password: "密码", logout: "退出", wrong: "用户名或密码错误",
      join_title: "扫码入座", join_code: "入桌码",
      winds: ["东", "南", "西", "北"],
    },
    en: {
      zheng: "Main jing", fu: "Second jing", caishen: "Caishen", indicator: "Indicator",
      jing: "Jing", dice: "Dice", dealer: "Dealer", turn: "Turn", wall: "Wall",
      tiles: "tiles", hand_no: "Hand {n}", score: "Score", connected: "Connected",
      reconnecting: "Connection lost, reconnecting…", connecting: "Connecting…",
      refused: "Not connected: the link's broker is neither this host nor the parlour's",
      offline: "Table offline", waiting: "Waiting for the hand", settlement: "Settlement",
      net: "Net", reason: "Reason", payer: "Pays", payee: "Gets", amount: "Pts",
      draw: "Draw (流局)", void: "Hand void", next_dealer: "Next dealer",
      entered_staff: "entered by staff", entered_player: "entered by the players", entered_owner: "entered by the owner",
      no_jing: "Jing not flipped yet", melds: "Melds", discards: "Discards", hand: "Hand",
      self_draw: "self-draw", win: "wins", from: "dealt in",
      phase_shuffle: "Shuffle", phase_break_dice: "Roll to break", phase_second_dice: "Second roll",
      phase_deal: "Deal", phase_flip: "Flip the jing", phase_turn: "Discard",
      phase_draw: "Draw", phase_replacement: "Replacement", phase_claim: "Claims",
      phase_rob: "Robbing the kong", phase_xia_dice: "下精 roll", phase_settle: "Settling",
      phase_done: "Hand over",
      dice_commitment: "Dice commitment", purpose_break: "break", purpose_break_second: "break (2nd)", purpose_jing: "jing",
      purpose_xia_jing: "下精",
      dealer_view: "Dealer", instruction: "Now", alerts: "Alerts", no_alerts: "No alerts",
      dismiss: "Done", what_to_do: "What to do", seat_of: "Seat", recent: "earlier",
      folded_alerts: "{n} table alerts meanwhile come from this and are folded into this notice",
      lang: "中文",
      cashout: "Cash-out", cashout_open: "Session standing (still open)",
      transfers: "Who pays whom", pays: "pays", player: "Player", hands_n: "{n} hands",
      money: "Money", fee: "Table fee", fee_hand: "per hand", fee_hour: "per hour",
      fee_session: "per session", no_transfer: "Nobody owes anything", points_unit: "pts",
      closed_by: "Closed by", print: "Print", no_cashout: "No cash-out yet",
      links: "Personal links (scan for your own record)", make_link: "Make QR code", recent_closed: "This table's last closed sessions",
      name: "Name", password: "Password", logout: "Log out", wrong: "Wrong name or password",
      join_title: "Scan to sit down", join_code: "Join code",
      winds: ["East", "South", "West", "North"],
    },
  };

  /** `key` in the page's language: in `own` (a page's words), then in TEXT, Chinese when
      the language has none; "{name}" takes vars.name. An unknown key is itself (a table's
      text may be any string: "constructor" is no key). */
  function lookup(own, key, vars) {
    const at = (table) => (table && Object.hasOwn(table, key) ? table[key] : undefined);
    let s = at(own[lang]) ?? at(own.zh) ?? at(TEXT[lang]) ?? at(TEXT.zh) ?? String(key);
    if (vars) for (const [k, v] of Object.entries(vars)) s = s.replace(`{${k}}`, () => String(v));
    return s;
  }

  const t = (key, vars) => lookup({}, key, vars);
  /** A payload's own words ({zh, en}, e.g. an event's or an alert's text) in the page's
      language, Chinese where English has none. */
  const inLang = (texts) => (texts && typeof texts === "object" ? texts[lang] || texts.zh || "" : "");
  /** A date and time (ISO text) as the page's language writes it; not a date: "". */
  function when(iso) {
    const d = new Date(typeof iso === "string" ? iso.slice(0, 40) : NaN);
    return Number.isNaN(d.getTime()) ? "" : d.toLocaleString(lang === "zh" ? "zh-CN" : "en-GB");
  }
  /** A page's own words ({zh: {...}, en: {...}}) as its lookup: T(key, vars). */
  const words = (own) => (key, vars) => lookup(own, key, vars);

  function applyI18n(root = document) {
    document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
    root.querySelectorAll("[data-i18n]").forEach((el) => { el.textContent = t(el.dataset.i18n); });
  }

  function setLang(next) {
    lang = next === "en" ? "en" : "zh";
    localStorage.setItem(LANG_KEY, lang);
    const url = new URL(location.href);
    if (url.searchParams.has("lang")) { url.searchParams.set("lang", lang); history.replaceState(null, "", url); }
    applyI18n();
    document.dispatchEvent(new CustomEvent("mj:lang"));
  }

  function langToggle(button) {
    const label = () => { button.textContent = t("lang"); };
    label();
    button.addEventListener("click", () => { setLang(lang === "zh" ? "en" : "zh"); label(); });
  }

  // ---- tiles --------------------------------------------------------------------------
  const NUM_ZH = "一二三四五六七八九";
  const HONORS = "ESWNCFP";
  const HONOR_ZH = ["东风", "南风", "西风", "北风", "红中", "发财", "白板"];
  const HONOR_FACE = ["東", "南", "西", "北", "中", "發", ""];
  const HONOR_EN = ["East", "South", "West", "North", "Red", "Green", "White"];
  const SUIT_ZH = { m: "万", p: "筒", s: "条" };
  const SUIT_EN = { m: "characters", p: "dots", s: "bamboo" };

  /** Tile notation ("123m 45p E C", also 1z-7z) as kind codes ("1m", "E"); `bad` names the
      first piece that is no tile (kinds: null). */
  function parseTiles(text) {
    const out = [];
    const s = String(text || "").replace(/[\s,]+/g, "");
    const re = /([1-9]+)([mpsz])|([ESWNCFP])/giy;
    while (re.lastIndex < s.length) {
      const at = re.lastIndex;
      const m = re.exec(s);
      if (!m) return { kinds: null, bad: s.slice(at, at + 4) };
      if (m[3]) out.push(m[3].toUpperCase());
      else if (m[2].toLowerCase() === "z") {
        for (const d of m[1]) { if (d > "7") return { kinds: null, bad: `${d}z` }; out.push(HONORS[Number(d) - 1]); }
      } else for (const d of m[1]) out.push(d + m[2].toLowerCase());
    }
    return { kinds: out, bad: null };
  }

  /** "5m" / "E" / a kind 0-33 -> {suit: "m"|"p"|"s"|"z", n: 1-9 or honor index 0-6}. */
  function parseTile(name) {
    if (typeof name === "number") {
      if (!Number.isInteger(name) || name < 0 || name > 33) return null;
      if (name < 27) return { suit: "mps"[Math.floor(name / 9)], n: (name % 9) + 1 };
      return { suit: "z", n: name - 27 };
    }
    const s = String(name || "");
    const m = /^([1-9])([mps])$/.exec(s);
    if (m) return { suit: m[2], n: Number(m[1]) };
    const h = HONORS.indexOf(s.toUpperCase());
    return h >= 0 ? { suit: "z", n: h } : null;
  }

  function tileName(name) {
    const p = parseTile(name);
    if (!p) return "?";
    if (p.suit === "z") return lang === "zh" ? HONOR_ZH[p.n] : HONOR_EN[p.n];
    return lang === "zh" ? NUM_ZH[p.n - 1] + SUIT_ZH[p.suit] : `${p.n} ${SUIT_EN[p.suit]}`;
  }

  const DOTS = {
    1: [[30, 40]], 2: [[30, 22], [30, 58]], 3: [[16, 18], [30, 40], [44, 62]],
    4: [[18, 22], [42, 22], [18, 58], [42, 58]],
    5: [[17, 20], [43, 20], [30, 40], [17, 60], [43, 60]],
    6: [[18, 16], [42, 16], [18, 40], [42, 40], [18, 64], [42, 64]],
    7: [[14, 13], [30, 21], [46, 29], [18, 50], [42, 50], [18, 68], [42, 68]],
    8: [[18, 13], [42, 13], [18, 31], [42, 31], [18, 49], [42, 49], [18, 67], [42, 67]],
    9: [[14, 18], [30, 18], [46, 18], [14, 40], [30, 40], [46, 40], [14, 62], [30, 62], [46, 62]],
  };
  const DOT_R = { 1: 16, 2: 11, 3: 9, 4: 9, 5: 8.5, 6: 8, 7: 7, 8: 7.5, 9: 7 };
  const STICKS = {
    2: [[30, 24], [30, 56]], 3: [[30, 24], [18, 56], [42, 56]],
    4: [[20, 24], [40, 24], [20, 56], [40, 56]],
    5: [[16, 24], [44, 24], [30, 40], [16, 56], [44, 56]],
    6: [[14, 24], [30, 24], [46, 24], [14, 56], [30, 56], [46, 56]],
    7: [[30, 14], [14, 40], [30, 40], [46, 40], [14, 66], [30, 66], [46, 66]],
    8: [[12, 24], [24, 24], [36, 24], [48, 24], [12, 56], [24, 56], [36, 56], [48, 56]],
    9: [[14, 16], [30, 16], [46, 16], [14, 40], [30, 40], [46, 40], [14, 64], [30, 64], [46, 64]],
  };
  const BLUE = "#1d3557", RED = "#c1121f", GREEN = "#2d6a4f";

  // ---- DOM: whatever comes from a topic or a request goes in as text, never as markup ----
  const SVG_NS = "http://www.w3.org/2000/svg";

  function build(node, attrs, children) {
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v !== null && v !== undefined && v !== false) node.setAttribute(k, String(v));
    }
    for (const c of children.flat(Infinity)) {
      if (c === null || c === undefined || c === false || c === "") continue;
      node.append(c instanceof Node ? c : String(c)); // a string is a text node
    }
    return node;
  }

  /** el("div", {class: "x"}, "text", child, [more]): an element; strings become text. */
  const el = (tag, attrs, ...children) => build(document.createElement(tag), attrs, children);
  const svg = (tag, attrs, ...children) => build(document.createElementNS(SVG_NS, tag), attrs, children);

  function face(p) {
    if (p.suit === "m") {
      return [
        svg("text", { x: 30, y: 34, "text-anchor": "middle", "font-size": 25, fill: BLUE }, NUM_ZH[p.n - 1]),
        svg("text", { x: 30, y: 69, "text-anchor": "middle", "font-size": 29, fill: RED }, "萬"),
      ];
    }
    if (p.suit === "p") {
      const r = DOT_R[p.n];
      return DOTS[p.n].map(([x, y], i) => {
        const c = p.n === 1 ? RED : (p.n === 5 && i === 2) || (p.n === 7 && i < 3) || (p.n === 9 && i >= 3 && i < 6) ? RED : i % 2 ? GREEN : BLUE;
        return [
          svg("circle", { cx: x, cy: y, r, fill: "none", stroke: c, "stroke-width": r > 10 ? 3 : 2 }),
          svg("circle", { cx: x, cy: y, r: r * 0.45, fill: c }),
        ];
      });
    }
    if (p.suit === "s") {
      if (p.n === 1) {
        return [
          svg("rect", { x: 24, y: 10, width: 12, height: 60, rx: 6, fill: GREEN }),
          svg("circle", { cx: 30, cy: 40, r: 7, fill: RED }),
          svg("text", { x: 30, y: 76, "text-anchor": "middle", "font-size": 9, fill: GREEN }, "一条"),
        ];
      }
      const h = p.n >= 7 ? 17 : 22, w = p.n === 8 ? 6 : 7;
      return STICKS[p.n].map(([x, y], i) => {
        const c = (p.n === 5 && i === 2) || (p.n === 7 && i === 0) || (p.n === 9 && i % 3 === 1) ? RED : GREEN;
        return [
          svg("rect", { x: x - w / 2, y: y - h / 2, width: w, height: h, rx: 3, fill: c }),
          svg("line", { x1: x - w / 2, x2: x + w / 2, y1: y, y2: y, stroke: "#fff", "stroke-width": 1 }),
        ];
      });
    }
    if (p.n === 6) { // 白板: an empty frame
      return [svg("rect", { x: 12, y: 14, width: 36, height: 52, rx: 3, fill: "none", stroke: "#3a6ea5", "stroke-width": 3 })];
    }
    const colour = p.n === 4 ? RED : p.n === 5 ? GREEN : BLUE;
    return [svg("text", { x: 30, y: 54, "text-anchor": "middle", "font-size": 38, fill: colour }, HONOR_FACE[p.n])];
  }

  const MARKS = ["zheng", "fu", "caishen", "indicator"];

  /** An SVG tile face (an element); `cls` sizes it (tile-xl, tile-l, tile-m, tile-s).
      Hidden, or not a tile: face down. */
  function tile(name, cls = "tile-m", opts = {}) {
    const p = opts.hidden ? null : parseTile(name);
    const body = p
      ? [svg("rect", { x: 1.5, y: 1.5, width: 57, height: 77, rx: 7, fill: "#fbf8ef", stroke: "#a89f88", "stroke-width": 2 }), face(p)]
      : [svg("rect", { x: 1.5, y: 1.5, width: 57, height: 77, rx: 7, fill: "#2f7d5b", stroke: "#1b4d37", "stroke-width": 2 })];
    const mark = MARKS.includes(opts.mark) ? ` tile-${opts.mark}` : "";
    return svg("svg", {
      class: `tile ${cls}${mark}`, viewBox: "0 0 60 80", role: "img",
      "aria-label": p ? tileName(name) : "", "data-tile": p ? String(name) : "back",
    }, svg("g", { "font-family": "'Noto Serif CJK SC','Noto Sans CJK SC',serif", "font-weight": 700 }, body));
  }

  const PIPS = { 1: [[2, 2]], 2: [[1, 1], [3, 3]], 3: [[1, 1], [2, 2], [3, 3]],
    4: [[1, 1], [3, 1], [1, 3], [3, 3]], 5: [[1, 1], [3, 1], [2, 2], [1, 3], [3, 3]],
    6: [[1, 1], [3, 1], [1, 2], [3, 2], [1, 3], [3, 3]] };

  /** A die (an SVG element): 1-6 pips; anything else a blank face. */
  function die(n, cls = "die") {
    const k = int(n, 1, 6);
    const pips = (PIPS[k] || []).map(([x, y]) =>
      svg("circle", { cx: x * 10, cy: y * 10, r: k === 1 ? 5 : 3.6, fill: k === 1 || k === 4 ? RED : "#222" }));
    return svg("svg", { class: cls, viewBox: "0 0 40 40", role: "img", "aria-label": k ?? "?" },
      svg("rect", { x: 1, y: 1, width: 38, height: 38, rx: 7, fill: "#fff", stroke: "#999", "stroke-width": 2 }), pips);
  }

  // ---- a topic's payload, typed and bounded -------------------------------------------
  // Every page reads payloads through `clean`: a field of the wrong type or out of range
  // is null (or left out), a string is cut short, a list is cut to what a table can hold.
  const int = (v, lo, hi) => (Number.isInteger(v) && v >= lo && v <= hi ? v : null);
  const str = (v, max = 200) => (typeof v === "string" ? v.slice(0, max) : "");
  const seatNo = (v) => int(v, 0, 3);
  const list = (v, max) => (Array.isArray(v) ? v.slice(0, max) : []);
  const obj = (v) => (v && typeof v === "object" && !Array.isArray(v) ? v : {});
  const oneOf = (v, options) => (options.includes(v) ? v : null);
  const handId = (v) => str(v, 64) || null;
  /** Points: a number (|n| < 1e9) or a half as the settlement writes it ("7/2"). */
  const points = (v) => (typeof v === "number" && Number.isFinite(v) && Math.abs(v) < 1e9) ||
    (typeof v === "string" && /^-?\d{1,9}\/2$/.test(v)) ? v : null;
  /** A tile as the topics write it: a code ("5m", "E") or a kind 0-33; else null. */
  const tileCode = (v) => (int(v, 0, 33) !== null || (typeof v === "string" && /^(?:[1-9][mps]|[ESWNCFP])$/.test(v)) ? v : null);
  const money = (v) => (typeof v === "number" && Number.isFinite(v) && Math.abs(v) < 1e12 ? v : null);
  /** 64 hex digits (a SHA-256, a dice seed); else null. */
  const hex64 = (v) => (typeof v === "string" && /^[0-9a-f]{64}$/.test(v) ? v : null);
  const texts = (v, max) => { const o = obj(v); return { zh: str(o.zh, max), en: str(o.en, max) }; };

  const PHASES = ["shuffle", "break_dice", "second_dice", "deal", "flip", "turn", "draw",
    "replacement", "claim", "rob", "xia_dice", "settle", "done"];
  const PURPOSES = ["break", "break_second", "jing", "xia_jing"];

  function roll(v) {
    const r = obj(v), a = int(r.a, 1, 6), b = int(r.b, 1, 6);
    return a && b ? { a, b, seat: seatNo(r.seat), purpose: oneOf(r.purpose, PURPOSES), hand_id: handId(r.hand_id) } : null;
  }

  function seatView(v) {
    const x = obj(v);
    return {
      tiles: int(x.tiles, 0, 20),
      melds: list(x.melds, 8).map((m) => ({ tiles: list(obj(m).tiles, 4).map(tileCode) })),
      discards: list(x.discards, 40).map(tileCode).filter((t) => t !== null),
    };
  }

  const clean = {
    // who sits where: a member's name (text) or null for a guest
    seats: (v) => ({ seats: [0, 1, 2, 3].map((s) => { const n = list(obj(v).seats, 4)[s]; return typeof n === "string" && n ? n.slice(0, 32) : null; }) }),
    status: (v) => ({ state: oneOf(obj(v).state, ["online", "offline"]),
      hand: oneOf(obj(v).hand, ["waiting_for_staff"]), hand_id: handId(obj(v).hand_id), text: str(obj(v).text, 300),
      title: texts(obj(v).title, 80), why: texts(obj(v).why, 200), advice: texts(obj(v).advice, 400) }),
    hand(v) {
      const p = obj(v), j = obj(p.jing), seats = list(p.seats, 4);
      return {
        hand_id: handId(p.hand_id), hand_no: int(p.hand_no, 0, 1e6), ruleset: str(p.ruleset, 32),
        ruleset_name: str(p.ruleset_name, 32), dealer: seatNo(p.dealer), turn: seatNo(p.turn), phase: oneOf(p.phase, PHASES),
        live: int(p.live, 0, 200), dice: list(p.dice, 16).map(roll).filter(Boolean),
        jing: { zheng: tileCode(j.zheng), fu: tileCode(j.fu), caishen: tileCode(j.caishen), flipped: tileCode(j.flipped) },
        seats: Array.isArray(p.seats) ? [0, 1, 2, 3].map((s) => seatView(seats[s])) : null,
        wins: list(p.wins, 4).map((w) => ({ seat: seatNo(obj(w).seat), source: str(obj(w).source, 16), tile: tileCode(obj(w).tile) })),
        exhausted: p.exhausted === true,
        dice_commitment: hex64(obj(p.dice_commitment).commitment) ? {
          commitment: hex64(obj(p.dice_commitment).commitment), table: str(obj(p.dice_commitment).table, 64),
          session: str(obj(p.dice_commitment).session, 64), hand_no: int(obj(p.dice_commitment).hand_no, 0, 1e6),
        } : null,
        dice_seed: hex64(p.dice_seed),
      };
    },
    jing(v) {
      const p = obj(v);
      return { hand_id: handId(p.hand_id), indicator: tileCode(p.indicator), zheng_jing: tileCode(p.zheng_jing),
        fu_jing: tileCode(p.fu_jing), caishen: tileCode(p.caishen) };
    },
    dice: roll,
    scores(v) {
      const p = obj(v), totals = Array.isArray(p.totals) ? p.totals : null;
      return { hand_no: int(p.hand_no, 0, 1e6), totals: totals && [0, 1, 2, 3].map((s) => points(totals[s])),
        house: str(p.house, 64) }; // the house ruleset's name (店规), if the table plays one
    },
    settlement(v) {
      const p = obj(v);
      return {
        hand_id: handId(p.hand_id), void: p.void === true, next_dealer: seatNo(p.next_dealer),
        entered: enteredBy(p.notes),
        // voided by a person (its note "作废 (voided by staff)"), not a 流局, which moves nothing too
        voided: p.void === true && Array.isArray(p.notes) && p.notes.slice(0, 8).some((n) => typeof n === "string" && n.startsWith("作废")),
        net: Array.isArray(p.net) ? [0, 1, 2, 3].map((s) => points(p.net[s])) : null,
        lines: list(p.lines, 64).map((l) => {
          const x = obj(l);
          return { reason: str(x.reason, 80), from: seatNo(x.from), to: seatNo(x.to), amount: points(x.amount) };
        }),
      };
    },
    events(v) {
      const p = obj(v);
      return { type: str(p.type, 32), seat: seatNo(p.seat), tile: int(p.tile, 0, 135), hand_id: handId(p.hand_id),
        text: p.text ? texts(p.text, 300) : null };
    },
    alerts(v) {
      const p = obj(v);
      return { kind: str(p.kind, 40), seat: seatNo(p.seat), hand_id: handId(p.hand_id), message: str(p.message, 300),
        title: p.title ? texts(p.title, 80) : null, advice: p.advice ? texts(p.advice, 300) : null };
    },
    cashout(v) {
      const p = obj(v);
      const players = list(p.players, 64).map((x) => {
        const q = obj(x);
        return { seat: seatNo(q.seat), name: typeof q.name === "string" ? str(q.name, 64) : null,
          label: str(q.label, 100) || null, net: points(q.net), played: int(q.played, 0, 1e6), money: money(q.money), fee: money(q.fee) };
      });
      const transfers = list(p.transfers, 64).map((x) => {
        const q = obj(x);
        return { from: int(q.from, 0, players.length - 1), to: int(q.to, 0, players.length - 1),
          points: points(q.points), money: money(q.money) };
      }).filter((t) => t.from !== null && t.to !== null);
      return { session_id: handId(p.session_id), played: int(p.played, 0, 1e6), ended_at: str(p.ended_at, 40),
        closed: p.closed !== false, players, transfers };
    },
    dealer(v) {
      const p = obj(v), place = obj(p.place);
      return {
        hand_id: handId(p.hand_id), dealer: seatNo(p.dealer),
        step: oneOf(p.step, ["break", "flip", "caishen", "xia_jing", "wait"]),
        dice: (Array.isArray(p.dice) ? list(p.dice, 4) : p.dice ? [p.dice] : []).map(roll).filter(Boolean),
        wall_seat: seatNo(p.wall_seat), stack: int(p.stack, 1, 17),
        count_from: oneOf(p.count_from, ["right", "left", "tail"]),
        place: place.wall_seat !== undefined ? { wall_seat: seatNo(place.wall_seat), stack: int(place.stack, 1, 17) } : null,
        text: p.text ? texts(p.text, 300) : null,
      };
    },
  };

  /** A topic's payload as the pages read it (unknown topics: nothing). */
  const cleaned = (topic, payload) => (clean[topic] ? clean[topic](payload) : null);

  // ---- seats --------------------------------------------------------------------------
  // The names of who sits where (the public "seats" topic; null: a guest), or a hand's own.
  let names = [null, null, null, null];
  const setNames = (list4) => { names = [0, 1, 2, 3].map((s) => (Array.isArray(list4) && typeof list4[s] === "string" && list4[s] ? list4[s].slice(0, 32) : null)); };

  /** "东 · 王五" / "东 · 1号位" / "East · Seat 1": the wind relative to the dealer, then the
      member's name where one sits (always set as text by the callers), else the place. */
  /** Who entered a settlement by hand, from its public note "工作人员录入 (entered by staff
      NAME)" (engine.round.finish.entered_note): "staff", "player", "owner", or null. */
  function enteredBy(notes) {
    for (const n of Array.isArray(notes) ? notes.slice(0, 8) : []) {
      const m = /^\S+录入 \(entered by (staff|player|owner)\b/.exec(typeof n === "string" ? n : "");
      if (m) return m[1];
    }
    return null;
  }

  function seatName(seat, dealer, own) {
    if (int(seat, 0, 3) === null) return "?";
    if (int(dealer, 0, 3) === null) dealer = null;
    const named = (Array.isArray(own) ? own : names)[seat];
    const num = typeof named === "string" && named ? named.slice(0, 32) : lang === "zh" ? `${seat + 1}号位` : `Seat ${seat + 1}`;
    if (dealer === null || dealer === undefined) return num;
    return `${t("winds")[(seat - dealer + 4) % 4]} · ${num}`;
  }

  function fmtNum(n) {
    if (n === null || n === undefined || n === "") return "";
    const half = typeof n === "string" && /^-?\d{1,9}\/2$/.test(n);
    const v = half ? Number(n.slice(0, -2)) / 2 : Number(n);
    if (!Number.isFinite(v)) return "";
    return (v > 0 ? "+" : "") + (Number.isInteger(v) ? v : v.toFixed(1));
  }

  // ---- the API and its login ----------------------------------------------------------------
  let loggedOut = null;
  /** What the page does when the API says its login is gone (a 401): show its login form. */
  const onLoggedOut = (fn) => { loggedOut = fn; };

  /** A call to the web app's API, JSON both ways, with the login's cookie (`credentials`:
      "omit" for a personal link). A refusal throws an Error: `message` the API's detail (its
      `en` on the English page) as text, `status` the HTTP status; a 401 first calls the page's onLoggedOut. */
  const LOGIN = "/api/v1/auth/login";

  async function api(path, { method, body, key, credentials = "same-origin" } = {}) {
    const init = { method: method || (body === undefined ? "GET" : "POST"), credentials };
    if (body !== undefined) { init.headers = { "Content-Type": "application/json" }; init.body = JSON.stringify(body); }
    if (key) init.headers = { ...init.headers, "Idempotency-Key": key };
    const r = await fetch(path, init);
    let data = null;
    try { data = await r.json(); } catch { /* empty, or not JSON */ }
    if (!r.ok) {
      // the API says each refusal in Chinese (detail) and in English (en): the page's language
      const said = data && typeof data.detail === "string" ? (lang === "en" && typeof data.en === "string" ? data.en : data.detail) : null;
      const err = new Error(str(said ?? `${r.status} ${r.statusText}`, 500));
      err.status = r.status;
      if (r.status === 401 && loggedOut && path !== LOGIN) loggedOut();
      throw err;
    }
    return data;
  }

  /** The login form: ids `${prefix}-form`, -name, -password, -submit, -error. A good name and
      password: done(); a refusal: the reason beside it (too many tries: the API's words). */
  function loginForm(prefix, { title, heading = null, cls = "", message = "", done }) {
    const name = el("input", { id: `${prefix}-name`, name: "name", autocomplete: "username", required: true });
    const password = el("input", { id: `${prefix}-password`, name: "password", type: "password",
      autocomplete: "current-password", required: true });
    const error = el("div", { class: "error", id: `${prefix}-error` }, message);
    const form = el("form", { class: cls, id: `${prefix}-form` }, heading,
      el("label", null, t("name"), name), el("label", null, t("password"), password),
      el("button", { class: "btn primary", type: "submit", id: `${prefix}-submit` }, title), error);
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      try {
        await api(LOGIN, { body: { name: name.value, password: password.value } });
      } catch (err) {
        error.textContent = err.status === 429 ? err.message : t("wrong");
        return;
      }
      done();
    });
    return form;
  }

  /** Ends the login (its cookie); whatever the answer, the page shows its login next. */
  const logout = () => api("/api/v1/auth/logout", { method: "POST" }).catch(() => null);

  // ---- the cash-out ----------------------------------------------------------------------
  /** A cash-out's player named by the cash-out itself (its label: never by who sits in
      that seat now): a guest by the seat they played in, a member by their label. */
  function cashoutName(p) {
    if (!p) return "?";
    if (p.name === null) return seatName(p.seat, null, [null, null, null, null]);
    return p.label || p.name || seatName(p.seat, null, [null, null, null, null]);
  }

  /** A cleaned cash-out (clean.cashout) as a table of nets and the list of who pays whom;
      with ``withMoney`` the money and fee columns the staff and the print page show. */
  function cashoutView(c, { withMoney = false, currency = "" } = {}) {
    const name = (i) => cashoutName(c.players[i]);
    const showMoney = withMoney && c.players.some((p) => p.money !== null);
    const showFee = withMoney && c.players.some((p) => p.fee !== null);
    const cash = (v) => (v === null ? "" : `${v.toFixed(2)} ${currency}`.trim());
    const sign = (n) => { const v = Number(fmtNum(n)); return v > 0 ? "pos" : v < 0 ? "neg" : ""; };
    const head = el("tr", null, el("th", null, t("player")), el("th", { class: "num" }, t("net")),
      showMoney ? el("th", { class: "num" }, t("money")) : null, showFee ? el("th", { class: "num" }, t("fee")) : null);
    const rows = c.players.map((p, i) => el("tr", { class: "cashout-player", "data-player": i },
      el("td", null, name(i), p.played !== null ? el("span", { class: "muted" }, ` · ${t("hands_n", { n: p.played })}`) : null),
      el("td", { class: `num ${sign(p.net)}` }, fmtNum(p.net) || "0"),
      showMoney ? el("td", { class: "num" }, cash(p.money)) : null,
      showFee ? el("td", { class: "num" }, cash(p.fee)) : null));
    const plain = (n) => fmtNum(n).replace(/^\+/, "");
    const pays = c.transfers.map((x) => el("li", { class: "transfer" },
      el("b", null, name(x.from)), ` ${t("pays")} `, el("b", null, name(x.to)), ` ${plain(x.points)} ${t("points_unit")}`,
      showMoney && x.money !== null ? el("span", { class: "money" }, ` (${cash(x.money)})`) : null));
    return el("div", { class: "cashout-view" },
      el("table", { class: "cashout-nets" }, el("thead", null, head), el("tbody", null, rows)),
      el("h3", null, t("transfers")),
      el("ol", { class: "transfers" }, pays.length ? pays : el("li", { class: "muted" }, t("no_transfer"))));
  }

  // ---- the live stream ----------------------------------------------------------------
  const TOPICS = ["seats", "status", "hand", "jing", "dice", "scores", "settlement", "cashout", "dealer", "events", "alerts"];

  /** Follow /api/v1/public/live; onMessage(topic, payload, meta). The banner shows the state. */
  /** The connection's state on the page's banner: connecting, connected, reconnecting. */
  function showLive(banner, state) {
    if (!banner) return;
    banner.dataset.state = state;
    banner.textContent = t(state);
    document.body.dataset.live = state;
  }

  function live(onMessage, banner) {
    let source = null, retry = null;
    const show = (state) => showLive(banner, state);
    const open = () => {
      show(source ? "reconnecting" : "connecting");
      source = new EventSource("/api/v1/public/live");
      source.addEventListener("ready", () => show("connected"));
      source.onerror = () => {
        show("reconnecting");
        if (source.readyState === EventSource.CLOSED) { // the browser gave up: try again
          clearTimeout(retry);
          retry = setTimeout(open, 3000);
        }
      };
      for (const topic of TOPICS) {
        source.addEventListener(topic, (e) => {
          let data;
          try { data = JSON.parse(e.data); } catch { return; }
          const payload = cleaned(topic, data.payload);
          if (topic === "seats") setNames(payload.seats);
          onMessage(topic, payload, { at: data.at, replayed: data.replayed, id: e.lastEventId });
        });
      }
    };
    document.addEventListener("mj:lang", () => banner && show(banner.dataset.state || "connecting"));
    open();
    return { close: () => source && source.close() };
  }

  /** ``parts`` as ``box``'s children, leaving a part that is already in its place there: a
      node taken out and put back (a list drawn anew) loses the tap of a finger on it. */
  function place(box, parts) {
    parts.forEach((part, i) => {
      const now = box.children[i];
      if (now !== part) { if (now) box.replaceChild(part, now); else box.append(part); }
    });
    while (box.children.length > parts.length) box.lastElementChild.remove();
  }

  const STALE = Symbol("stale");

  /** ``ask`` made to answer in the order it was asked: its answer (or its error), or STALE
      when an answer asked later already came. Two looks in flight (the page's poll and the
      look after a tap) can come back the other way round; the older one would put the
      screen back behind the tap and send its stale ``seen`` with the next act. */
  function newest(ask) {
    let asked = 0;
    let shown = 0;
    return async () => {
      const n = ++asked;
      const came = await ask().then((value) => ({ value }), (error) => ({ error, failed: true }));
      if (n < shown) return STALE;
      shown = n;
      if (came.failed) throw came.error;
      return came.value;
    };
  }

  return { t, words, inLang, when, lang: () => lang, setLang, langToggle, applyI18n, el, svg, tile, tileName,
    parseTile, parseTiles, die, seatName, setNames, fmtNum, cleaned, str, live, showLive, params, cashoutView, cashoutName,
    api, onLoggedOut, loginForm, logout, place, newest, STALE };
})();
