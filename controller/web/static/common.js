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
      connecting: "连接中…", offline: "牌桌离线", waiting: "等待开局", settlement: "结算",
      net: "输赢", reason: "项目", payer: "付", payee: "收", amount: "分", draw: "流局",
      void: "本局作废", next_dealer: "下局庄家", no_jing: "未翻精", melds: "副露",
      discards: "弃牌", hand: "手牌", self_draw: "自摸", win: "胡", from: "放炮",
      phase_shuffle: "洗牌", phase_break_dice: "掷骰开牌", phase_second_dice: "第二次掷骰",
      phase_deal: "发牌", phase_flip: "翻精", phase_turn: "出牌", phase_draw: "摸牌",
      phase_replacement: "补牌", phase_claim: "等待吃碰杠胡", phase_rob: "抢杠",
      phase_xia_dice: "下精", phase_settle: "结算", phase_done: "本局结束",
      purpose_break: "开牌", purpose_break_second: "开牌（二）", purpose_jing: "翻精",
      purpose_xia_jing: "下精",
      dealer_view: "庄家提示", instruction: "现在", alerts: "警报", no_alerts: "没有警报",
      dismiss: "已处理", what_to_do: "处理办法", seat_of: "座位", recent: "之前",
      lang: "English",
      winds: ["东", "南", "西", "北"],
    },
    en: {
      zheng: "Main jing", fu: "Second jing", caishen: "Caishen", indicator: "Indicator",
      jing: "Jing", dice: "Dice", dealer: "Dealer", turn: "Turn", wall: "Wall",
      tiles: "tiles", hand_no: "Hand {n}", score: "Score", connected: "Connected",
      reconnecting: "Connection lost, reconnecting…", connecting: "Connecting…",
      offline: "Table offline", waiting: "Waiting for the hand", settlement: "Settlement",
      net: "Net", reason: "Reason", payer: "Pays", payee: "Gets", amount: "Pts",
      draw: "Draw (流局)", void: "Hand void", next_dealer: "Next dealer",
      no_jing: "Jing not flipped yet", melds: "Melds", discards: "Discards", hand: "Hand",
      self_draw: "self-draw", win: "wins", from: "dealt in",
      phase_shuffle: "Shuffle", phase_break_dice: "Roll to break", phase_second_dice: "Second roll",
      phase_deal: "Deal", phase_flip: "Flip the jing", phase_turn: "Discard",
      phase_draw: "Draw", phase_replacement: "Replacement", phase_claim: "Claims",
      phase_rob: "Robbing the kong", phase_xia_dice: "下精 roll", phase_settle: "Settling",
      phase_done: "Hand over",
      purpose_break: "break", purpose_break_second: "break (2nd)", purpose_jing: "jing",
      purpose_xia_jing: "下精",
      dealer_view: "Dealer", instruction: "Now", alerts: "Alerts", no_alerts: "No alerts",
      dismiss: "Done", what_to_do: "What to do", seat_of: "Seat", recent: "earlier",
      lang: "中文",
      winds: ["East", "South", "West", "North"],
    },
  };

  function t(key, vars) {
    let s = (TEXT[lang] && TEXT[lang][key]) ?? TEXT.zh[key] ?? key;
    if (vars) for (const [k, v] of Object.entries(vars)) s = s.replace(`{${k}}`, v);
    return s;
  }

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

  /** "5m" / "E" / a kind 0-33 -> {suit: "m"|"p"|"s"|"z", n: 1-9 or honor index 0-6}. */
  function parseTile(name) {
    if (typeof name === "number") {
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

  function face(p) {
    if (p.suit === "m") {
      return `<text x="30" y="34" text-anchor="middle" font-size="25" fill="${BLUE}">${NUM_ZH[p.n - 1]}</text>` +
        `<text x="30" y="69" text-anchor="middle" font-size="29" fill="${RED}">萬</text>`;
    }
    if (p.suit === "p") {
      const r = DOT_R[p.n];
      return DOTS[p.n].map(([x, y], i) => {
        const c = p.n === 1 ? RED : (p.n === 5 && i === 2) || (p.n === 7 && i < 3) || (p.n === 9 && i >= 3 && i < 6) ? RED : i % 2 ? GREEN : BLUE;
        return `<circle cx="${x}" cy="${y}" r="${r}" fill="none" stroke="${c}" stroke-width="${r > 10 ? 3 : 2}"/>` +
          `<circle cx="${x}" cy="${y}" r="${r * 0.45}" fill="${c}"/>`;
      }).join("");
    }
    if (p.suit === "s") {
      if (p.n === 1) {
        return `<rect x="24" y="10" width="12" height="60" rx="6" fill="${GREEN}"/>` +
          `<circle cx="30" cy="40" r="7" fill="${RED}"/><text x="30" y="76" text-anchor="middle" font-size="9" fill="${GREEN}">一条</text>`;
      }
      const h = p.n >= 7 ? 17 : 22, w = p.n === 8 ? 6 : 7;
      return STICKS[p.n].map(([x, y], i) => {
        const c = (p.n === 5 && i === 2) || (p.n === 7 && i === 0) || (p.n === 9 && i % 3 === 1) ? RED : GREEN;
        return `<rect x="${x - w / 2}" y="${y - h / 2}" width="${w}" height="${h}" rx="3" fill="${c}"/>` +
          `<line x1="${x - w / 2}" x2="${x + w / 2}" y1="${y}" y2="${y}" stroke="#fff" stroke-width="1"/>`;
      }).join("");
    }
    if (p.n === 6) { // 白板: an empty frame
      return `<rect x="12" y="14" width="36" height="52" rx="3" fill="none" stroke="#3a6ea5" stroke-width="3"/>`;
    }
    const colour = p.n === 4 ? RED : p.n === 5 ? GREEN : BLUE;
    return `<text x="30" y="54" text-anchor="middle" font-size="38" fill="${colour}">${HONOR_FACE[p.n]}</text>`;
  }

  /** An SVG tile face; `cls` sizes it (tile-xl, tile-l, tile-m, tile-s). Hidden: face down. */
  function tile(name, cls = "tile-m", opts = {}) {
    const p = opts.hidden ? null : parseTile(name);
    const title = p ? tileName(name) : "";
    const body = p
      ? `<rect x="1.5" y="1.5" width="57" height="77" rx="7" fill="#fbf8ef" stroke="#a89f88" stroke-width="2"/>${face(p)}`
      : `<rect x="1.5" y="1.5" width="57" height="77" rx="7" fill="#2f7d5b" stroke="#1b4d37" stroke-width="2"/>`;
    return `<svg class="tile ${cls}${opts.mark ? " tile-" + opts.mark : ""}" viewBox="0 0 60 80" role="img" aria-label="${title}" data-tile="${p ? name : "back"}">` +
      `<g font-family="'Noto Serif CJK SC','Noto Sans CJK SC',serif" font-weight="700">${body}</g></svg>`;
  }

  const PIPS = { 1: [[2, 2]], 2: [[1, 1], [3, 3]], 3: [[1, 1], [2, 2], [3, 3]],
    4: [[1, 1], [3, 1], [1, 3], [3, 3]], 5: [[1, 1], [3, 1], [2, 2], [1, 3], [3, 3]],
    6: [[1, 1], [3, 1], [1, 2], [3, 2], [1, 3], [3, 3]] };

  function die(n, cls = "die") {
    const pips = (PIPS[n] || []).map(([x, y]) =>
      `<circle cx="${x * 10}" cy="${y * 10}" r="${n === 1 ? 5 : 3.6}" fill="${n === 1 || n === 4 ? RED : "#222"}"/>`).join("");
    return `<svg class="${cls}" viewBox="0 0 40 40" role="img" aria-label="${n}"><rect x="1" y="1" width="38" height="38" rx="7" fill="#fff" stroke="#999" stroke-width="2"/>${pips}</svg>`;
  }

  // ---- seats --------------------------------------------------------------------------
  /** "东 · 1号位" / "East · Seat 1": the wind relative to the dealer, then the place. */
  function seatName(seat, dealer) {
    const num = lang === "zh" ? `${seat + 1}号位` : `Seat ${seat + 1}`;
    if (dealer === null || dealer === undefined) return num;
    return `${t("winds")[(seat - dealer + 4) % 4]} · ${num}`;
  }

  function fmtNum(n) {
    if (n === null || n === undefined) return "";
    const v = Number(n);
    return (v > 0 ? "+" : "") + (Number.isInteger(v) ? v : v.toFixed(1));
  }

  function esc(s) {
    return String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  }

  // ---- the live stream ----------------------------------------------------------------
  const TOPICS = ["status", "hand", "jing", "dice", "scores", "settlement", "dealer", "events", "alerts"];

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
          onMessage(topic, data.payload, { at: data.at, replayed: data.replayed, id: e.lastEventId });
        });
      }
    };
    document.addEventListener("mj:lang", () => banner && show(banner.dataset.state || "connecting"));
    open();
    return { close: () => source && source.close() };
  }

  return { t, lang: () => lang, setLang, langToggle, applyI18n, tile, tileName, parseTile, die, seatName, fmtNum, esc, live, showLive, params };
})();
