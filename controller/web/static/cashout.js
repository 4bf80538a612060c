/* The printable cash-out (docs/players.md, "Cash-out"): a session's players, their nets,
   who pays whom, and the owner's money and table fee, for staff and owners (the login's
   cookie: log in on /dealer). ?session=<id> (owners): that session; else this table's
   latest. Every field goes in as text (MJ.el). */
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const { el } = MJ;
  let raw = null, failure = "";

  function render() {
    $("print").textContent = MJ.t("print");
    $("error").textContent = failure;
    if (!raw) { $("title").textContent = MJ.t("cashout"); $("sheet").replaceChildren(); document.body.dataset.ready = "no"; return; }
    const c = MJ.cleaned("cashout", raw);
    const terms = raw.terms && typeof raw.terms === "object" ? raw.terms : {};
    const currency = MJ.str(terms.currency, 8);
    const by = raw.closed_by && typeof raw.closed_by === "object" ? raw.closed_by : null;
    $("title").textContent = `${c.closed ? MJ.t("cashout") : MJ.t("cashout_open")} · ${MJ.t("hands_n", { n: c.played ?? 0 })}`;
    const meta = [`${MJ.when(raw.started_at)} – ${MJ.when(raw.ended_at)}`];
    if (by) meta.push(`${MJ.t("closed_by")}: ${MJ.str(by.by, 64)}${by.reason ? " · " + MJ.str(by.reason, 500) : ""}`);
    if (typeof terms.point_value === "number") meta.push(`1 ${MJ.t("points_unit")} = ${terms.point_value} ${currency}`);
    const fee = raw.fee && typeof raw.fee === "object" ? raw.fee : null;
    if (fee && typeof fee.total === "number" && typeof terms.table_fee === "number") {
      meta.push(`${MJ.t("fee")}: ${terms.table_fee} ${currency} ${MJ.t("fee_" + MJ.str(fee.per, 10))} · ${fee.total.toFixed(2)} ${currency}`);
    }
    $("meta").replaceChildren(...meta.map((m) => el("p", { class: "meta" }, m)));
    $("sheet").replaceChildren(MJ.cashoutView(c, { withMoney: true, currency }));
    $("links").replaceChildren(...linkRows(raw));
    document.body.dataset.ready = "yes";
  }

  // A member's personal link, made on a tap (a new one ends the old) and shown as a QR code
  // for their phone; the code is fetched by the link's own token, never put on a topic.
  const made = new Map();
  function linkRows(data) {
    const people = Array.isArray(data.players) ? data.players : [];
    const members = people.filter((p) => p && typeof p.member_id === "string" && /^[0-9a-f]{32}$/.test(p.member_id));
    if (!members.length) return [];
    const rows = members.map((p) => {
      const id = p.member_id;
      const link = made.get(id);
      const cell = link
        ? el("div", { class: "qr" }, el("img", { src: link.qr, alt: MJ.str(p.name, 32), width: "150", height: "150" }), el("div", { class: "meta" }, new URL(link.url, location.origin).href))
        : el("button", { class: "btn", type: "button", "data-member": id }, MJ.t("make_link"));
      if (!link) cell.addEventListener("click", () => makeLink(id));
      return el("div", { class: "row link" }, el("b", null, MJ.str(p.name, 32)), cell);
    });
    return [el("h2", null, MJ.t("links")), ...rows];
  }

  async function makeLink(id) {
    try {
      const data = await MJ.api(`/api/v1/records/by-id/${id}/link`, { method: "POST" });
      if (data && typeof data.qr === "string" && data.qr.startsWith("/api/v1/my-record/") && typeof data.url === "string") made.set(id, { qr: data.qr, url: data.url });
      else failure = "?";
    } catch (e) {
      failure = e.message;
    }
    render();
  }

  document.addEventListener("DOMContentLoaded", async () => {
    MJ.langToggle($("lang"));
    document.addEventListener("mj:lang", render);
    $("print").addEventListener("click", () => window.print());
    const session = MJ.params.get("session");
    const path = session
      ? `/api/v1/sessions/${encodeURIComponent(session.slice(0, 64))}/cashout`
      : "/api/v1/staff/sessions/latest/cashout";
    try {
      raw = await MJ.api(path);
    } catch (e) {
      failure = e.status === 401 ? "请先在 /dealer 登录 (log in on /dealer first)" : e.message;
    }
    render();
  });
})();
