/* A member's own record, through their personal link (/m/<token>): read-only, from
   GET /api/v1/my-record/<token> only. Every field goes in as text (MJ.el), never as markup. */
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const { el } = MJ;
  const TXT = { // this page's own words (MJ.words; the shared ones are common.js's)
    zh: { brand: "我的战绩", hands: "局数", wins: "胡牌", self_draws: "自摸", deguo: "德国", jingdiao: "精吊",
      chongguan: "冲关", big_hands: "大牌", net: "总输赢", weeks: "按周", months: "按月", chart: "累计输赢",
      gone: "此链接无效或已撤销", period: "期间", recent: "最近的牌局", date: "时间", table: "牌桌", result: "结果",
      this_table: "本台", streaks: "连胜连败", streak_now: "目前", best_up: "最长连赢", worst_down: "最长连输",
      up_n: "连赢{n}局", down_n: "连输{n}局", even: "持平", n_hands: "{n}局",
      r_self_draw: "自摸", r_win: "胡牌", r_dealt_in: "点炮", r_other_won: "别人胡", r_draw: "流局" },
    en: { brand: "My record", hands: "Hands", wins: "Wins", self_draws: "Self-draws", deguo: "德国",
      jingdiao: "精吊", chongguan: "冲关", big_hands: "Big hands", net: "Net", weeks: "By week",
      months: "By month", chart: "Running net", gone: "This link is not valid (or was revoked)", period: "Period",
      recent: "Latest hands", date: "When", table: "Table", result: "Result", this_table: "this table",
      streaks: "Streaks", streak_now: "Now", best_up: "Longest up", worst_down: "Longest down",
      up_n: "{n} up in a row", down_n: "{n} down in a row", even: "even", n_hands: "{n} hands",
      r_self_draw: "self-drawn win", r_win: "won", r_dealt_in: "dealt in", r_other_won: "another won", r_draw: "draw" },
  };
  const T = MJ.words(TXT);
  const RESULTS = ["self_draw", "win", "dealt_in", "other_won", "draw"];
  const count = (v) => (Number.isInteger(v) && v >= 0 && v < 1e6 ? v : 0);

  /** Their hands, newest first: when (this device's clock), which table, how it went, net. */
  function recentTable(list) {
    const when = (s) => { const d = new Date(MJ.str(s, 40)); return Number.isNaN(d.getTime()) ? "" : d.toLocaleString(MJ.lang() === "zh" ? "zh-CN" : "en-GB", { month: "numeric", day: "numeric", hour: "2-digit", minute: "2-digit" }); };
    const rows = (Array.isArray(list) ? list : []).slice(0, 50).map((h) => {
      const x = h && typeof h === "object" ? h : {};
      const result = RESULTS.includes(x.result) ? x.result : "other_won";
      const net = typeof x.net === "number" && Number.isFinite(x.net) ? x.net : 0;
      return el("tr", { class: "hand-row" }, el("td", null, when(x.at)), el("td", null, MJ.str(x.table, 64) || T("this_table")),
        el("td", null, T("r_" + result)), el("td", { class: `num ${net > 0 ? "pos" : net < 0 ? "neg" : ""}` }, MJ.fmtNum(net) || "0"));
    });
    return el("div", { class: "panel" }, el("h2", null, T("recent")),
      el("table", { class: "grid-table", id: "recent" }, el("tr", null, el("th", null, T("date")), el("th", null, T("table")),
        el("th", null, T("result")), el("th", { class: "num" }, T("net"))), rows));
  }

  function streaks(s) {
    const x = s && typeof s === "object" ? s : {};
    const now = Number.isInteger(x.now) ? x.now : 0;
    const said = now > 0 ? T("up_n", { n: now }) : now < 0 ? T("down_n", { n: -now }) : T("even");
    return el("div", { class: "panel", id: "streaks" }, el("h2", null, T("streaks")),
      el("p", null, `${T("streak_now")}：${said} · ${T("best_up")} ${T("n_hands", { n: count(x.best_up) })} · ${T("worst_down")} ${T("n_hands", { n: count(x.worst_down) })}`));
  }
  const token = decodeURIComponent(location.pathname.split("/").pop() || "");
  const COUNTS = ["hands", "wins", "self_draws", "deguo", "jingdiao", "chongguan", "big_hands"];

  const periods = (obj) => Object.entries(obj && typeof obj === "object" ? obj : {}).slice(-60).reverse()
    .map(([k, v]) => el("tr", null, el("td", null, MJ.str(k, 10)), el("td", { class: "num" }, MJ.fmtNum(v) || "0")));

  async function render() {
    $("brand").textContent = T("brand");
    document.title = `${T("brand")} · mjtable`;
    let r = null;
    try { r = await MJ.api(`/api/v1/my-record/${encodeURIComponent(token)}`, { credentials: "omit" }); } catch { r = null; }
    if (!r || typeof r !== "object") { $("main").replaceChildren(el("div", { class: "panel error", id: "gone" }, T("gone"))); return; }
    const counts = el("table", { class: "grid-table", id: "counts" },
      el("tr", null, COUNTS.map((k) => el("th", { class: "num" }, T(k))), el("th", { class: "num" }, T("net"))),
      el("tr", null, COUNTS.map((k) => el("td", { class: "num", "data-count": k }, String(Number.isInteger(r[k]) ? r[k] : 0))),
        el("td", { class: "num", id: "net" }, MJ.fmtNum(r.net) || "0")));
    const table = (title, rows, id) => el("div", { class: "panel" }, el("h2", null, title),
      el("table", { class: "grid-table", id }, el("tr", null, el("th", null, T("period")), el("th", { class: "num" }, T("net"))), rows));
    $("main").replaceChildren(
      el("h1", { id: "member-name" }, MJ.str(r.name, 32)),
      el("div", { class: "panel" }, counts),
      streaks(r.streaks),
      el("div", { class: "panel" }, el("h2", null, T("chart")),
        el("div", { class: "charts" }, el("img", { alt: T("chart"), id: "chart", src: `/api/v1/my-record/${encodeURIComponent(token)}/chart.svg?lang=${MJ.lang()}` }))),
      recentTable(r.recent),
      el("div", { class: "row" }, table(T("months"), periods(r.months), "months"), table(T("weeks"), periods(r.weeks), "weeks")));
    document.body.dataset.rendered = "1";
  }

  document.addEventListener("DOMContentLoaded", () => {
    MJ.applyI18n();
    MJ.langToggle($("lang"));
    document.addEventListener("mj:lang", render);
    render();
  });
})();
