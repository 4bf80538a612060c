/* The owners' pages: login, tables, a table's hand log (filters, exports, totals and charts)
   and a finished hand's replay, step by step with all four hands. Hash routes:
   #/  #/t/<table>?<filters>  #/h/<hand>  #/members (members' records, links, leaderboards)
   #/f/<table>?<filters> (the fairness report)  #/terms (the cash-out terms; staff: read only)  */
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const TXT = {
    zh: {
      brand: "牌局记录", login: "登录", name: "用户名", password: "密码", logout: "退出",
      wrong: "用户名或密码错误", tables: "牌桌", table: "牌桌", status: "状态", hands: "局数",
      open: "进行中", sessions: "场次", last: "最近", online: "在线", offline: "离线",
      unknown: "未知", filter: "筛选", from: "从", to: "到", date_hint: "年-月-日", ruleset: "规则", seat: "座位",
      result: "结果", any: "全部", export_csv: "导出 CSV", export_json: "导出 JSON",
      cashout_sheet: "结算单", started: "开始", ended: "结束", session_players: "会员", session_of_day: "{d} 第{n}场",
      totals: "累计", time: "时间", no: "局", dealer: "庄", winner: "胡家", net: "输赢",
      replay: "回放", more: "更多", settlement: "结算", reason: "项目", payer: "付",
      payee: "收", amount: "分", step: "第 {i} / {n} 步", play: "播放", pause: "暂停",
      not_finished: "此局尚未结束：只显示公开信息（不显示手牌）。", check_ok: "结算已复核",
      check_bad: "结算不一致：", hand: "手牌", melds: "副露", discards: "弃牌", wall: "余牌",
      win: "胡", self_draw: "自摸", draw: "流局", finished: "已结束", aborted: "已中止",
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
      brand: "Hand logs", login: "Log in", name: "Name", password: "Password", logout: "Log out",
      wrong: "Wrong name or password", tables: "Tables", table: "Table", status: "Status",
      hands: "Hands", open: "In play", sessions: "Sessions", last: "Last", online: "online",
      offline: "offline", unknown: "unknown", filter: "Filter", from: "From", to: "To", date_hint: "yyyy-mm-dd",
      ruleset: "Ruleset", seat: "Seat", result: "Result", any: "any", export_csv: "Export CSV",
      export_json: "Export JSON", totals: "Totals", time: "Time", no: "No.", dealer: "Dealer",
      cashout_sheet: "Cash-out", started: "Started", ended: "Ended", session_players: "Members", session_of_day: "{d}, session {n}",
      winner: "Winner", net: "Net", replay: "Replay", more: "More", settlement: "Settlement",
      reason: "Reason", payer: "Pays", payee: "Gets", amount: "Pts", step: "Step {i} / {n}",
      play: "Play", pause: "Pause",
      not_finished: "This hand is not finished: public information only (no hands shown).",
      check_ok: "Settlement re-checked", check_bad: "Settlement differs: ", hand: "Hand",
      melds: "Melds", discards: "Discards", wall: "Wall", win: "wins", self_draw: "self-draw",
      draw: "draw", finished: "finished", aborted: "aborted", no_hands: "No hands match",
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
  const T = (k, vars) => {
    let s = TXT[MJ.lang()][k] ?? TXT.zh[k] ?? MJ.t(k);
    if (vars) for (const [a, b] of Object.entries(vars)) s = s.replace(`{${a}}`, b);
    return s;
  };
  const esc = MJ.esc;
  let replayTimer = null;

  async function api(path, options) {
    const r = await fetch(path, { credentials: "same-origin", ...options });
    if (r.status === 401) { showLogin(); throw new Error("unauthorised"); }
    if (!r.ok) {
      let detail = r.statusText;
      try { detail = (await r.json()).detail; } catch { /* not JSON */ }
      throw new Error(detail);
    }
    return r.status === 204 ? null : r.json();
  }

  // Where the page is served: a table, or the parlour's hub (asked once a page load)
  let place = null;
  async function here() {
    if (!place) {
      try { place = await (await fetch("/api/v1/public/table")).json(); } catch { return {}; }
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

  const when = (iso) => (iso ? new Date(iso).toLocaleString(MJ.lang() === "zh" ? "zh-CN" : "en-GB") : "");
  const numCell = (n) => `<td class="num ${n > 0 ? "pos" : n < 0 ? "neg" : ""}">${n === null || n === undefined ? "" : MJ.fmtNum(n) || "0"}</td>`;
  const seatLabel = (s) => (s === null || s === undefined ? "" : MJ.lang() === "zh" ? `${s + 1}号位` : `Seat ${s + 1}`);
  /** Who sat where in a hand (members' names; null: a guest), for MJ.seatName. */
  const namesOf = (h) => (Array.isArray(h && h.players) ? [0, 1, 2, 3].map((s) => (h.players[s] && typeof h.players[s].name === "string" ? h.players[s].name : null)) : null);
  /** A hand's seat as HTML-safe text: the member's name where one sat. */
  const handSeat = (h, s) => (s === null || s === undefined ? "" : esc(MJ.seatName(s, null, namesOf(h))));

  function netsHtml(nets, label) {
    return `<div class="nets-light">${nets.map((n, s) => `<div class="${n > 0 ? "pos" : n < 0 ? "neg" : ""}"><span>${label(s)}</span><b>${MJ.fmtNum(n) || "0"}</b></div>`).join("")}</div>`;
  }

  function showLogin(message = "") {
    stopReplay();
    $("logout").hidden = true;
    $("who").textContent = "";
    $("main").innerHTML = `<form class="panel login" id="login-form">
        <h1>${T("login")}</h1>
        <label>${T("name")}<input name="name" id="login-name" autocomplete="username" required></label>
        <label>${T("password")}<input name="password" id="login-password" type="password" autocomplete="current-password" required></label>
        <div class="error" id="login-error">${esc(message)}</div>
        <button class="btn primary" type="submit" id="login-submit">${T("login")}</button></form>`;
    $("login-form").addEventListener("submit", async (e) => {
      e.preventDefault();
      const body = JSON.stringify({ name: $("login-name").value, password: $("login-password").value });
      const r = await fetch("/api/v1/auth/login", { method: "POST", headers: { "Content-Type": "application/json" }, body });
      if (r.ok) { route(); return; }
      let detail = T("wrong");
      if (r.status === 429) { try { detail = (await r.json()).detail; } catch { /* keep */ } }
      $("login-error").textContent = detail;
    });
  }

  async function showTables() {
    const [tables, hub] = await Promise.all([api("/api/v1/tables"), onHub()]);
    // (the hub holds no cash-out terms: each table its own)
    const terms = hub ? "" : ` <a class="btn" id="terms-link" href="#/terms">${T("terms")}</a>`;
    $("main").innerHTML = `<h1>${T("tables")}</h1><p><a class="btn" id="members-link" href="#/members">${T("members")}</a>${terms}</p><div class="panel"><table class="grid-table" id="tables">
      <thead><tr><th>${T("table")}</th><th>${T("status")}</th><th>${T("hands")}</th><th>${T("open")}</th><th>${T("sessions")}</th><th>${T("last")}</th></tr></thead><tbody>${
        tables.map((t) => `<tr><td><a href="#/t/${encodeURIComponent(t.table_id)}">${esc(t.parlour ? t.parlour + " · " : "")}${esc(t.table_id)}</a></td>
          <td><span class="status-dot ${t.status}"></span>${T(t.status)}${t.current ? ` · ${MJ.t("hand_no", { n: t.current.hand_no })} ${MJ.t("phase_" + t.current.phase)}` : ""}</td>
          <td class="num">${t.hands}</td><td class="num">${t.open_hands}</td><td class="num">${t.sessions}</td><td>${when(t.last_seen)}</td></tr>`).join("")
      }</tbody></table></div>`;
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
    const sel = (name, options) => `<select name="${name}"><option value="">${T("any")}</option>${options.map(([v, l]) => `<option value="${v}" ${q.get(name) === String(v) ? "selected" : ""}>${l}</option>`).join("")}</select>`;
    const toValue = q.get("until") ? (() => { const d = new Date(q.get("until") + "T00:00:00"); d.setDate(d.getDate() - 1); return d.toISOString().slice(0, 10); })() : "";
    // Dates as text in ISO order: a date input follows the browser's locale (mm/dd/yyyy in
    // the Chinese page), whatever the page's language.
    $("main").innerHTML = `<div class="crumbs"><a href="#/">${T("tables")}</a> › ${esc(tableId)}</div>
      <h1>${T("table")} ${esc(tableId)}</h1>
      <form class="panel filters" id="filters">
        <label>${T("from")}<input name="from" inputmode="numeric" size="10" pattern="\\d{4}-\\d{2}-\\d{2}" placeholder="${T("date_hint")}" value="${esc((q.get("since") || "").slice(0, 10))}"></label>
        <label>${T("to")}<input name="to" inputmode="numeric" size="10" pattern="\\d{4}-\\d{2}-\\d{2}" placeholder="${T("date_hint")}" value="${esc(toValue)}"></label>
        <label>${T("ruleset")}<input name="ruleset" size="10" value="${esc(q.get("ruleset") || "")}"></label>
        <label>${T("seat")}${sel("seat", [0, 1, 2, 3].map((s) => [s, seatLabel(s)]))}</label>
        <label>${T("result")}${sel("result", [["win", T("win")], ["self_draw", T("self_draw")], ["draw", T("draw")]])}</label>
        <label>${T("status_f")}${sel("status", [["finished", T("finished")], ["open", T("open")], ["aborted", T("aborted")]])}</label>
        <button class="btn primary" type="submit">${T("filter")}</button>
        <a class="btn" id="export-csv" href="${base}/export.csv?${q}">${T("export_csv")}</a>
        <a class="btn" id="export-json" href="${base}/export.json?${q}">${T("export_json")}</a>
        <a class="btn" id="fairness-link" href="#/f/${encodeURIComponent(tableId)}?${q}">${T("fairness")}</a>
      </form>
      <div class="panel" id="totals"></div>
      <div class="panel"><table class="grid-table" id="sessions"><thead><tr><th>${T("sessions")}</th><th>${T("started")}</th><th>${T("ended")}</th><th>${T("session_players")}</th><th></th></tr></thead><tbody></tbody></table></div>
      <div class="panel"><table class="grid-table" id="hands"><thead><tr><th>${T("time")}</th><th>${T("no")}</th><th>${T("ruleset")}</th><th>${T("dealer")}</th><th>${T("result")}</th><th>${T("winner")}</th>
        ${[0, 1, 2, 3].map((s) => `<th class="num">${seatLabel(s)}</th>`).join("")}<th></th></tr></thead><tbody></tbody></table>
        <button class="btn" id="more" type="button" hidden>${T("more")}</button></div>`;
    $("filters").addEventListener("submit", (e) => {
      e.preventDefault();
      location.hash = `#/t/${encodeURIComponent(tableId)}?${filterQuery(e.target)}`;
    });
    const totalsQ = new URLSearchParams(q); totalsQ.delete("status");
    const [totals] = await Promise.all([api(`${base}/totals?${totalsQ}`)]);
    $("totals").innerHTML = `<h2>${MJ.lang() === "zh" ? `累计 · 共${totals.hands}局` : `Totals · ${totals.hands} hands`}</h2>
      ${netsHtml(totals.seats, (s) => seatLabel(s))}
      <div class="charts"><img alt="seats" src="${base}/charts/seats.svg?${totalsQ}&lang=${MJ.lang()}"><img alt="days" src="${base}/charts/days.svg?${totalsQ}&lang=${MJ.lang()}"></div>`;
    // each session's cash-out, printable (/cashout?session=…)
    const sessions = await api(`${base}/sessions?limit=20`);
    const names = sessionNames(sessions);
    $("sessions").tBodies[0].innerHTML = sessions.map((s) => `<tr data-session="${esc(s.id)}"><td class="session-name" title="${esc(s.id)}">${esc(names.get(s.id))}</td>
      <td>${when(s.started_at)}</td><td>${s.ended_at ? when(s.ended_at) : T("open")}</td>
      <td class="session-players">${esc((Array.isArray(s.players) ? s.players : []).map((p) => p && typeof p.name === "string" ? p.name : "").join(MJ.lang() === "zh" ? "、" : ", "))}</td>
      <td><a href="/cashout?session=${encodeURIComponent(s.id)}" target="_blank">${T("cashout_sheet")}</a></td></tr>`).join("");
    let offset = 0;
    const more = async () => {
      const rows = await api(`${base}/hands?${q}&limit=100&offset=${offset}`);
      offset += rows.length;
      const body = $("hands").tBodies[0];
      if (!rows.length && offset === 0) body.innerHTML = `<tr><td colspan="11" class="muted">${T("no_hands")}</td></tr>`;
      body.insertAdjacentHTML("beforeend", rows.map((h) => `<tr data-hand="${esc(h.id)}">
        <td>${when(h.started_at)}</td><td class="num">${h.hand_no}</td><td>${esc(h.ruleset)}</td><td>${handSeat(h, h.dealer)}</td>
        <td>${h.status === "finished" ? esc(T(h.result) || h.result) : T(h.status)}${h.dice_check === "failed" ? ` <span class="neg dice-flag" title="${esc(h.dice_problem || "")}">⚠ ${T("dice_flag_failed")}</span>` : h.dice_check === "unverified" ? ` <span class="muted dice-flag">${T("dice_flag_unverified")}</span>` : ""}</td><td>${handSeat(h, h.winner)}</td>
        ${(h.net || [null, null, null, null]).map(numCell).join("")}
        <td><a href="#/h/${encodeURIComponent(h.id)}">${T("replay")}</a></td></tr>`).join(""));
      $("more").hidden = rows.length < 100;
    };
    $("more").addEventListener("click", more);
    await more();
  }

  function diceHtml(d) {
    if (!d) return "";
    const notes = d.notes.map((n) => `<li class="muted">${esc(n)}</li>`).join("");
    if (d.verdict === "ok") return `<div id="dice-check" data-verdict="ok"><p class="muted">${T("dice_ok")} (${d.rolls})</p><ul>${notes}</ul></div>`;
    if (d.verdict === "unverified") return `<div id="dice-check" data-verdict="unverified"><p class="notice">${T("dice_unverified")}</p></div>`;
    return `<div id="dice-check" data-verdict="failed"><p class="notice error">${T("dice_failed")}</p><ul>${d.problems.map((p) => `<li>${esc(p)}</li>`).join("")}${notes}</ul></div>`;
  }

  async function showFairness(tableId, query) {
    const base = `/api/v1/tables/${encodeURIComponent(tableId)}`;
    const q = new URLSearchParams(query); q.delete("status");
    const r = await api(`${base}/fairness?${q}`);
    const pct = (x) => (x === null || x === undefined ? "" : `${(100 * x).toFixed(1)}%`);
    const pv = (p) => (p === null || p === undefined ? "" : p < 0.0001 ? p.toExponential(1) : p.toFixed(4));
    const charts = ["faces", "sums", "seats", "streaks"].map((c) => `<img alt="${c}" src="${base}/fairness/${c}.svg?${q}&lang=${MJ.lang()}">`).join("");
    const flips = Object.entries(r.flip_positions).map(([k, v]) => `<span class="flip" data-position="${esc(k)}">${T("flip_at", { p: Number(k) + 1, n: v })}</span>`).join(" ");
    $("main").innerHTML = `<div class="crumbs"><a href="#/">${T("tables")}</a> › <a href="#/t/${encodeURIComponent(tableId)}?${q}">${esc(tableId)}</a> › ${T("fairness")}</div>
      <h1>${T("fairness")} · ${esc(tableId)}</h1>
      <div class="panel" id="fairness-summary"><p class="${r.flagged ? "notice error" : "muted"}" id="fairness-verdict">${r.flagged ? T("some_flagged") : T("none_flagged")} · ${T("alpha_note", { a: r.alpha, e: r.alpha_each })}</p>
        <p>${T("hands")} ${r.hands} · ${T("rolls")} ${r.rolls} · ${T("dealer_rate")} ${pct(r.dealer_win_rate)} (${r.dealer_wins}/${r.hands}) · ${T("flips")} ${r.flips}</p>
        <a class="btn" id="fairness-csv" href="${base}/fairness.csv?${q}">${T("export_csv")}</a></div>
      <div class="panel"><table class="grid-table" id="fairness-tests"><thead><tr><th>${T("test")}</th><th class="num">${T("sample")}</th><th class="num">χ²</th><th class="num">${T("p_value")}</th><th>${T("flagged")}</th><th></th></tr></thead><tbody>${
        r.tests.map((t) => `<tr data-test="${esc(t.name)}"><td>${T("t_" + t.name)}</td><td class="num">${t.n}</td><td class="num">${t.statistic === null ? "" : t.statistic.toFixed(2)}</td><td class="num">${pv(t.p)}</td><td>${t.flagged ? "⚠" : ""}</td><td class="muted">${esc(t.note)}</td></tr>`).join("")
      }</tbody></table></div>
      <div class="panel"><div class="charts">${charts}</div><p class="muted" id="fairness-flips">${T("flips")}（${T("flips_note")}）：${flips || "—"}</p></div>`;
  }

  function stopReplay() { clearInterval(replayTimer); replayTimer = null; }

  function boardHtml(step, concealed, dealer, names) {
    const v = step.view;
    const j = v.jing || {};
    const jing = j.zheng ? `${MJ.t("zheng")} ${MJ.tileHtml(j.zheng, "tile-m")} ${MJ.t("fu")} ${MJ.tileHtml(j.fu, "tile-m")}${j.an ? ` 暗精 ${MJ.tileHtml(j.an, "tile-m")}` : ""}`
      : j.caishen ? `${MJ.t("caishen")} ${MJ.tileHtml(j.caishen, "tile-m")}` : "";
    const wild = new Set([j.zheng, j.fu, j.caishen].filter(Boolean));
    const face = (x, cls) => MJ.tileHtml(x, cls, { mark: wild.has(x) ? "zheng" : undefined });
    const seats = v.seats.map((s, i) => `<div class="board-seat ${v.turn === i && ["turn", "draw", "replacement"].includes(v.phase) ? "is-turn" : ""}" data-seat="${i}">
        <span class="who">${esc(MJ.seatName(i, dealer, names))}${dealer === i ? " · " + T("dealer") : ""}</span><span class="muted">${s.tiles} ${MJ.t("tiles")}</span>
        ${concealed ? `<div class="row hand-row"><span class="label">${T("hand")}</span>${(s.hand || []).map((x) => face(x, "tile-m")).join("")}</div>` : ""}
        <div class="row"><span class="label">${T("melds")}</span>${s.melds.map((m) => `<span class="meld">${(m.tiles.length ? m.tiles : [null, null, null, null]).map((x) => MJ.tileHtml(x, "tile-s", { hidden: x === null })).join("")}</span>`).join(" ")}</div>
        <div class="row"><span class="label">${T("discards")}</span>${s.discards.map((x) => face(x, "tile-s")).join("")}</div></div>`).join("");
    return `<div class="row">${jing} <span class="muted">${v.live !== null && v.live !== undefined ? ` · ${T("wall")} ${v.live}` : ""} · ${MJ.t("phase_" + v.phase)}</span></div><div class="board">${seats}</div>`;
  }

  function settlementHtml(st, dealer, names) {
    if (!st) return "";
    const who = (s) => esc(MJ.seatName(s, dealer, names));
    return `<h2>${T("settlement")}</h2>${netsHtml(st.net, who)}
      <table class="grid-table" id="settle-lines"><thead><tr><th>${T("reason")}</th><th>${T("payer")}</th><th>${T("payee")}</th><th class="num">${T("amount")}</th></tr></thead><tbody>${
        (st.lines || []).map((l) => `<tr><td>${esc(l.reason)}</td><td>${who(l.from)}</td><td>${who(l.to)}</td><td class="num">${esc(l.amount)}</td></tr>`).join("")
      }</tbody></table>`;
  }

  const COUNTS = ["hands", "wins", "self_draws", "deguo", "jingdiao", "chongguan", "big_hands"];

  /** Every member's record (the hub counts them across tables), the CSV, the leaderboards'
      switch, and each member's personal link (made or revoked here; shown once). */
  async function showMembers() {
    const records = await api("/api/v1/records/members");
    let board = null;
    try { board = await api("/api/v1/records/leaderboards?by=net"); } catch { board = null; }
    $("main").innerHTML = `<div class="crumbs"><a href="#/">${T("tables")}</a> › ${T("members")}</div>
      <h1>${T("members")}</h1>
      <div class="panel row"><a class="btn" id="members-csv" href="/api/v1/records/members.csv">${T("export_csv")}</a>
        <label class="check"><input type="checkbox" id="boards-on" ${board ? "checked" : ""}> ${T("leaderboards_on")}</label>
        <span class="error" id="members-error"></span></div>
      <div class="panel"><table class="grid-table" id="records"><thead><tr><th>${T("member")}</th>
        ${COUNTS.map((k) => `<th class="num">${T(k)}</th>`).join("")}<th class="num">${T("net")}</th><th>${T("link")}</th></tr></thead><tbody>${
        records.length ? records.map((r) => `<tr data-member="${esc(r.member_id)}"><td>${esc(r.name)}</td>
          ${COUNTS.map((k) => `<td class="num">${Number(r[k]) || 0}</td>`).join("")}${numCell(r.net)}
          <td><button class="btn" type="button" data-link="${esc(r.member_id)}">${T("new_link")}</button>
            <button class="btn" type="button" data-revoke="${esc(r.member_id)}">${T("revoke")}</button>
            <span class="link-url"></span></td></tr>`).join("") : `<tr><td colspan="10" class="muted">${T("no_members")}</td></tr>`
      }</tbody></table></div>
      ${board ? `<div class="panel"><h2>${T("leaderboards")}</h2><ol id="board">${board.map((b) => `<li>${esc(b.name)} ${MJ.fmtNum(b.value) || "0"}</li>`).join("")}</ol></div>` : ""}`;
    $("boards-on").addEventListener("change", async (e) => {
      try {
        await api("/api/v1/owner/leaderboards", { method: "PUT", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ enabled: e.target.checked }) });
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
      $("main").innerHTML = `<div class="crumbs"><a href="#/">${T("tables")}</a> › ${T("terms")}</div>
        <h1>${T("terms")}</h1><p class="panel muted" id="terms-at-table">${T("terms_at_table")}</p>`;
      return;
    }
    const owner = me.role === "owner";
    const terms = await api("/api/v1/staff/cashout-terms");
    const fees = [["", T("fee_none")], ...["hand", "hour", "session"].map((p) => [p, MJ.t("fee_" + p)])];
    const ro = owner ? "" : "disabled";
    $("main").innerHTML = `<div class="crumbs"><a href="#/">${T("tables")}</a> › ${T("terms")}</div>
      <h1>${T("terms")}</h1>
      <form class="panel filters" id="terms-form" novalidate>
        <label>${T("point_value")}<input id="terms-point" inputmode="decimal" size="10" ${ro}></label>
        <label>${T("currency")}<input id="terms-currency" size="4" maxlength="8" ${ro}></label>
        <label>${T("table_fee")}<input id="terms-fee" inputmode="decimal" size="8" ${ro}></label>
        <label>${T("fee_per")}<select id="terms-fee-per" ${ro}>${fees.map(([v, l]) => `<option value="${v}">${l}</option>`).join("")}</select></label>
        <label>${T("cutoff")}<input id="terms-cutoff" size="6" placeholder="06:00" ${ro}></label>
        ${owner ? `<button class="btn primary" type="submit" id="terms-save">${T("save")}</button>` : ""}
        <span class="error" id="terms-state" data-state=""></span>
      </form>
      <p class="muted" id="terms-changed">${owner ? "" : T("read_only")}</p>
      <p class="muted">${T("terms_hint")}</p>`;
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
        fill(await api("/api/v1/owner/cashout-terms", { method: "PUT", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) }));
        state("saved", T("saved"));
        await changed();
      } catch (err) {
        if (err.message !== "unauthorised") state("failed", err.message); // (else: the login form)
      } finally {
        save.disabled = false;
      }
    });
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
    $("main").innerHTML = `<div class="crumbs"><a href="#/">${T("tables")}</a> › <a href="#/t/${encodeURIComponent(detail.table_id)}">${esc(detail.table_id)}</a> › ${MJ.t("hand_no", { n: h.hand_no })}</div>
      <h1>${MJ.t("hand_no", { n: h.hand_no })} · ${esc(h.ruleset)} · ${when(h.started_at)}</h1>
      ${rp.concealed ? `<p class="muted">${rp.check ? T("check_bad") + esc(rp.check) : T("check_ok")}</p>` : `<p class="notice" id="public-only">${T("not_finished")}</p>`}
      ${diceHtml(rp.dice)}
      <div class="panel"><div class="replay-controls">
        <button class="btn" id="first" type="button">«</button><button class="btn" id="prev" type="button">◀</button>
        <button class="btn" id="play" type="button">${T("play")}</button>
        <button class="btn" id="next" type="button">▶</button><button class="btn" id="last" type="button">»</button>
        <input type="range" id="slider" min="0" max="${n - 1}" value="0"><span id="step-no"></span></div>
        <div class="step-text" id="step-text"></div><div id="board"></div></div>
      <div class="panel" id="settlement">${settlementHtml(detail.settlement, dealer, names)}</div>
      ${Array.isArray(detail.seat_acts) && detail.seat_acts.length ? `<div class="panel"><h2>${T("seat_acts")}</h2><ol id="seat-acts">${
        detail.seat_acts.slice(0, 200).map((a) => `<li>${when(a.at)} · ${esc(seatLabel(a.seat))} · ${esc(a.name || T("guest"))} · ${esc(a.by)}</li>`).join("")}</ol></div>` : ""}`;
    const show = (k) => {
      i = Math.max(0, Math.min(n - 1, k));
      const step = rp.steps[i];
      $("slider").value = i;
      $("step-no").textContent = T("step", { i: i + 1, n });
      $("step-text").textContent = step.text[MJ.lang()] || step.text.zh;
      $("board").innerHTML = boardHtml(step, rp.concealed, dealer, names);
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
      else await showTables();
    } catch (err) {
      if (err.message !== "unauthorised") $("main").innerHTML = `<div class="panel error">${T("error")}: ${esc(err.message)}</div>`;
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    MJ.applyI18n();
    MJ.langToggle($("lang"));
    $("logout").addEventListener("click", async () => {
      await fetch("/api/v1/auth/logout", { method: "POST", credentials: "same-origin" });
      showLogin();
    });
    document.addEventListener("mj:lang", route);
    window.addEventListener("hashchange", route);
    route();
  });
})();
