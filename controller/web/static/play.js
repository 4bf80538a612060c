/* A player's phone at a table (/t/<table>?code=…): join a free seat with the session's
   join code (the display's QR code), as a guest (a name) or a member (?m=<personal link>),
   then see the seat, the dealer, the 精 and the session's totals; nothing concealed is
   ever sent here. Everything through /api/v1/play (docs/play.md); text goes in as text. */
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const { el } = MJ;
  const TXT = {
    zh: { brand: "入座", pick_seat: "选择座位", free: "空位", guest_name: "您的名字", join: "入座",
      member_join: "会员入座", your_seat: "您的座位", dealer_is: "庄家", totals: "本场累计", leave: "离座",
      no_code: "请扫描桌上屏幕的二维码入座", hand_n: "第{n}局", seat_n: "{n}号位", you: "（您）",
      no_hand: "等待开局", left: "已离座", staff_called: "{why}：已请工作人员处理，请稍候" },
    en: { brand: "Join", pick_seat: "Pick a seat", free: "free", guest_name: "Your name", join: "Sit down",
      member_join: "Sit down as a member", your_seat: "Your seat", dealer_is: "Dealer", totals: "Session totals",
      leave: "Leave the seat", no_code: "Scan the QR code on the table's screen to join", hand_n: "Hand {n}",
      seat_n: "Seat {n}", you: " (you)", no_hand: "Waiting for the hand", left: "You left the seat",
      staff_called: "{why}: staff are called, please wait" },
  };
  const T = MJ.words(TXT);
  const table = decodeURIComponent(location.pathname.split("/")[2] || "");
  const code = MJ.params.get("code") || "";
  const memberLink = MJ.params.get("m") || "";
  const seatName = (s) => T("seat_n", { n: s + 1 });
  const extra = []; // later parts of the page (the dealer's, the claims'): each (me) => node | null
  let last = null;
  let timer = null;

  function errorBox(id) { return el("div", { class: "error", id, role: "alert" }); }

  async function showJoin() {
    const main = $("main");
    if (!code) { main.replaceChildren(el("div", { class: "panel", id: "no-code" }, T("no_code"))); return; }
    let seats = [null, null, null, null];
    try { seats = (await MJ.api("/api/v1/play/seats")).seats; } catch { /* shown on join */ }
    const name = el("input", { id: "guest-name", name: "name", maxlength: "32", autocomplete: "nickname" });
    const error = errorBox("join-error");
    const buttons = [0, 1, 2, 3].map((s) => {
      const taken = typeof seats[s] === "string";
      const b = el("button", { class: "btn primary seat-pick", type: "button", id: `seat-${s}`, "data-seat": String(s) },
        `${seatName(s)} · ${taken ? MJ.str(seats[s], 32) : T("free")}`);
      b.disabled = taken;
      b.addEventListener("click", () => join(s, name.value.trim(), error));
      return b;
    });
    const who = memberLink ? el("p", { class: "muted" }, T("member_join"))
      : el("label", null, T("guest_name"), " ", name);
    main.replaceChildren(el("div", { class: "panel", id: "join" }, el("h2", null, T("pick_seat")), who,
      el("div", { class: "seat-picks" }, buttons), error));
  }

  async function join(seat, name, error) {
    error.textContent = "";
    const body = memberLink ? { table, code, member_link: memberLink } : { table, code, name };
    try {
      await MJ.api(`/api/v1/play/seats/${seat}/join`, { body });
      history.replaceState(null, "", location.pathname); // the code is not needed any more
      await refresh();
    } catch (e) { error.textContent = e.message; }
  }

  function seatPanel(me) {
    const hand = me.hand_no ? T("hand_n", { n: me.hand_no }) : T("no_hand");
    const jing = me.jing || {};
    const jingRow = jing.zheng ? el("div", { class: "kv", id: "jing" }, el("span", null, MJ.t("zheng")), MJ.tile(jing.zheng),
      el("span", null, MJ.t("fu")), MJ.tile(jing.fu)) : el("div", { class: "kv muted", id: "jing" }, MJ.t("no_jing"));
    const totals = Array.isArray(me.totals) ? me.totals : [];
    const rows = [0, 1, 2, 3].map((s) => el("tr", { class: s === me.seat ? "mine" : "" },
      el("td", null, seatName(s) + (s === me.seat ? T("you") : "") + (typeof me.seats[s] === "string" ? " " + MJ.str(me.seats[s], 32) : "")),
      el("td", { class: "num" }, MJ.fmtNum(totals[s] || 0) || "0")));
    const leave = el("button", { class: "btn", type: "button", id: "leave" }, T("leave"));
    leave.addEventListener("click", async () => { await MJ.api("/api/v1/play/leave", { body: {} }).catch(() => null); stop(); $("main").replaceChildren(el("div", { class: "panel" }, T("left"))); });
    return el("div", { class: "panel", id: "seat" },
      el("h2", null, el("span", { id: "my-seat" }, `${T("your_seat")}：${seatName(me.seat)}`), " ", el("span", { id: "my-name" }, MJ.str(me.name, 32))),
      el("div", { class: "kv" }, el("span", null, hand), el("span", { id: "dealer" }, `${T("dealer_is")}：${me.dealer === null || me.dealer === undefined ? "—" : seatName(me.dealer)}`)),
      jingRow, el("table", { class: "grid-table", id: "totals" }, el("caption", null, T("totals")), rows), leave);
  }

  const lookMe = MJ.newest(() => MJ.api("/api/v1/play/me"));

  async function refresh() {
    let me;
    try { me = await lookMe(); } catch (e) {
      if (e.status === 401) { stop(); last = null; await showJoin(); }
      return;
    }
    if (me === MJ.STALE) return; // a later look came first: it is on the screen
    last = me;
    // the hand waits for staff (a dispute, no answer in time): every phone says so
    const called = me.staff_called ? el("div", { class: "panel error", id: "staff-called", role: "status" },
      T("staff_called", { why: MJ.str(MJ.inLang(me.staff_called), 80) })) : null;
    const parts = [seatPanel(me), called, ...extra.flatMap((f) => f(me))].filter(Boolean);
    const focused = document.activeElement && document.activeElement.id;
    if (focused && $(focused) && ["INPUT", "SELECT"].includes($(focused).tagName)) return; // in use: leave it be
    MJ.place($("main"), parts);
    if (!timer) timer = setInterval(refresh, 1500);
  }

  function stop() { if (timer) clearInterval(timer); timer = null; }

  window.MJPlay = { extra, refresh, seatName, T, errorBox, current: () => last };
  $("brand").textContent = `${T("brand")} · ${table}`;
  MJ.langToggle($("lang"));
  refresh();
})();
