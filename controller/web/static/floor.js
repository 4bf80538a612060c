/* The parlour floor: every table live on one screen, from the broker's flat topics and
   each table's status and alerts (docs/displays.md), with the floor account. A click on
   a table opens its display (from the broker, with the same account); the hand log is
   the owners' page. On the hub: every table of the parlour; on a Pi: its own table. */
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const tr = MJ.words({ // this page's own words (the shared ones are common.js's)
    zh: { idle: "空闲", dealing: "发牌", in_hand: "对局中", settling: "结算", offline: "离线",
      tables: "张牌桌", display: "显示", handlog: "牌局记录", hand: "第{n}局", alert_for: "已持续",
      software: "软件 {v}", behind: "比总台旧（{v}）" },
    en: { idle: "Idle", dealing: "Dealing", in_hand: "In hand", settling: "Settling",
      offline: "Offline", tables: "tables", display: "Display", handlog: "Hand log",
      hand: "Hand {n}", alert_for: "open for", software: "software {v}", behind: "older than the hub's ({v})" },
  });
  const tables = new Map(); // id -> {flat: {name: text}, status, alerts: [{kind, seat, since}]}
  let broker = null, prefix = "", titles = {}, pending = false;
  let hubVersion = ""; // the hub's mjtable version (its /api/v1/public/table); "" on a Pi

  // Bounds: whatever a table's account publishes, the page's memory stays small.
  const MAX_TABLES = 500, MAX_KEYS = 100, MAX_TEXT = 200, MAX_ALERTS = 50;
  const entry = (id) => {
    if (!tables.has(id)) {
      if (tables.size >= MAX_TABLES) return null;
      tables.set(id, { flat: {}, status: null, alerts: [] });
    }
    return tables.get(id);
  };

  function onMessage(topic, text) {
    const rest = topic.slice(prefix.length);
    const cut = rest.indexOf("/");
    if (!topic.startsWith(prefix) || cut < 1) return;
    const tableId = rest.slice(0, cut);
    if (!MJBroker.id(tableId)) return;
    const t = entry(tableId), name = rest.slice(cut + 1);
    if (!t) return;
    if (name.startsWith("flat/")) {
      const key = name.slice(5);
      if (text === "") delete t.flat[key];
      else if (key in t.flat || Object.keys(t.flat).length < MAX_KEYS) t.flat[key] = text.slice(0, MAX_TEXT);
      if (key === "alert" && text === "") t.alerts = []; // a new hand: its alerts start afresh
    } else if (name === "scores") { // (only its house ruleset's name: the flat topics carry the rest)
      let p;
      try { p = JSON.parse(text); } catch { return; }
      t.house = p && typeof p === "object" ? MJ.str(p.house, 64) : "";
    } else if (name === "status" || name === "alerts") {
      let p;
      try { p = JSON.parse(text); } catch { return; }
      if (!p || typeof p !== "object") return;
      if (name === "status") {
        t.status = p.state === "offline" || p.state === "online" ? p.state : null;
        t.version = typeof p.version === "string" && VERSION.test(p.version) ? p.version : ""; // the software it runs
      }
      else if (t.alerts.length < MAX_ALERTS) {
        const seat = Number.isInteger(p.seat) && p.seat >= 0 && p.seat < 4 ? p.seat : null;
        t.alerts.push({ kind: MJ.str(p.kind, MAX_TEXT) || "?", seat, since: Date.now() / 1000 });
      }
    }
    if (!pending) { pending = true; requestAnimationFrame(render); }
  }

  /** The retained latest alert (a page opened after it was raised) joins the stream's. */
  function openAlerts(t) {
    const f = t.flat, list = t.alerts.slice();
    if (f.alert) {
      const seat = /^[0-3]$/.test(f.alert_seat || "") ? Number(f.alert_seat) : null;
      const sent = Number(f.alert_at), at = Number.isFinite(sent) && sent > 0 ? sent : Date.now() / 1000;
      const same = list.find((a) => a.kind === f.alert && (a.seat ?? null) === seat);
      if (same) same.since = Math.min(same.since, at); else list.push({ kind: f.alert, seat, since: at });
    }
    return list;
  }

  function ago(since) {
    const s = Math.max(0, Math.floor(Date.now() / 1000 - since));
    return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  }

  const { el } = MJ;
  const VERSION = /^[0-9A-Za-z.+_-]{1,32}$/;
  /** Whether a table's version is older than the hub's by its release numbers (as
      controller.process.software.behind); an unknown one is not said to be behind. */
  function behind(version, reference) {
    const release = (v) => (/^\d+(?:\.\d+)*/.exec(v || "") || [""])[0].split(".").filter(Boolean).map(Number);
    const mine = release(reference), theirs = release(version);
    if (!mine.length || !theirs.length) return false;
    for (let i = 0; i < Math.max(mine.length, theirs.length); i += 1) {
      if (i >= theirs.length) return true; // (1.2 is older than 1.2.1)
      if (i >= mine.length) return false;
      if (theirs[i] !== mine[i]) return theirs[i] < mine[i];
    }
    return false;
  }

  function software(id, t) {
    if (!t.version) return el("div", { class: "floor-software", "data-software": id });
    const old = behind(t.version, hubVersion);
    return el("div", { class: "floor-software", "data-software": id, "data-behind": old ? "yes" : "no" },
      tr("software", { v: t.version }), old ? ` · ${tr("behind", { v: hubVersion })}` : "");
  }

  const WINDS = ["东", "南", "西", "北"];

  function tileOf(code, label) {
    return code && MJ.parseTile(code) ? el("span", null, `${label} `, MJ.tile(code, "tile-s")) : null;
  }

  function card(id, t) {
    const f = t.flat;
    const state = t.status === "offline" ? "offline" : f.state || "idle";
    const jing = f["jing/caishen_code"]
      ? [tileOf(f["jing/caishen_code"], MJ.t("caishen"))]
      : [tileOf(f["jing/zheng_code"], MJ.t("zheng")), tileOf(f["jing/fu_code"], MJ.t("fu"))];
    const seats = [0, 1, 2, 3].map((s) => {
      const dealer = f[`seat/${s}/dealer`] === "1";
      const total = f[`seat/${s}/total`];
      const wind = WINDS.includes(f[`seat/${s}/wind`]) ? f[`seat/${s}/wind`] : "";
      return el("div", { class: dealer ? "dealer" : null, "data-seat": s },
        el("small", null, `${wind}${dealer ? " 庄" : ""} · ${s + 1}`),
        el("b", { "data-total": "" }, total === undefined ? "0" : MJ.fmtNum(total) || "0"));
    });
    const dealer = /^[0-3]$/.test(f.dealer || "") ? Number(f.dealer) : null;
    const alerts = openAlerts(t).map((a) => {
      const title = (Object.hasOwn(titles, a.kind) && MJ.inLang(titles[a.kind])) || a.kind;
      const seat = a.seat === null || a.seat === undefined ? "" : ` · ${MJ.seatName(Number(a.seat), dealer)}`;
      return el("li", { "data-kind": a.kind, title: tr("alert_for") },
        `${title}${seat}`, el("time", { "data-since": a.since }, ago(a.since)));
    });
    const display = MJBroker.displayUrl(broker, broker.parlour, id);
    const handNo = /^\d{1,6}$/.test(f.hand_no || "") ? tr("hand", { n: f.hand_no }) : "";
    return el("article", { class: "floor-card", "data-table": id, "data-state": state,
      "data-alerts": alerts.length ? "yes" : "no", "data-href": display },
      el("header", null, el("b", null, id), el("span", { class: "state" }, tr(state)),
        el("span", { class: "hand-no" }, handNo), el("span", { class: "house" }, t.house || "")),
      el("div", { class: "floor-jing" }, jing),
      el("div", { class: "floor-scores" }, seats),
      el("ul", { class: "floor-alerts" }, alerts),
      software(id, t),
      el("nav", null, el("a", { class: "to-display", href: display }, tr("display")),
        el("a", { class: "to-handlog", href: `/owner#/t/${encodeURIComponent(id)}` }, tr("handlog"))));
  }

  function render() {
    pending = false;
    const ids = [...tables.keys()].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
    $("floor").replaceChildren(...ids.map((id) => card(id, tables.get(id))));
    $("floor-count").textContent = `${ids.length} ${tr("tables")}`;
    document.body.dataset.rendered = String(Date.now());
  }

  function tick() { // how long each alert has been open, every second
    document.querySelectorAll(".floor-alerts time").forEach((el) => { el.textContent = ago(Number(el.dataset.since)); });
  }

  const banner = (state) => MJ.showLive($("live-banner"), state);

  document.addEventListener("DOMContentLoaded", () => {
    MJ.applyI18n();
    MJ.langToggle($("lang"));
    document.addEventListener("mj:lang", () => { render(); banner($("live-banner").dataset.state); });
    $("floor").addEventListener("click", (e) => {
      const el = e.target.closest(".floor-card");
      if (el && !e.target.closest("a")) location.href = el.dataset.href;
    });
    setInterval(tick, 1000);
    broker = MJBroker.settings();
    Promise.all([
      MJ.api("/api/v1/public/table").catch(() => ({})),
      MJ.api("/floor/alerts.json").catch(() => ({})),
    ]).then(([t, names]) => {
      titles = names;
      broker.parlour = broker.parlour || t.parlour;
      MJBroker.allow(broker, t);
      hubVersion = t.hub === true && typeof t.software === "string" && VERSION.test(t.software) ? t.software : "";
      // the hub's web app: every table; a Pi's: its own table
      const table = broker.table || (t.table && t.hub !== true ? t.table : "+");
      $("parlour-name").textContent = broker.parlour;
      prefix = `${MJBroker.ROOT}/${broker.parlour}/`;
      const filters = ["status", "alerts", "scores", "flat/#"].map((n) => `${prefix}${table}/${n}`);
      MJBroker.connect(broker, filters, onMessage, banner);
      render();
    });
  });
})();
