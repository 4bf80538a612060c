/* The owners' pages: login, tables, a table's hand log (filters, exports, totals and charts)
   and a finished hand's replay, step by step with all four hands. Hash routes:
   #/  #/t/<table>?<filters>  #/h/<hand>  #/members (members' records, links, leaderboards)
   #/f/<table>?<filters> (the fairness report)  #/terms (the cash-out terms; staff: read only)  */
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const TXT = { // this page's own words (MJ.words; the shared ones are common.js's)
    zh: {
      brand: "牌局记录", login: "登录", totals_n: "累计 · 共{n}局", list_sep: "、", tables: "牌桌", table: "牌桌", status: "状态", hands: "局数",
      open: "进行中", sessions: "场次", last: "最近", online: "在线", offline: "离线",
      unknown: "未知", filter: "筛选", from: "从", to: "到", date_hint: "年-月-日", ruleset: "规则", seat: "座位",
      house_played: "店规 {name}（第 {v} 版）",
      result: "结果", any: "全部", export_csv: "导出 CSV", export_json: "导出 JSON",
      cashout_sheet: "结算单", started: "开始", ended: "结束", session_players: "会员", session_of_day: "{d} 第{n}场",
      totals: "累计", time: "时间", no: "局", dealer: "庄", winner: "胡家", net: "输赢",
      replay: "回放", more: "更多", settlement: "结算", reason: "项目", payer: "付",
      payee: "收", amount: "分", step: "第 {i} / {n} 步", play: "播放", pause: "暂停",
      not_finished: "此局尚未结束：只显示公开信息（不显示手牌）。", check_ok: "结算已复核",
      check_bad: "结算不一致：", hand: "手牌", melds: "副露", discards: "弃牌", wall: "余牌",
      win: "胡", self_draw: "自摸", draw: "流局", void: "作废", by_staff: "工作人员", by_owner: "老板", staff_entered: "工作人员录入", finished: "已结束", aborted: "已中止",
      no_hands: "没有符合条件的牌局", status_f: "状态", error: "出错了",
      members: "会员战绩", member: "会员", wins: "胡牌", self_draws: "自摸", deguo: "德国",
      jingdiao: "精吊", chongguan: "冲关", big_hands: "大牌", link: "个人链接", new_link: "生成链接",
      revoke: "撤销链接", seat_acts: "入座记录", guest: "客人", leaderboards: "排行榜", leaderboards_on: "开启排行榜", no_members: "还没有会员的牌局",
      fairness: "公平性报告", dice_ok: "骰子已验证：每一掷都来自开局前承诺的种子",
      dice_failed: "骰子验证失败：", dice_unverified: "此局没有骰子承诺，无法验证",
      dice_flag_failed: "骰子验证失败", dice_flag_unverified: "骰子未验证",
      test: "检验", sample: "样本", p_value: "p 值", flagged: "异常", none_flagged: "未发现异常",
      some_flagged: "有异常：请查看此桌", alpha_note: "误报率 {a}（Bonferroni：每项 {e}）",
      t_faces: "骰子点数", t_sums: "两骰之和", t_seat_wins: "各位胡牌", t_dealer_streak: "最长连庄",
      dealer_rate: "庄家胡牌率", flips: "翻精位置", flips_note: "精从牌墙第几张翻出，各位置的次数；公平的牌桌各位置大致均匀", flip_at: "第{p}张×{n}", rolls: "掷骰次数",
      terms: "结算条款", point_value: "每分金额（1 分 = ?）", currency: "货币", table_fee: "台费",
      fee_per: "台费计法", fee_none: "不收台费", cutoff: "每日结算时间", save: "保存", saved: "已保存",
      saving: "保存中…", fee_missing: "table_fee: 请填写台费金额（或选“不收台费”）",
      changed_by: "最近修改：{by} · {at}", never_changed: "还没有人设置过（默认：只计分，不收台费，不自动结算）",
      terms_hint: "每分金额留空：只计分。结算时间留空：只由员工结束牌局。时间为本机当地时间（时:分）。",
      read_only: "只有老板可以修改结算条款。",
      terms_at_table: "结算条款是每张牌桌自己的：每张牌桌按它计算本桌的结算金额。请在该牌桌的老板页面设置；总台不设结算条款。",
    },
    en: {
      brand: "Hand logs", login: "Log in", totals_n: "Totals · {n} hands", list_sep: ", ", tables: "Tables", table: "Table", status: "Status",
      hands: "Hands", open: "In play", sessions: "Sessions", last: "Last", online: "online",
      offline: "offline", unknown: "unknown", filter: "Filter", from: "From", to: "To", date_hint: "yyyy-mm-dd",
      ruleset: "Ruleset", seat: "Seat", result: "Result", any: "any", export_csv: "Export CSV",
      house_played: "house rules {name} (version {v})",
      export_json: "Export JSON", totals: "Totals", time: "Time", no: "No.", dealer: "Dealer",
      cashout_sheet: "Cash-out", started: "Started", ended: "Ended", session_players: "Members", session_of_day: "{d}, session {n}",
      winner: "Winner", net: "Net", replay: "Replay", more: "More", settlement: "Settlement",
      reason: "Reason", payer: "Pays", payee: "Gets", amount: "Pts", step: "Step {i} / {n}",
      play: "Play", pause: "Pause",
      not_finished: "This hand is not finished: public information only (no hands shown).",
      check_ok: "Settlement re-checked", check_bad: "Settlement differs: ", hand: "Hand",
      melds: "Melds", discards: "Discards", wall: "Wall", win: "wins", self_draw: "self-draw",
      draw: "draw", void: "void", by_staff: "staff", by_owner: "owner", staff_entered: "entered by staff", finished: "finished", aborted: "aborted", no_hands: "No hands match",
      status_f: "Status", error: "Error",
      members: "Members' records", member: "Member", wins: "Wins", self_draws: "Self-draws",
      deguo: "德国", jingdiao: "精吊", chongguan: "冲关", big_hands: "Big hands", link: "Personal link",
      new_link: "New link", revoke: "Revoke", seat_acts: "Seat acts", guest: "Guest", leaderboards: "Leaderboards", leaderboards_on: "Leaderboards on",
      no_members: "No member has played yet",
      fairness: "Fairness report", dice_ok: "Dice verified: every roll derives from the seed committed before the walls",
      dice_failed: "Dice check FAILED: ", dice_unverified: "No dice commitment in this hand: its rolls cannot be checked",
      dice_flag_failed: "dice check failed", dice_flag_unverified: "dice unverified",
      test: "Test", sample: "n", p_value: "p", flagged: "Flagged", none_flagged: "Nothing flagged",
      some_flagged: "Flagged: look at this table", alpha_note: "false-alarm rate {a} (Bonferroni: {e} each)",
      t_faces: "Dice faces", t_sums: "Sums of two dice", t_seat_wins: "Wins per seat", t_dealer_streak: "Longest dealer streak",
      dealer_rate: "Dealer win rate", flips: "精 positions", flips_note: "where in the wall the 精 was turned up, and how often; a fair table spreads them evenly", flip_at: "#{p}×{n}", rolls: "Rolls",
      terms: "Cash-out terms", point_value: "Point value (1 pt = ?)", currency: "Currency", table_fee: "Table fee",
      fee_per: "Fee per", fee_none: "no fee", cutoff: "Daily cut-off", save: "Save", saved: "Saved",
      saving: "Saving…", fee_missing: "table_fee: give the fee's amount (or choose “no fee”)",
      changed_by: "Last changed by {by} · {at}", never_changed: "Nobody has set them yet (the default: points only, no fee, no cut-off)",
      terms_hint: "Point value empty: points only. Cut-off empty: only staff close sessions. The cut-off is the table's local time (HH:MM).",
      read_only: "Only an owner may change the cash-out terms.",
      terms_at_table: "The cash-out terms are each table's own: each table counts its sessions' money with them. Set them on that table's owners' page; the parlour's hub holds none.",
    },
  };
  const T = MJ.words(TXT);
  const { el } = MJ;
  const api = (path, options) => MJ.api(path, options);
  let replayTimer = null;

  /** The page's main part: these nodes (null: nothing), built with MJ.el (text, never markup). */
  const page = (...nodes) => $("main").replaceChildren(...nodes.flat(Infinity).filter((n) => n !== null && n !== undefined));
  const crumbs = (...parts) => el("div", { class: "crumbs" }, parts.map((p, i) => (i ? [" › ", p] : p)));
  const tablesLink = () => el("a", { href: "#/" }, T("tables"));

  // Where the page is served: a table, or the parlour's hub (asked once a page load)
  let place = null;
  async function here() {
    if (!place) {
      try { place = await api("/api/v1/public/table"); } catch { return {}; }
    }
    return place && typeof place === "object" ? place : {};
  }
  const onHub = async () => (await here()).hub === true;

  /** A session as people name it: the day it started and which of that day's it was
      ("12月6日 第2场"), never its id (kept in the row's title for support). */
  function sessionNames(sessions) {
    const day = (iso) => new Date(iso).toLocaleDateString(MJ.lang() === "zh" ? "zh-CN" : "en-GB", { month: "long", day: "numeric" });
    const out = new Map(), seen = new Map();
    for (const s of [...sessions].sort((a, b) => String(a.started_at).localeCompare(String(b.started_at)))) {
      const d = day(s.started_at), n = (seen.get(d) || 0) + 1;
      seen.set(d, n);
      out.set(s.id, T("session_of_day", { d, n }));
    }
    return out;
  }

  const when = MJ.when;
  const sign = (n) => (n > 0 ? "pos" : n < 0 ? "neg" : "");
  const numCell = (n) => el("td", { class: `num ${sign(n)}` }, n === null || n === undefined ? "" : MJ.fmtNum(n) || "0");
  const seatLabel = (s) => (s === null || s === undefined ? "" : MJ.seatName(s, null, [])); // "3号位", never a name
  /** Who sat where in a hand (members' names; null: a guest), for MJ.seatName. */
  const namesOf = (h) => (Array.isArray(h && h.players) ? [0, 1, 2, 3].map((s) => (h.players[s] && typeof h.players[s].name === "string" ? h.players[s].name : null)) : null);
  /** A hand's seat: the member's name where one sat. */
  const handSeat = (h, s) => (s === null || s === undefined ? "" : MJ.seatName(s, null, namesOf(h)));
  const head = (...cells) => el("thead", null, el("tr", null, cells));
  const th = (text, cls) => el("th", { class: cls }, text);

  function nets(values, label) {
    return el("div", { class: "nets-light" }, values.map((n, s) =>
      el("div", { class: sign(n) || null }, el("span", null, label(s)), el("b", null, MJ.fmtNum(n) || "0"))));
  }

  function showLogin(message = "") {
    stopReplay();
    $("logout").hidden = true;
    $("who").textContent = "";
    page(MJ.loginForm("login", { title: T("login"), heading: el("h1", null, T("login")), cls: "panel login", message, done: route }));
  }

  async function showTables() {
    const [tables, hub, house] = await Promise.all([api("/api/v1/tables"), onHub(), MJ.houseRules.tableInfo()]);
    page(el("h1", null, T("tables")),
      el("p", null, el("a", { class: "btn", id: "members-link", href: "#/members" }, T("members")),
        // (the hub holds no cash-out terms: each table its own)
        hub ? null : [" ", el("a", { class: "btn", id: "terms-link", href: "#/terms" }, T("terms"))],
        " ", el("a", { class: "btn", id: "house-link", href: "#/house" }, MJ.houseRules.title())),
      el("div", { class: "panel" }, el("table", { class: "grid-table", id: "tables" },
        head(...["table", "status", "hands", "open", "sessions", "last"].map((k) => th(T(k))), MJ.houseRules.tableHeads()),
        el("tbody", null, tables.map((t) => el("tr", null,
          el("td", null, el("a", { href: `#/t/${encodeURIComponent(t.table_id)}` }, `${t.parlour ? t.parlour + " · " : ""}${t.table_id}`)),
          el("td", null, el("span", { class: `status-dot ${t.status}` }), T(t.status),
            t.current ? ` · ${MJ.t("hand_no", { n: t.current.hand_no })} ${MJ.t("phase_" + t.current.phase)}` : ""),
          el("td", { class: "num" }, t.hands), el("td", { class: "num" }, t.open_hands),
          el("td", { class: "num" }, t.sessions), el("td", null, when(t.last_seen)),
          MJ.houseRules.tableCells(house, t.table_id)))))));
  }

  function filterQuery(form) {
    const q = new URLSearchParams();
    const v = (n) => form.elements[n].value.trim();
    if (v("from")) q.set("since", v("from"));
    if (v("to")) { const d = new Date(v("to") + "T00:00:00"); d.setDate(d.getDate() + 1); q.set("until", `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`); }
    for (const n of ["ruleset", "seat", "result", "status"]) if (v(n)) q.set(n, v(n));
    return q;
  }

  async function showTable(tableId, query) {
    const base = `/api/v1/tables/${encodeURIComponent(tableId)}`;
    const q = new URLSearchParams(query);
    const sel = (name, options) => el("select", { name }, el("option", { value: "" }, T("any")),
      options.map(([v, l]) => el("option", { value: v, selected: q.get(name) === String(v) }, l)));
    const toValue = q.get("until") ? (() => { const d = new Date(q.get("until") + "T00:00:00"); d.setDate(d.getDate() - 1); return d.toISOString().slice(0, 10); })() : "";
    // Dates as text in ISO order: a date input follows the browser's locale (mm/dd/yyyy in
    // the Chinese page), whatever the page's language.
    const date = (name, value) => el("input", { name, inputmode: "numeric", size: 10, pattern: "\\d{4}-\\d{2}-\\d{2}",
      placeholder: T("date_hint"), value });
    const label = (text, input) => el("label", null, text, input);
    page(crumbs(tablesLink(), tableId),
      el("h1", null, `${T("table")} ${tableId}`),
      el("form", { class: "panel filters", id: "filters" },
        label(T("from"), date("from", (q.get("since") || "").slice(0, 10))),
        label(T("to"), date("to", toValue)),
        label(T("ruleset"), el("input", { name: "ruleset", size: 10, value: q.get("ruleset") || "" })),
        label(T("seat"), sel("seat", [0, 1, 2, 3].map((s) => [s, seatLabel(s)]))),
        label(T("result"), sel("result", [["win", T("win")], ["self_draw", T("self_draw")], ["draw", T("draw")], ["void", T("void")]])),
        label(T("status_f"), sel("status", [["finished", T("finished")], ["open", T("open")], ["aborted", T("aborted")]])),
        el("button", { class: "btn primary", type: "submit" }, T("filter")),
        el("a", { class: "btn", id: "export-csv", href: `${base}/export.csv?${q}` }, T("export_csv")),
        el("a", { class: "btn", id: "export-json", href: `${base}/export.json?${q}` }, T("export_json")),
        el("a", { class: "btn", id: "fairness-link", href: `#/f/${encodeURIComponent(tableId)}?${q}` }, T("fairness"))),
      el("div", { class: "panel", id: "totals" }),
      el("div", { class: "panel" }, el("table", { class: "grid-table", id: "sessions" },
        head(th(T("sessions")), th(T("started")), th(T("ended")), th(T("session_players")), th("")), el("tbody"))),
      el("div", { class: "panel" }, el("table", { class: "grid-table", id: "hands" },
        head(th(T("time")), th(T("no")), th(T("ruleset")), th(T("dealer")), th(T("result")), th(T("winner")),
          [0, 1, 2, 3].map((s) => th(seatLabel(s), "num")), th("")), el("tbody")),
      el("button", { class: "btn", id: "more", type: "button", hidden: true }, T("more"))));
    $("filters").addEventListener("submit", (e) => {
      e.preventDefault();
      location.hash = `#/t/${encodeURIComponent(tableId)}?${filterQuery(e.target)}`;
    });
    const totalsQ = new URLSearchParams(q); totalsQ.delete("status");
    const totals = await api(`${base}/totals?${totalsQ}`);
    $("totals").replaceChildren(
      el("h2", null, T("totals_n", { n: totals.hands })),
      nets(totals.seats, (s) => seatLabel(s)),
      el("div", { class: "charts" }, ["seats", "days"].map((c) =>
        el("img", { alt: c, src: `${base}/charts/${c}.svg?${totalsQ}&lang=${MJ.lang()}` }))));
    // each session's cash-out, printable (/cashout?session=…)
    const sessions = await api(`${base}/sessions?limit=20`);
    const names = sessionNames(sessions);
    $("sessions").tBodies[0].replaceChildren(...sessions.map((s) => el("tr", { "data-session": s.id },
      el("td", { class: "session-name", title: s.id }, names.get(s.id)), el("td", null, when(s.started_at)),
      el("td", null, s.ended_at ? when(s.ended_at) : T("open")),
      el("td", { class: "session-players" }, (Array.isArray(s.players) ? s.players : [])
        .map((p) => (p && typeof p.name === "string" ? p.name : "")).join(T("list_sep"))),
      el("td", null, el("a", { href: `/cashout?session=${encodeURIComponent(s.id)}`, target: "_blank" }, T("cashout_sheet"))))));
    let offset = 0;
    const more = async () => {
      const rows = await api(`${base}/hands?${q}&limit=100&offset=${offset}`);
      offset += rows.length;
      const body = $("hands").tBodies[0];
      if (!rows.length && offset === 0) body.replaceChildren(el("tr", null, el("td", { colspan: 11, class: "muted" }, T("no_hands"))));
      body.append(...rows.map(handRow));
      $("more").hidden = rows.length < 100;
    };
    $("more").addEventListener("click", more);
    await more();
  }

  /** The rules a hand was played under: the owners' house ruleset by its name, else the
      ruleset's id. */
  const rulesOf = (h) => (h.house && typeof h.house === "object"
    ? `${T("house_played", { name: MJ.str(h.house.name, 64), v: h.house.version })} · ${h.ruleset ?? ""}` : h.ruleset ?? "");

  function handRow(h) {
    const flag = h.dice_check === "failed"
      ? el("span", { class: "neg dice-flag", title: h.dice_problem || "" }, `⚠ ${T("dice_flag_failed")}`)
      : h.dice_check === "unverified" ? el("span", { class: "muted dice-flag" }, T("dice_flag_unverified")) : null;
    return el("tr", { "data-hand": h.id },
      el("td", null, when(h.started_at)), el("td", { class: "num" }, h.hand_no), el("td", { class: "hand-rules" }, rulesOf(h)),
      el("td", null, handSeat(h, h.dealer)),
      el("td", null, h.voided ? T("void") : h.status === "finished" ? T(h.result) || h.result : T(h.status), flag ? [" ", flag] : null,
        h.voided && typeof h.voided === "object" ? el("span", { class: "muted void-by" },
          ` · ${byWords(`${h.voided.role}:${h.voided.by}`)}${h.voided.reason ? "：" + MJ.str(h.voided.reason, 500) : ""}`) : null,
        h.entered_by_staff === true ? el("span", { class: "muted staff-entered" }, ` · ${T("staff_entered")}`) : null),
      el("td", null, handSeat(h, h.winner)),
      (h.net || [null, null, null, null]).map(numCell),
      el("td", null, el("a", { href: `#/h/${encodeURIComponent(h.id)}` }, T("replay"))));
  }

  function diceCheck(d) {
    if (!d) return null;
    const notes = d.notes.map((n) => el("li", { class: "muted" }, n));
    if (d.verdict === "ok") {
      return el("div", { id: "dice-check", "data-verdict": "ok" },
        el("p", { class: "muted" }, `${T("dice_ok")} (${d.rolls})`), el("ul", null, notes));
    }
    if (d.verdict === "unverified") {
      return el("div", { id: "dice-check", "data-verdict": "unverified" }, el("p", { class: "notice" }, T("dice_unverified")));
    }
    return el("div", { id: "dice-check", "data-verdict": "failed" }, el("p", { class: "notice error" }, T("dice_failed")),
      el("ul", null, d.problems.map((p) => el("li", null, p)), notes));
  }

  async function showFairness(tableId, query) {
    const base = `/api/v1/tables/${encodeURIComponent(tableId)}`;
    const q = new URLSearchParams(query); q.delete("status");
    const r = await api(`${base}/fairness?${q}`);
    const pct = (x) => (x === null || x === undefined ? "" : `${(100 * x).toFixed(1)}%`);
    const pv = (p) => (p === null || p === undefined ? "" : p < 0.0001 ? p.toExponential(1) : p.toFixed(4));
    const charts = ["faces", "sums", "seats", "streaks"].map((c) => el("img", { alt: c, src: `${base}/fairness/${c}.svg?${q}&lang=${MJ.lang()}` }));
    const flips = Object.entries(r.flip_positions).flatMap(([k, v], i) => [i ? " " : "",
      el("span", { class: "flip", "data-position": k }, T("flip_at", { p: Number(k) + 1, n: v }))]);
    page(crumbs(tablesLink(), el("a", { href: `#/t/${encodeURIComponent(tableId)}?${q}` }, tableId), T("fairness")),
      el("h1", null, `${T("fairness")} · ${tableId}`),
      el("div", { class: "panel", id: "fairness-summary" },
        el("p", { class: r.flagged ? "notice error" : "muted", id: "fairness-verdict" },
          `${r.flagged ? T("some_flagged") : T("none_flagged")} · ${T("alpha_note", { a: r.alpha, e: r.alpha_each })}`),
        el("p", null, `${T("hands")} ${r.hands} · ${T("rolls")} ${r.rolls} · ${T("dealer_rate")} ${pct(r.dealer_win_rate)} (${r.dealer_wins}/${r.hands}) · ${T("flips")} ${r.flips}`),
        el("a", { class: "btn", id: "fairness-csv", href: `${base}/fairness.csv?${q}` }, T("export_csv"))),
      el("div", { class: "panel" }, el("table", { class: "grid-table", id: "fairness-tests" },
        head(th(T("test")), th(T("sample"), "num"), th("χ²", "num"), th(T("p_value"), "num"), th(T("flagged")), th("")),
        el("tbody", null, r.tests.map((t) => el("tr", { "data-test": t.name },
          el("td", null, T("t_" + t.name)), el("td", { class: "num" }, t.n),
          el("td", { class: "num" }, t.statistic === null ? "" : t.statistic.toFixed(2)),
          el("td", { class: "num" }, pv(t.p)), el("td", null, t.flagged ? "⚠" : ""), el("td", { class: "muted" }, t.note)))))),
      el("div", { class: "panel" }, el("div", { class: "charts" }, charts), el("p", { class: "muted", id: "fairness-flips" }, `${T("flips")}（${T("flips_note")}）：`, flips.length ? flips : "—")));
  }

  function stopReplay() { clearInterval(replayTimer); replayTimer = null; }

  /** One step of a replay: the 精, the wall and the phase, then each seat. */
  function board(step, concealed, dealer, names) {
    const v = step.view;
    const j = v.jing || {};
    const jing = j.zheng
      ? [MJ.t("zheng"), " ", MJ.tile(j.zheng, "tile-m"), " ", MJ.t("fu"), " ", MJ.tile(j.fu, "tile-m"), j.an ? [" 暗精 ", MJ.tile(j.an, "tile-m")] : null]
      : j.caishen ? [MJ.t("caishen"), " ", MJ.tile(j.caishen, "tile-m")] : null;
    const wild = new Set([j.zheng, j.fu, j.caishen].filter(Boolean));
    const face = (x, cls) => MJ.tile(x, cls, { mark: wild.has(x) ? "zheng" : undefined });
    const seats = v.seats.map((s, i) => el("div", {
      class: `board-seat ${v.turn === i && ["turn", "draw", "replacement"].includes(v.phase) ? "is-turn" : ""}`, "data-seat": i },
    el("span", { class: "who" }, `${MJ.seatName(i, dealer, names)}${dealer === i ? " · " + T("dealer") : ""}`),
    el("span", { class: "muted" }, `${s.tiles} ${MJ.t("tiles")}`),
    concealed ? el("div", { class: "row hand-row" }, el("span", { class: "label" }, T("hand")), (s.hand || []).map((x) => face(x, "tile-m"))) : null,
    el("div", { class: "row" }, el("span", { class: "label" }, T("melds")), s.melds.map((m, k) => [k ? " " : null,
      el("span", { class: "meld" }, (m.tiles.length ? m.tiles : [null, null, null, null]).map((x) => MJ.tile(x, "tile-s", { hidden: x === null })))])),
    el("div", { class: "row" }, el("span", { class: "label" }, T("discards")), s.discards.map((x) => face(x, "tile-s")))));
    const live = v.live !== null && v.live !== undefined ? ` · ${T("wall")} ${v.live}` : "";
    return [el("div", { class: "row" }, jing, " ", el("span", { class: "muted" }, `${live} · ${MJ.t("phase_" + v.phase)}`)),
      el("div", { class: "board" }, seats)];
  }

  function settlement(st, dealer, names) {
    if (!st) return [];
    const who = (s) => MJ.seatName(s, dealer, names);
    return [el("h2", null, T("settlement")), nets(st.net, who),
      el("table", { class: "grid-table", id: "settle-lines" },
        head(th(T("reason")), th(T("payer")), th(T("payee")), th(T("amount"), "num")),
        el("tbody", null, (st.lines || []).map((l) => el("tr", null, el("td", null, l.reason), el("td", null, who(l.from)),
          el("td", null, who(l.to)), el("td", { class: "num" }, l.amount)))))];
  }

  const COUNTS = ["hands", "wins", "self_draws", "deguo", "jingdiao", "chongguan", "big_hands"];

  /** Every member's record (the hub counts them across tables), the CSV, the leaderboards'
      switch, and each member's personal link (made or revoked here; shown once). */
  async function showMembers() {
    const records = await api("/api/v1/records/members");
    let boards = null;
    try { boards = await api("/api/v1/records/leaderboards?by=net"); } catch { boards = null; }
    const row = (r) => el("tr", { "data-member": r.member_id }, el("td", null, r.name),
      COUNTS.map((k) => el("td", { class: "num" }, Number(r[k]) || 0)), numCell(r.net),
      el("td", null, el("button", { class: "btn", type: "button", "data-link": r.member_id }, T("new_link")), " ",
        el("button", { class: "btn", type: "button", "data-revoke": r.member_id }, T("revoke")), " ",
        el("span", { class: "link-url" })));
    page(crumbs(tablesLink(), T("members")),
      el("h1", null, T("members")),
      el("div", { class: "panel row" }, el("a", { class: "btn", id: "members-csv", href: "/api/v1/records/members.csv" }, T("export_csv")), " ",
        el("label", { class: "check" }, el("input", { type: "checkbox", id: "boards-on", checked: !!boards }), ` ${T("leaderboards_on")}`), " ",
        el("span", { class: "error", id: "members-error" })),
      el("div", { class: "panel" }, el("table", { class: "grid-table", id: "records" },
        head(th(T("member")), COUNTS.map((k) => th(T(k), "num")), th(T("net"), "num"), th(T("link"))),
        el("tbody", null, records.length ? records.map(row) : el("tr", null, el("td", { colspan: 10, class: "muted" }, T("no_members")))))),
      boards ? el("div", { class: "panel" }, el("h2", null, T("leaderboards")),
        el("ol", { id: "board" }, boards.map((b) => el("li", null, `${b.name} ${MJ.fmtNum(b.value) || "0"}`)))) : null);
    $("boards-on").addEventListener("change", async (e) => {
      try {
        await api("/api/v1/owner/leaderboards", { method: "PUT", body: { enabled: e.target.checked } });
        showMembers();
      } catch (err) { $("members-error").textContent = err.message; }
    });
    $("records").addEventListener("click", async (e) => {
      const make = e.target.closest("[data-link]"), drop = e.target.closest("[data-revoke]");
      if (!make && !drop) return;
      const id = (make || drop).dataset.link || (make || drop).dataset.revoke;
      const out = e.target.closest("tr").querySelector(".link-url");
      try {
        if (make) {
          const r = await api(`/api/v1/records/by-id/${encodeURIComponent(id)}/link`, { method: "POST" });
          out.textContent = new URL(r.url, location.href).href; // shown once: only its hash is kept
        } else {
          await api(`/api/v1/records/by-id/${encodeURIComponent(id)}/link/revocation`, { method: "POST" });
          out.textContent = "";
        }
      } catch (err) { out.textContent = err.message; }
    });
  }

  /** The cash-out terms (docs/players.md, "Cash-out"): what a point is worth, the table fee
      and what it is per, the daily cut-off. Owners change them; staff see them (the API's
      own rule). The API judges every value: its message shows as text, and a refused
      change stores nothing. The hub has none to show (the API refuses them there). */
  async function showTerms(me) {
    if (await onHub()) {
      page(crumbs(tablesLink(), T("terms")), el("h1", null, T("terms")),
        el("p", { class: "panel muted", id: "terms-at-table" }, T("terms_at_table")));
      return;
    }
    const owner = me.role === "owner";
    const terms = await api("/api/v1/staff/cashout-terms");
    const fees = [["", T("fee_none")], ...["hand", "hour", "session"].map((p) => [p, MJ.t("fee_" + p)])];
    const ro = !owner;
    page(crumbs(tablesLink(), T("terms")), el("h1", null, T("terms")),
      el("form", { class: "panel filters", id: "terms-form", novalidate: true },
        el("label", null, T("point_value"), el("input", { id: "terms-point", inputmode: "decimal", size: 10, disabled: ro })),
        el("label", null, T("currency"), el("input", { id: "terms-currency", size: 4, maxlength: 8, disabled: ro })),
        el("label", null, T("table_fee"), el("input", { id: "terms-fee", inputmode: "decimal", size: 8, disabled: ro })),
        el("label", null, T("fee_per"), el("select", { id: "terms-fee-per", disabled: ro }, fees.map(([v, l]) => el("option", { value: v }, l)))),
        el("label", null, T("cutoff"), el("input", { id: "terms-cutoff", size: 6, placeholder: "06:00", disabled: ro })),
        owner ? el("button", { class: "btn primary", type: "submit", id: "terms-save" }, T("save")) : null,
        el("span", { class: "error", id: "terms-state", "data-state": "" })),
      el("p", { class: "muted", id: "terms-changed" }, owner ? "" : T("read_only")),
      el("p", { class: "muted" }, T("terms_hint")));
    const fill = (t) => {
      $("terms-point").value = t.point_value ?? "";
      $("terms-currency").value = t.currency ?? "";
      $("terms-fee").value = t.table_fee ?? "";
      $("terms-fee-per").value = t.table_fee === null || t.table_fee === undefined ? "" : t.fee_per;
      $("terms-cutoff").value = t.cutoff ?? "";
    };
    const state = (name, text) => {
      $("terms-state").dataset.state = name;
      $("terms-state").className = name === "failed" ? "error" : "muted";
      $("terms-state").textContent = text;
    };
    const changed = async () => {
      const c = await api("/api/v1/owner/cashout-terms/last-change");
      $("terms-changed").textContent = c.by ? T("changed_by", { by: c.by, at: when(c.at) }) : T("never_changed");
    };
    fill(terms);
    if (!owner) return;
    await changed();
    // A number as typed, else the text itself: the API names what is wrong with it.
    const number = (s) => (s.trim() === "" ? null : Number.isFinite(Number(s)) ? Number(s) : s.trim());
    $("terms-form").addEventListener("input", () => state("", ""));
    $("terms-form").addEventListener("submit", async (e) => {
      e.preventDefault();
      const per = $("terms-fee-per").value;
      const fee = per ? number($("terms-fee").value) : null;
      if (per && fee === null) { state("failed", T("fee_missing")); return; }
      const cutoff = $("terms-cutoff").value.trim();
      const body = {
        point_value: number($("terms-point").value), currency: $("terms-currency").value.trim() || "元",
        table_fee: fee, fee_per: per || terms.fee_per || "session", cutoff: cutoff || null,
      };
      const save = $("terms-save");
      state("saving", T("saving"));
      save.disabled = true;
      try {
        fill(await api("/api/v1/owner/cashout-terms", { method: "PUT", body }));
        state("saved", T("saved"));
        await changed();
      } catch (err) {
        if (err.status !== 401) state("failed", err.message); // (else: the login form)
      } finally {
        save.disabled = false;
      }
    });
  }

  /** Who did a seat act ("staff:ann") as people say it: 工作人员 ann / 老板 boss. */
  function byWords(by) {
    const [role, ...rest] = String(by ?? "").split(":");
    const name = MJ.str(rest.join(":"), 64);
    if (role === "staff" || role === "owner") return `${T(role === "staff" ? "by_staff" : "by_owner")} ${name}`;
    return MJ.str(by ?? "", 64);
  }

  async function showHand(handId) {
    const [detail, rp] = await Promise.all([
      api(`/api/v1/hands/${encodeURIComponent(handId)}`),
      api(`/api/v1/hands/${encodeURIComponent(handId)}/replay`),
    ]);
    const h = detail.hand;
    const dealer = h.dealer;
    const names = namesOf(h);
    const n = rp.steps.length;
    let i = 0;
    const button = (id, text) => el("button", { class: "btn", id, type: "button" }, text);
    const acts = Array.isArray(detail.seat_acts) ? detail.seat_acts.slice(0, 200) : [];
    page(crumbs(tablesLink(), el("a", { href: `#/t/${encodeURIComponent(detail.table_id)}` }, detail.table_id), MJ.t("hand_no", { n: h.hand_no })),
      el("h1", null, `${MJ.t("hand_no", { n: h.hand_no })} · ${rulesOf(h)} · ${when(h.started_at)}`),
      rp.concealed ? el("p", { class: "muted" }, rp.check ? T("check_bad") + rp.check : T("check_ok"))
        : el("p", { class: "notice", id: "public-only" }, T("not_finished")),
      diceCheck(rp.dice),
      el("div", { class: "panel" }, el("div", { class: "replay-controls" },
        button("first", "«"), button("prev", "◀"), button("play", T("play")), button("next", "▶"), button("last", "»"),
        el("input", { type: "range", id: "slider", min: 0, max: n - 1, value: 0 }), el("span", { id: "step-no" })),
      el("div", { class: "muted step-at", id: "step-at" }),
      el("div", { class: "step-text", id: "step-text" }), el("div", { id: "board" })),
      el("div", { class: "panel", id: "settlement" }, settlement(detail.settlement, dealer, names)),
      acts.length ? el("div", { class: "panel" }, el("h2", null, T("seat_acts")), el("ol", { id: "seat-acts" },
        acts.map((a) => el("li", null, `${when(a.at)} · ${seatLabel(a.seat)} · ${a.name || T("guest")} · ${byWords(a.by)}`)))) : null);
    const show = (k) => {
      i = Math.max(0, Math.min(n - 1, k));
      const step = rp.steps[i];
      $("slider").value = i;
      $("step-no").textContent = T("step", { i: i + 1, n });
      $("step-at").textContent = step.at ? when(step.at) : "";
      $("step-text").textContent = MJ.inLang(step.text);
      $("board").replaceChildren(...board(step, rp.concealed, dealer, names));
      document.body.dataset.step = String(i);
    };
    $("first").onclick = () => show(0);
    $("prev").onclick = () => show(i - 1);
    $("next").onclick = () => show(i + 1);
    $("last").onclick = () => show(n - 1);
    $("slider").oninput = (e) => show(Number(e.target.value));
    $("play").onclick = () => {
      if (replayTimer) { stopReplay(); $("play").textContent = T("play"); return; }
      $("play").textContent = T("pause");
      replayTimer = setInterval(() => { if (i >= n - 1) { stopReplay(); $("play").textContent = T("play"); } else show(i + 1); }, 700);
    };
    show(0);
  }

  async function route() {
    stopReplay();
    $("brand").textContent = T("brand");
    $("logout").textContent = T("logout");
    let me;
    try { me = await api("/api/v1/auth/me"); } catch { return; }
    $("who").textContent = me.name;
    $("logout").hidden = false;
    const hash = location.hash.replace(/^#/, "") || "/";
    const [path, query = ""] = hash.split("?");
    const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
    try {
      if (parts[0] === "t" && parts[1]) await showTable(parts[1], query);
      else if (parts[0] === "h" && parts[1]) await showHand(parts[1]);
      else if (parts[0] === "members") await showMembers();
      else if (parts[0] === "f" && parts[1]) await showFairness(parts[1], query);
      else if (parts[0] === "terms") await showTerms(me);
      else if (parts[0] === "house" && parts[1] === "edit") await MJ.houseRules.edit(page, query);
      else if (parts[0] === "house") await MJ.houseRules.list(page, onHub);
      else await showTables();
    } catch (err) {
      if (err.status !== 401) page(el("div", { class: "panel error" }, `${T("error")}: ${err.message}`)); // (else: the login form)
    }
  }

  MJ.onLoggedOut(() => showLogin());

  document.addEventListener("DOMContentLoaded", () => {
    MJ.applyI18n();
    MJ.langToggle($("lang"));
    $("logout").addEventListener("click", async () => {
      await MJ.logout();
      showLogin();
    });
    document.addEventListener("mj:lang", route);
    window.addEventListener("hashchange", route);
    route();
  });
})();
