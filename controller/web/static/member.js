/* A member's own record, through their personal link (/m/<token>): read-only, from
   GET /api/v1/my-record/<token> only. Every field goes in as text (MJ.el), never as markup. */
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const { el } = MJ;
  const TXT = { // this page's own words (MJ.words; the shared ones are common.js's)
    zh: { brand: "我的战绩", hands: "局数", wins: "胡牌", self_draws: "自摸", deguo: "德国", jingdiao: "精吊",
      chongguan: "冲关", big_hands: "大牌", net: "总输赢", weeks: "按周", months: "按月", chart: "累计输赢",
      gone: "此链接无效或已撤销", period: "期间" },
    en: { brand: "My record", hands: "Hands", wins: "Wins", self_draws: "Self-draws", deguo: "德国",
      jingdiao: "精吊", chongguan: "冲关", big_hands: "Big hands", net: "Net", weeks: "By week",
      months: "By month", chart: "Running net", gone: "This link is not valid (or was revoked)", period: "Period" },
  };
  const T = MJ.words(TXT);
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
      el("div", { class: "panel" }, el("h2", null, T("chart")),
        el("div", { class: "charts" }, el("img", { alt: T("chart"), id: "chart", src: `/api/v1/my-record/${encodeURIComponent(token)}/chart.svg?lang=${MJ.lang()}` }))),
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
