/* The printable cash-out (docs/players.md, "Cash-out"): a session's players, their nets,
   who pays whom, and the owner's money and table fee, for staff and owners (the login's
   cookie: log in on /dealer). ?session=<id>: that session (owners: any; staff: one of
   their table's last closed ones, listed under the sheet); else this table's latest.
   Every field goes in as text (MJ.el). */
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const { el } = MJ;
  let raw = null, failure = "", closed = [];

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
    $("links").replaceChildren(...linkRows(raw, c));
    $("recent").replaceChildren(...recentRows());
    document.body.dataset.ready = "yes";
  }

  // A member's personal link, made on a tap (a new one ends the old) and shown as a QR code
  // for their phone, under their name as the sheet names them; the code is fetched by the
  // link's own token, never put on a topic. On paper: only the members with a code, and
  // the heading only when there is one.
  const made = new Map();
  function linkRows(data, c) {
    const people = Array.isArray(data.players) ? data.players : [];
    const rows = people.flatMap((p, i) => {
      if (!p || typeof p.member_id !== "string" || !/^[0-9a-f]{32}$/.test(p.member_id)) return [];
      const id = p.member_id, name = MJ.cashoutName(c.players[i]);
      const link = made.get(id);
      const cell = link
        ? el("div", { class: "qr" }, el("img", { src: link.qr, alt: name, width: "150", height: "150" }), el("div", { class: "meta" }, new URL(link.url, location.origin).href))
        : el("button", { class: "btn", type: "button", "data-member": id }, MJ.t("make_link"));
      if (!link) cell.addEventListener("click", () => makeLink(id));
      return [el("div", { class: `link${link ? " with-code" : ""}`, "data-member": id }, el("b", null, name), cell)];
    });
    if (!rows.length) return [];
    const coded = rows.some((r) => r.classList.contains("with-code"));
    return [el("h2", { class: coded ? "with-code" : "" }, MJ.t("links")), ...rows];
  }

  // This table's last closed sessions (staff: the sheets they closed, after the next hand
  // started); each opens its own sheet. Off the paper.
  function recentRows() {
    if (!closed.length) return [];
    const when = (s) => { const d = new Date(MJ.str(s, 40)); return Number.isNaN(d.getTime()) ? "" : d.toLocaleString(MJ.lang() === "zh" ? "zh-CN" : "en-GB"); };
    return [el("h2", null, MJ.t("recent_closed")), el("ul", null, closed.map((s) =>
      el("li", null, el("a", { href: `/cashout?session=${encodeURIComponent(s.session_id)}`, "data-session": s.session_id },
        `${when(s.started_at)} – ${when(s.ended_at)}`))))];
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
    const id = session && encodeURIComponent(session.slice(0, 64));
    try {
      const list = await MJ.api("/api/v1/staff/sessions/closed").catch(() => []);
      closed = Array.isArray(list) ? list.filter((s) => s && typeof s.session_id === "string").slice(0, 10) : [];
      try {
        raw = await MJ.api(id ? `/api/v1/sessions/${id}/cashout` : "/api/v1/staff/sessions/latest/cashout");
      } catch (e) {
        if (!(id && e.status === 403)) throw e;
        raw = await MJ.api(`/api/v1/staff/sessions/${id}/cashout`); // staff: their table's closed sheets
      }
    } catch (e) {
      failure = e.status === 401 ? "请先在 /dealer 登录 (log in on /dealer first)" : e.message;
    }
    render();
  });
})();
