/* The staff console on the dealer page (docs/staff.md): a staff or owner login turns the
   page into the console for the hand in progress, from GET /api/v1/staff/hands/current
   only (the players' view; a winner's tiles once a 胡 lies face up): finish by hand with
   a 34-kind tile picker, penalties, an adjustment, a void, and the acts with undo. Every
   field from the API goes in as text (MJ.el), never as markup. */
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const { el } = MJ;
  const TXT = { // this page's own words (MJ.words; the shared ones are common.js's)
    zh: {
      staff: "工作人员", login: "工作人员登录", hand: "本局", no_hand: "没有进行中的牌局", in_play: "进行中",
      over: "已结算，下一局开始前仍可更正", totals: "累计", finish: "手动结束本局", winner: "胡家",
      tiles_hand: "手牌（含和牌）", melds: "副露", add_meld: "加副露", remove: "删除",
      win_tile: "和牌", from: "来源", self: "自摸", kong_replacement: "杠上开花",
      discard_of: "{s} 放炮", rob_of: "抢 {s} 的杠", flags: "特殊", tian: "天胡", di: "地胡",
      last_tile: "海底", pao_long: "抛龙", reason: "原因", settle: "结算", exhausted: "流局",
      picker: "选牌（剩余张数）", picker_hint: "点牌加入正在编辑的一栏，或直接输入：123m 456p 789s ESWN CFP",
      clear: "清空", back: "退一张", penalty: "罚分", false_win: "诈胡", xianggong: "相公",
      apply: "执行", adjust: "调整分数", from_seat: "付", to_seat: "收", points: "分",
      void: "作废本局", void_reason: "原因（必填）", acts: "工作人员操作", no_acts: "本局没有操作",
      undo: "撤销最后一步", done: "已完成", read: "读卡器所见", seat: "座位", tiles: "张",
      discards: "弃牌", jing: "精", chow: "吃", pung: "碰", kong_exposed: "明杠",
      kong_concealed: "暗杠", kong_added: "加杠", meld_from: "吃碰自", editing: "正在编辑",
      correct: "更正胡家手牌",
      add_winner: "加胡家（一炮多响）", more_winner: "另一胡家", others: "其他座位（读卡器未见时录入）",
      enter_seat: "录入此座", indicator: "翻出的精牌", hand_only: "手牌", enter_flip: "录入翻精",
      an_indicator: "暗精（翻精那墩的另一张，随结果录入）", an_jing: "暗精",
      xia_indicator: "下精（胡牌后翻出的那张，读卡器没看到时随结果录入）", xia_jing: "下精",
      dice: "掷骰子（下一局）",
      seats: "入座（两局之间）", guest: "客人", sit: "入座", seat_acts: "最近入座记录", card: "会员卡", by_staff: "员工", by_owner: "店主",
      phone_joins: "手机入座记录", no_joins: "还没有手机入座", release_phone: "让出座位", by_phone: "手机", member: "会员",
      joined_join: "扫码入座", joined_leave: "离座", joined_release: "被工作人员让出",
      session: "本场", close_session: "结束本场并结算", close_reason: "原因（必填，如：打烊）",
      session_closed: "结束本场", print_page: "打印结算单",
      store_loss: "牌桌的记录丢了最近的牌局", store_loss_hint: "上级服务器保存着它确认过的牌局。确认已知悉后，重启时不再重复提示（同一次丢失）。",
      ack_reason: "原因（必填，如：换了存储卡）", acknowledge: "确认已知悉",
      pen_unset: "本玩法没有{p}的罚分：请老板先在“员工权限”里设定罚分，才能执行",
      pen_amount: "其他三家每家得 {n} 分（{by}）", pen_by_ruleset: "玩法规定", pen_by_owner: "老板设定",
      task_none: "等待第一局开始", task_dice: "等待掷骰子", task_dice_hint: "庄家按骰子键，或在这里代掷",
      task_play: "对局中：无需操作", task_play_hint: "牌桌自己记录；有问题时这里会提示",
      task_enter: "对局中：打完后录入结果", task_enter_hint: "本桌没有读卡器：翻精后录入精牌，胡牌或流局后录入结果",
      task_staff: "等待工作人员：手动结束或作废本局", task_settled: "本局已结算", task_voided: "本局已作废",
      task_shuffle: "洗牌中：牌墙升起后掷骰子", task_shuffle_hint: "牌桌正在洗牌、升牌墙，现在还不能掷骰子",
      task_settled_hint: "看完结算后把牌推进牌桌：洗好牌、升起牌墙就开始下一局",
      roll: "掷骰子", next_hand: "下一局（掷骰子）", open_finish: "手动结束本局", open_correct: "更正胡牌", open_correct_entered: "更正结果", close_finish: "收起",
      void_now: "作废本局", void_confirm: "确认作废", flip_reason: "原因（可不填）",
      more: "更多操作：罚分、调整、入座、最近牌局、结束本场", need_reason: "请先填写原因",
      need_points: "请填写分数（1–100000）", recent: "最近牌局", no_recent: "本场还没有结束的牌局",
      void_this: "作废", adjust_this: "调整", correct_this: "更正结果", voided: "已作废", voided_in: "第{n}局作废",
      result_win: "胡牌", result_self_draw: "自摸", result_draw: "流局", result_void: "作废",
      now: "当前", session_totals: "本场累计（含本局）", no_policy: "店主未允许员工操作",
    },
    en: {
      staff: "Staff", login: "Staff log in", hand: "This hand", no_hand: "No hand in progress",
      in_play: "in play", over: "settled; correctable until the next hand starts", totals: "Totals",
      finish: "Finish this hand by hand", winner: "Winner", tiles_hand: "Hand (with the winning tile)",
      melds: "Melds", add_meld: "Add a meld", remove: "Remove", win_tile: "Winning tile",
      from: "From", self: "self-draw", kong_replacement: "after a kong", discard_of: "{s} dealt in",
      rob_of: "robbing {s}'s kong", flags: "Flags", tian: "Heavenly", di: "Earthly",
      last_tile: "Last tile", pao_long: "抛龙", reason: "Reason", settle: "Settle",
      exhausted: "Draw (流局)", picker: "Tiles (left)",
      picker_hint: "Tap a tile to add it to the field being edited, or type: 123m 456p 789s ESWN CFP",
      clear: "Clear", back: "Back", penalty: "Penalty", false_win: "False win (诈胡)",
      xianggong: "相公", apply: "Apply", adjust: "Adjust points", from_seat: "Pays", to_seat: "Gets",
      points: "Points", void: "Void this hand", void_reason: "Reason (required)", acts: "Staff acts",
      no_acts: "No acts this hand", undo: "Undo the last act", done: "Done", read: "As read",
      seat: "Seat", tiles: "tiles", discards: "Discards", jing: "Jing", chow: "Chow", pung: "Pung",
      kong_exposed: "Kong", kong_concealed: "Concealed kong", kong_added: "Added kong",
      meld_from: "claimed from", editing: "editing", correct: "Correct the winner's tiles",
      add_winner: "Another winner (same discard)", more_winner: "Another winner",
      others: "Other seats (entered where no reader saw them)", enter_seat: "Enter this seat",
      indicator: "Flipped tile (精)", hand_only: "Hand", enter_flip: "Enter the flip",
      an_indicator: "暗精 (the other tile of the flipped stack, entered with the result)", an_jing: "暗精",
      xia_indicator: "下精 (the tile turned up after the win, entered with the result if no reader saw it)", xia_jing: "下精",
      dice: "Roll the dice (next hand)",
      seats: "Seats (between hands)", guest: "Guest", sit: "Seat", seat_acts: "Latest seat acts", card: "member card", by_staff: "staff", by_owner: "owner",
      phone_joins: "Phones' joins", no_joins: "No phone has joined yet", release_phone: "Free the seat", by_phone: "phone", member: "member",
      joined_join: "joined", joined_leave: "left", joined_release: "freed by staff",
      session: "Session", close_session: "Close the session and cash out",
      close_reason: "Reason (required, e.g. closing time)", session_closed: "session closed",
      print_page: "Print the cash-out",
      store_loss: "The table's records lost their latest hands",
      store_loss_hint: "The hub holds the hands it acknowledged. Once acknowledged, this loss is not raised again at each restart.",
      ack_reason: "Reason (required, e.g. the SD card was replaced)", acknowledge: "Acknowledge",
      pen_unset: "This ruleset has no {p} amount: the owner sets one under the staff policy first",
      pen_amount: "each other seat gets {n} points ({by})", pen_by_ruleset: "the ruleset's", pen_by_owner: "set by the owner",
      task_none: "Waiting for the first hand", task_dice: "Waiting for the dice",
      task_dice_hint: "The dealer presses the dice button, or roll here", task_play: "In play: nothing to do",
      task_play_hint: "The table keeps the record; a problem shows here",
      task_enter: "In play: enter the result when it ends",
      task_enter_hint: "No readers: enter the 精 once turned up, the result once the hand ends",
      task_staff: "Waiting for staff: finish or void this hand", task_settled: "Hand settled", task_voided: "Hand voided",
      task_shuffle: "Shuffling: roll once the walls are up", task_shuffle_hint: "The table is shuffling and raising the walls; no roll yet",
      task_settled_hint: "Once the players have seen the result, push the tiles in: the next hand starts on the new walls",
      roll: "Roll the dice", next_hand: "Next hand (roll)", open_finish: "Finish this hand", open_correct: "Correct the win", open_correct_entered: "Correct the result", close_finish: "Close",
      void_now: "Void this hand", void_confirm: "Void it", flip_reason: "Reason (optional)",
      more: "More: penalty, adjust, seats, recent hands, close the session", need_reason: "Give a reason first",
      need_points: "Give the points (1–100000)", recent: "Recent hands", no_recent: "No hand of this session has ended yet",
      void_this: "Void", adjust_this: "Adjust", correct_this: "Correct the result", voided: "voided", voided_in: "voided in hand {n}",
      result_win: "Win", result_self_draw: "Self-draw", result_draw: "Draw", result_void: "Void",
      now: "current", session_totals: "Session totals (with this hand)", no_policy: "The owners do not allow it",
    },
  };
  const T = MJ.words(TXT);

  const KINDS = [..."mps"].flatMap((s) => [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => `${n}${s}`)).concat([..."ESWNCFP"]);
  const MELD_TYPES = ["chow", "pung", "kong_exposed", "kong_concealed", "kong_added"];
  const FLAGS = ["tian", "di", "last_tile", "pao_long"];
  // The login is an HttpOnly cookie the page cannot see: it remembers that it logged in, so
  // a players' page never asks the API (and logs no refusal) for nobody's login.
  const LOGGED_IN = "mjtable.staff";

  // ---- state ------------------------------------------------------------------------------
  const S = { me: null, view: null, status: null, active: "hand", busy: false, refresh: null, keys: {} };

  /** The API (MJ.api): a body makes it a POST unless `method` says otherwise; `key` is the
      submission's Idempotency-Key. */
  const call = (path, body, method, key) => MJ.api(path, { body, method, key });

  // ---- login --------------------------------------------------------------------------------
  function showLogin(message = "") {
    document.body.classList.remove("staff-on");
    const form = MJ.loginForm("staff", { title: T("login"), cls: "staff-login", message, done: () => {
      localStorage.setItem(LOGGED_IN, "1");
      window.scrollTo(0, 0); // (the door was below the players' cards: the task is at the top)
      start();
    } });
    $("staff").replaceChildren(el("details", { class: "staff-door" }, el("summary", null, T("login")), form));
  }

  async function start() {
    S.me = null;
    if (localStorage.getItem(LOGGED_IN)) {
      try { S.me = await call("/api/v1/auth/me"); } catch { S.me = null; }
    }
    if (!S.me) { localStorage.removeItem(LOGGED_IN); showLogin(); return; }
    document.body.classList.add("staff-on");
    buildConsole();
    S.task = null; S.recentShown = null;
    await Promise.all([look(), lookLoss()]);
  }

  // ---- a loss of the table's store, said at its start until staff acknowledge it ----------------
  async function lookLoss() {
    let loss = null;
    try { loss = await call("/api/v1/staff/store-loss"); } catch { loss = null; }
    const box = $("store-loss");
    if (!box) return;
    if (!loss || !loss.found_at || loss.acknowledged_at) { box.replaceChildren(); return; }
    const problems = Array.isArray(loss.problems) ? loss.problems.slice(0, 5) : [];
    const reason = el("input", { id: "ack-reason", placeholder: T("ack_reason"), maxlength: 500 });
    const ack = el("button", { class: "btn primary", type: "button", id: "ack-loss" }, T("acknowledge"));
    ack.addEventListener("click", () => attempt("ack", async () => {
      await call("/api/v1/staff/store-loss/acknowledge", { reason: reason.value });
      await lookLoss();
    }));
    box.replaceChildren(el("div", { class: "staff-form", role: "alert" },
      el("h3", null, T("store_loss")), el("p", null, T("store_loss_hint")),
      el("ul", null, ...problems.map((p) => el("li", { class: "muted" }, MJ.str(p, 500)))),
      el("div", { class: "row" }, reason, ack), el("div", { class: "error", id: "ack-error" })));
  }

  const lookHand = MJ.newest(() => call("/api/v1/staff/hands/current"));

  async function look() {
    try {
      const view = await lookHand();
      if (view === MJ.STALE) return; // a later look came first: it is on the screen
      S.view = view;
    } catch (e) {
      S.view = null;
      if ($("staff-view")) $("staff-view").replaceChildren(el("p", { class: "error" }, e.message)); // (else logged out)
      return;
    }
    if (!$("staff-view")) return;
    renderView();
    // a hand the table ended by itself (the readers read its result): the recent hands follow
    const ended = `${S.view && S.view.hand_id}/${S.view && S.view.in_progress}`;
    if (ended !== S.lookedHand) {
      S.lookedHand = ended;
      if ($("staff-more").open) lookRecent();
    }
    await lookCashout();
  }

  // ---- the session: its standing, closing it, its cash-out --------------------------------------
  async function lookCashout() {
    let raw = null;
    try { raw = await call("/api/v1/staff/sessions/latest/cashout"); } catch { raw = null; }
    renderCashout(raw);
  }

  function renderCashout(raw) {
    const box = $("session-cashout");
    if (!box) return;
    if (!raw) { box.replaceChildren(el("p", { class: "muted" }, MJ.t("no_cashout"))); return; }
    const c = MJ.cleaned("cashout", raw);
    const v = S.view;
    // mid-hand, what the hand's acts moved is in the seat rows, not yet in the stored
    // standing: the session's totals then as the seat rows say them
    if (!c.closed && v && v.in_progress) {
      const totals = v && Array.isArray(v.totals) ? v.totals : [];
      box.replaceChildren(el("div", { class: "staff-hand-head", id: "session-head" }, T("session_totals")),
        el("div", { class: "row nets-row" }, [0, 1, 2, 3].map((s) =>
          el("span", { "data-seat": s }, `${MJ.seatName(s, null)} ${MJ.fmtNum(totals[s]) || "0"}`))));
      $("close-session").disabled = !v || v.session_id === null;
      return;
    }
    const terms = raw.terms && typeof raw.terms === "object" ? raw.terms : {};
    const by = raw.closed_by && typeof raw.closed_by === "object" ? raw.closed_by : null;
    box.replaceChildren(
      el("div", { class: "staff-hand-head", id: "session-head" },
        `${c.closed ? MJ.t("cashout") : MJ.t("cashout_open")} · ${MJ.t("hands_n", { n: c.played ?? 0 })}`,
        by ? ` · ${MJ.t("closed_by")} ${MJ.str(by.by, 64)}${by.reason ? " · " + MJ.str(by.reason, 500) : ""}` : ""),
      MJ.cashoutView(c, { withMoney: true, currency: MJ.str(terms.currency, 8) }));
    $("close-session").disabled = !!(c.closed || (S.view && S.view.session_id === null));
  }

  function sessionForm() {
    const reason = el("input", { id: "close-reason", placeholder: T("close_reason"), maxlength: 500 });
    const close = el("button", { class: "btn primary", type: "button", id: "close-session" }, T("close_session"));
    close.addEventListener("click", () => needReason("close", reason.value) && attempt("close", async () => {
      const body = { reason: reason.value };
      renderCashout(await once("close", "/api/v1/staff/session/close", body, body));
    }));
    return el("div", { class: "staff-form", id: "session-form" },
      el("h3", null, T("session")),
      el("div", { id: "session-cashout" }),
      el("div", { class: "row" }, reason, close,
        el("a", { class: "btn", href: "/cashout", target: "_blank", id: "print-cashout" }, T("print_page"))),
      el("div", { class: "error", id: "close-error" }));
  }

  // A look after what the table publishes (a move, a settlement), at most every half second.
  function lookSoon() {
    if (!S.me || S.refresh) return;
    S.refresh = setTimeout(() => { S.refresh = null; look(); }, 500);
  }

  // ---- the console ----------------------------------------------------------------------------
  const seatOptions = (selected) => [0, 1, 2, 3].map((s) =>
    el("option", { value: s, selected: s === selected }, MJ.seatName(s, null)));

  function field(label, input, cls) { return el("label", { class: cls || "field" }, el("span", null, label), input); }

  function buildConsole() {
    const logout = el("button", { class: "btn", type: "button", id: "staff-logout" }, T("logout"));
    logout.addEventListener("click", async () => {
      localStorage.removeItem(LOGGED_IN);
      await MJ.logout();
      S.me = null; S.view = null; showLogin();
    });
    // what the table needs now at the top; the finish entry below it when asked for; the
    // hand; then the rare acts behind one menu
    $("staff").replaceChildren(
      el("div", { class: "staff-head" }, el("h2", null, `${T("staff")} · ${MJ.str(S.me.name, 64)}`), logout),
      el("div", { id: "store-loss" }),
      taskCard(),
      el("div", { id: "finish-entry", hidden: true },
        el("div", { class: "staff-form finish-entry", id: "fe-box" }), finishForm(), picker()),
      el("div", { id: "staff-view" }),
      el("div", { class: "staff-acts", id: "acts-form" }, el("h3", null, T("acts")), el("ol", { id: "staff-acts" }),
        el("div", { class: "row" }, el("input", { id: "undo-reason", placeholder: T("reason"), maxlength: 500 }),
          el("button", { class: "btn", type: "button", id: "undo" }, T("undo"))),
        el("div", { class: "error", id: "undo-error", role: "status" })),
      el("details", { class: "staff-more", id: "staff-more" }, el("summary", null, T("more")),
        recentHands(), actForms(), seatsForm(), sessionForm()));
    // the table's dice button: whoever is due rolls; without readers, the next hand starts
    $("roll-dice").addEventListener("click", async () => {
      // the settled hand is left behind: no correcting it while the next one starts, not
      // even from a look at the table answered after this tap (a refused roll gives it back)
      const leaving = S.view && S.view.hand_id && !S.view.in_progress ? S.view.hand_id : null;
      if (leaving) { S.leaving = leaving; showFinish(false); $("open-finish").hidden = true; }
      const rolled = await attempt("roll-dice", () => call("/api/v1/staff/dice",
        { hand_id: S.view ? S.view.hand_id : null, seen: S.view && Number.isInteger(S.view.seen) ? S.view.seen : 0 }));
      if (leaving && !rolled) { S.leaving = null; renderTask(); }
    });
    $("undo").addEventListener("click", () => act("undo", "/api/v1/staff/hands/current/undo", { reason: $("undo-reason").value }));
    // the finish entry (finish_entry.js): the result as its settlement needs it; once
    // settled, a result entered so is corrected in it (then the entry closes)
    S.entry = FinishEntry.mount($("fe-box"), { act: async (body) => {
      const settled = !!(S.view && !S.view.in_progress);
      const done = await act("fe", `/api/v1/staff/hands/current/${settled ? "correction" : "finish"}`, body);
      if (done && settled) { S.entry.reset(); showFinish(false); say("roll-dice", T("done"), true); }
    } });
    $("staff-more").addEventListener("toggle", () => { if ($("staff-more").open) { loadSeats(); loadJoins(); lookRecent(); } });
  }

  // ---- the task: what the table needs now ----------------------------------------------------
  const DICE_PHASES = ["break_dice", "second_dice", "xia_dice"];

  /** What the table needs of staff now: none (no hand yet), dice, play (nothing to do),
      enter (no readers: the result is staff's to enter), staff (it waits for them), settled. */
  function taskOf(v) {
    if (!v || !v.hand_id) return "none";
    if (!v.in_progress) return "settled";
    if (S.status && S.status.hand === "waiting_for_staff") return "staff";
    const phase = v.public && typeof v.public === "object" ? v.public.phase : null;
    if (phase === "shuffle") return "shuffle"; // (a table with readers: its walls rise first)
    if (DICE_PHASES.includes(phase)) return "dice";
    return S.unread ? "enter" : "play";
  }

  function taskCard() {
    const finish = el("button", { class: "btn primary", type: "button", id: "open-finish" }, T("open_finish"));
    finish.addEventListener("click", () => showFinish(!S.finishOpen, true));
    const voidOpen = el("button", { class: "btn", type: "button", id: "void-open" }, T("void_now"));
    voidOpen.addEventListener("click", () => {
      $("void-form").hidden = !$("void-form").hidden;
      if (!$("void-form").hidden) $("void-reason").focus();
    });
    const vReason = el("input", { id: "void-reason", maxlength: 500, placeholder: T("void_reason") });
    const vGo = el("button", { class: "btn danger", type: "button", id: "void-go" }, T("void_confirm"));
    vGo.addEventListener("click", () => {
      const id = S.view && S.view.hand_id;
      if (id && needReason("void", vReason.value)) {
        act("void", `/api/v1/staff/hands/${encodeURIComponent(id)}/void`, { reason: vReason.value }, true);
      }
    });
    return el("section", { class: "staff-task", id: "task", "aria-live": "polite" },
      el("h3", { id: "task-title" }), el("div", { class: "muted", id: "task-hint" }),
      el("div", { id: "task-result" }),
      el("div", { class: "row task-buttons" },
        el("button", { class: "btn primary", type: "button", id: "roll-dice" }, T("roll")), finish, voidOpen),
      el("div", { class: "error", id: "roll-dice-error", role: "status" }),
      el("div", { class: "row", id: "void-form", hidden: true }, vReason, vGo),
      el("div", { class: "error", id: "void-error", role: "status" }));
  }

  /** The task card for the hand as it now stands. */
  function renderTask() {
    const v = S.view;
    const task = taskOf(v);
    if (task !== S.task) { // a new task: the finish entry as the task wants it
      S.task = task;
      // (an entry staff opened by a tap stays open while its hand moves on, dice to play:
      // it must not close under their finger; it closes once that hand is done)
      const tapped = S.finishTapped && !!v && v.hand_id === S.finishHand && ["dice", "enter", "play"].includes(task);
      if (!tapped) showFinish(task === "staff");
    }
    document.body.dataset.task = task;
    const p = v && v.public && typeof v.public === "object" ? v.public : {};
    // (a 流局 settles as "void" too, moving nothing: it is no voided hand)
    const voided = task === "settled" && !!p.settlement && MJ.cleaned("settlement", p.settlement).voided;
    $("task-title").textContent = voided ? T("task_voided") : T("task_" + task);
    const phase = v && v.public && typeof v.public.phase === "string" ? v.public.phase : null;
    // a table with readers starts the next hand on its new walls: no dice button for it
    const readers = task === "settled" && !S.unread;
    const hint = ["dice", "play", "enter", "shuffle"].includes(task) || readers ? T(`task_${task}_hint`) : "";
    $("task-hint").textContent = task === "dice" && phase ? `${MJ.t("phase_" + phase)} · ${hint}` : hint;
    const dice = $("roll-dice");
    dice.hidden = !["dice", "settled", "none"].includes(task) || readers;
    dice.textContent = task === "settled" ? T("next_hand") : T("roll");
    dice.classList.toggle("primary", task !== "none");
    // a won hand lies face up until the next starts: its tiles may be corrected; a result
    // entered by hand (staff, the players' phones) is corrected whole, in the finish entry
    const left = !!v && v.hand_id === S.leaving;  // its next hand is being rolled
    const read = task === "settled" && !voided && !left && Array.isArray(v.winners_read) && v.winners_read.length > 0;
    const entered = task === "settled" && !voided && !left && !read && !!v.entered && typeof v.entered === "object";
    $("open-finish").hidden = !["dice", "enter", "staff", "play"].includes(task) && !read && !entered;
    $("open-finish").classList.toggle("primary", ["enter", "staff"].includes(task));
    S.finishWord = read ? "open_correct" : entered ? "open_correct_entered" : "open_finish";
    if (!S.finishOpen) $("open-finish").textContent = T(S.finishWord);
    $("void-open").hidden = task === "none" || voided || !v || v.session_id === null;
    if ($("void-open").hidden) $("void-form").hidden = true;
    $("task-result").replaceChildren(...(task === "settled" ? [settlementView(p.settlement)].filter(Boolean) : []));
  }

  /** The finish entry shown or not; ``asked``: opened by a tap, which on a settled result
      entered by hand opens its correction. */
  function showFinish(open, asked = false) {
    const v = S.view;
    S.finishOpen = open;
    S.finishTapped = open && asked;
    S.finishHand = v ? v.hand_id : null;
    const correcting = open && asked && v && !v.in_progress && v.entered && !(Array.isArray(v.winners_read) && v.winners_read.length);
    if (correcting) S.entry.correct(v.entered);
    document.body.classList.toggle("staff-correcting", !!correcting);
    $("finish-entry").hidden = !open;
    $("open-finish").textContent = open ? T("close_finish") : T(S.finishWord || "open_finish");
  }

  /** A reason the act needs, asked before anything is sent. */
  function needReason(form, value) {
    if (String(value).trim()) return true;
    say(form, T("need_reason"), false);
    return false;
  }

  // ---- recent hands: this session's, each voided or adjusted from here -------------------------
  function recentHands() {
    return el("div", { class: "staff-form", id: "recent-form" }, el("h3", null, T("recent")),
      el("ol", { id: "recent-hands", class: "recent-hands" }),
      el("div", { class: "error", id: "recent-error", role: "status" }));
  }

  async function lookRecent() {
    let r;
    try { r = await call("/api/v1/staff/hands/recent"); } catch (e) { if ($("recent-error")) say("recent", e.message, false); return; }
    const box = $("recent-hands");
    if (!box) return;
    const hands = Array.isArray(r && r.hands) ? r.hands.slice(0, 20) : [];
    const shown = JSON.stringify([MJ.lang(), S.view && S.view.hand_id, r]);
    if (shown === S.recentShown) return; // (as shown: a reason being typed stays)
    S.recentShown = shown;
    if (!hands.length) { box.replaceChildren(el("li", { class: "muted" }, T("no_recent"))); return; }
    // a row as it was stays in its place (drawn anew under a finger, it would lose the tap)
    const kept = new Map([...box.children].map((n) => [n.dataset.shown, n]));
    const typed = new Map([...box.querySelectorAll("input")].map((n) => [n.id, n.value]));
    MJ.place(box, hands.map((h) => {
      const now = S.view && S.view.hand_id === h.hand_id;
      const key = JSON.stringify([MJ.lang(), now, now && !S.view.in_progress && !!S.view.entered, r.may_void, r.may_adjust, h]);
      if (kept.has(key)) return kept.get(key);
      const row = recentRow(h, r);
      row.dataset.shown = key;
      return row;
    }));
    box.querySelectorAll("input").forEach((n) => { if (typed.has(n.id) && !n.value) n.value = typed.get(n.id); });
  }

  const RESULTS = ["win", "self_draw", "draw", "void"];

  function recentRow(h, r) {
    const no = Number.isInteger(h.hand_no) ? h.hand_no : "?";
    const id = MJ.str(h.hand_id, 64);
    const result = RESULTS.includes(h.result) ? T("result_" + h.result) : MJ.str(h.result, 16);
    const net = Array.isArray(h.net) ? h.net.slice(0, 4) : [];
    const head = [MJ.t("hand_no", { n: no }), result];
    if (S.view && id === S.view.hand_id) head.push(T("now"));
    if (h.voided) head.push(Number.isInteger(h.voided_in) ? T("voided_in", { n: h.voided_in }) : T("voided"));
    const acts = Array.isArray(h.acts) ? h.acts.slice(-10) : [];
    const reason = el("input", { maxlength: 500, placeholder: T("void_reason"), id: `recent-${no}-reason` });
    const go = el("button", { class: "btn danger", type: "button", id: `recent-${no}-void` }, T("void_this"));
    go.disabled = !r.may_void || h.voided;
    go.title = r.may_void ? "" : T("no_policy");
    go.addEventListener("click", () => {
      if (needReason("recent", reason.value)) {
        act("recent", `/api/v1/staff/hands/${encodeURIComponent(id)}/void`, { reason: reason.value }, true);
      }
    });
    // the hand just settled, its result entered by hand: corrected in the finish entry
    const now = S.view && id === S.view.hand_id && !S.view.in_progress && !!S.view.entered;
    const correct = now ? el("button", { class: "btn", type: "button", id: `recent-${no}-correct` }, T("correct_this")) : null;
    if (correct) {
      correct.addEventListener("click", () => {
        showFinish(true, true);
        $("task").scrollIntoView({ block: "start" });
      });
    }
    const adjust = el("button", { class: "btn", type: "button", id: `recent-${no}-adjust` }, T("adjust_this"));
    adjust.disabled = !r.may_adjust;
    adjust.addEventListener("click", () => {
      $("adj-reason").value = `${MJ.t("hand_no", { n: no })}：`;
      $("adj-form").scrollIntoView({ block: "start" });
      $("adj-points").focus();
    });
    return el("li", { class: "recent-hand", "data-hand-no": no },
      el("div", { class: "recent-head" }, head.join(" · ")),
      el("div", { class: "row nets-row" }, net.map((n, s) => el("span", { "data-seat": s }, `${MJ.seatName(s, null)} ${MJ.fmtNum(n) || "0"}`))),
      acts.length ? el("ul", { class: "muted" }, acts.map((a) => el("li", null,
        a.text && typeof a.text === "object" ? MJ.str(MJ.inLang(a.text), 700) : MJ.str(a.type, 32)))) : null,
      el("div", { class: "row" }, reason, go, adjust, correct));
  }

  // ---- seats: who sits where (members, or guests), changed between hands -------------------
  function seatsForm() {
    return el("form", { class: "staff-form", id: "seats-form" }, el("h3", null, T("seats")),
      el("div", { id: "seat-rows" }),
      el("div", { class: "error", id: "seats-error", role: "alert" }),
      el("h4", null, T("seat_acts")), el("ol", { id: "seat-acts", class: "muted" }),
      el("h4", null, T("phone_joins")), el("ol", { id: "phone-joins", class: "muted" }));
  }

  /** The phones' joins, leaves and releases at this table (who, when), newest first. */
  async function loadJoins() {
    let got;
    try { got = await call("/api/v1/staff/phones/joins?limit=20"); } catch (e) {
      if ($("seats-error")) $("seats-error").textContent = e.message;
      return;
    }
    const list = $("phone-joins");
    if (!list) return;
    const joins = Array.isArray(got && got.joins) ? got.joins.slice(0, 20) : [];
    const acts = ["join", "leave", "release"];
    list.replaceChildren(...(joins.length ? joins.map((j) => el("li", { class: "phone-join", "data-act": MJ.str(j.act, 16) },
      [actTime(j.at), MJ.seatName(j.seat, null, [null, null, null, null]), MJ.str(j.name, 32) || T("guest"),
        acts.includes(j.act) ? T("joined_" + j.act) : MJ.str(j.act, 16), j.member_id ? T("member") : null, actBy(j.by)]
        .filter(Boolean).join(" · "))) : [el("li", null, T("no_joins"))]));
  }

  async function loadSeats() {
    let members, seats, phones;
    try {
      [members, seats, phones] = await Promise.all([call("/api/v1/members"), call("/api/v1/members/seats"),
        call("/api/v1/play/seats").catch(() => null)]);
    } catch (e) { if ($("seats-error")) $("seats-error").textContent = e.message; return; }
    const onPhone = Array.isArray(phones && phones.seats) ? phones.seats : [];
    if (!$("seat-rows")) return;
    const list = (Array.isArray(members) ? members : []).filter((m) => m && m.active).slice(0, 5000);
    const players = Array.isArray(seats && seats.players) ? seats.players : [];
    $("seat-rows").replaceChildren(...[0, 1, 2, 3].map((s) => {
      const now = players[s] && typeof players[s] === "object" ? MJ.str(players[s].member_id, 32) : "";
      const pick = el("select", { id: `seat-${s}`, "data-seat": s }, el("option", { value: "" }, T("guest")),
        list.map((m) => el("option", { value: MJ.str(m.member_id, 32), selected: m.member_id === now }, MJ.str(m.name, 32))));
      const go = el("button", { class: "btn", type: "button", id: `seat-${s}-go` }, T("sit"));
      go.addEventListener("click", () => sit(s, pick.value || null));
      const held = typeof onPhone[s] === "string" ? MJ.str(onPhone[s], 32) : "";
      const free = held ? el("button", { class: "btn", type: "button", id: `seat-${s}-release` }, T("release_phone")) : null;
      if (free) free.addEventListener("click", () => release(s));
      return el("div", { class: "row" }, el("b", null, MJ.seatName(s, null, [])), pick, go,
        held ? el("span", { class: "muted", "data-phone-seat": s }, `${T("by_phone")}：${held}`) : null, free);
    }));
    const acts = Array.isArray(seats && seats.acts) ? seats.acts.slice(0, 10) : [];
    $("seat-acts").replaceChildren(...acts.map((a) => el("li", { class: "seat-act" },
      `${actTime(a.at)} · ${MJ.seatName(a.seat, null, [null, null, null, null])} · ${MJ.str(a.name, 32) || T("guest")} · ${actBy(a.by)}`)));
  }

  /** A seat act's time on this device's clock (the store keeps UTC). */
  function actTime(at) {
    const d = new Date(MJ.str(at, 40));
    return Number.isNaN(d.getTime()) ? "?" : d.toLocaleTimeString(MJ.lang() === "zh" ? "zh-CN" : "en-GB", { hour12: false });
  }

  /** Who acted, in words: "card" (the member's own card), "staff:ann", "owner:boss". */
  function actBy(by) {
    const text = MJ.str(by, 80);
    if (text === "card") return T("card");
    const [role, name] = [text.split(":", 1)[0], text.slice(text.indexOf(":") + 1)];
    return ["staff", "owner", "phone"].includes(role) && text.includes(":") ? `${T("by_" + role)} ${name}` : text;
  }

  /** Free a seat a phone holds (the player left, or lost the phone): audited as a release. */
  async function release(seat) {
    const error = $("seats-error");
    error.textContent = ""; error.classList.remove("ok");
    try {
      await call(`/api/v1/staff/phones/${seat}/release`, {});
      error.classList.add("ok"); error.textContent = T("done");
    } catch (e) { error.textContent = e.message; }
    loadSeats(); loadJoins();
  }

  async function sit(seat, memberId) {
    const error = $("seats-error");
    error.textContent = ""; error.classList.remove("ok");
    try {
      const path = `/api/v1/members/seats/${seat}`;
      await call(path, { member_id: memberId }, "PUT", keyOf("seat", `${path} ${memberId}`));
      delete S.keys.seat;
      error.classList.add("ok"); error.textContent = T("done");
    } catch (e) { error.textContent = e.message; }
    loadSeats();
  }

  function finishForm() {
    const winner = el("select", { id: "fin-seat" }, seatOptions(0));
    winner.addEventListener("change", () => prefill(Number(winner.value)));
    const from = el("select", { id: "fin-from" });
    const flags = FLAGS.map((f) => el("label", { class: "check" }, el("input", { type: "checkbox", value: f, "data-flag": f }), T(f)));
    const meldButton = el("button", { class: "btn", type: "button", id: "add-meld" }, T("add_meld"));
    meldButton.addEventListener("click", () => { addMeld($("fin-melds")); renderPicker(); });
    const more = el("button", { class: "btn", type: "button", id: "add-winner" }, T("add_winner"));
    more.addEventListener("click", () => { addWinner(); renderPicker(); });
    const settle = el("button", { class: "btn primary", type: "button", id: "fin-settle" }, T("settle"));
    settle.addEventListener("click", finishWin);
    const exhausted = el("button", { class: "btn", type: "button", id: "fin-exhausted" }, T("exhausted"));
    exhausted.addEventListener("click", () => act("finish", "/api/v1/staff/hands/current/finish",
      { result: "exhausted", reason: $("fin-reason").value, ...entries([]) }));
    // the 精 no reader saw, entered as soon as it is turned up: the displays show it
    const flip = el("button", { class: "btn", type: "button", id: "fin-flip" }, T("enter_flip"));
    flip.addEventListener("click", () => act("flip", "/api/v1/staff/hands/current/flip",
      { indicator: $("fin-indicator").value.trim(), reason: $("flip-reason").value }));
    const correct = el("button", { class: "btn", type: "button", id: "fin-correct", disabled: true }, T("correct"));
    correct.addEventListener("click", () => act("finish", "/api/v1/staff/hands/current/correction",
      { seat: Number(winner.value), hand: $("fin-hand").value.trim(), melds: melds($("fin-melds")), reason: $("fin-reason").value }));
    return el("form", { class: "staff-form", id: "finish-form" },
      el("h3", null, T("finish")),
      el("div", { class: "row" }, field(T("winner"), winner), field(T("from"), from),
        field(T("win_tile"), tileInput("fin-tile", "win_tile", { single: true }))),
      field(T("tiles_hand"), tileInput("fin-hand", "tiles_hand"), "field wide"),
      el("div", { class: "tile-row", id: "fin-hand-tiles" }),
      el("div", { id: "fin-melds" }), meldButton,
      field(T("discards"), tileInput("fin-discards", "discards", { max: 128 }), "field wide unread-only"),
      el("div", { class: "row" }, el("span", null, T("flags")), flags),
      el("div", { id: "fin-more" }), more,
      el("div", { class: "row noflip-only", id: "flip-form" }, field(T("indicator"), tileInput("fin-indicator", "indicator", { single: true })),
        field(T("flip_reason"), el("input", { id: "flip-reason", maxlength: 500 })), flip),
      el("div", { class: "error noflip-only", id: "flip-error", role: "status" }),
      // lianhua's 暗精 is concealed until the hand ends: it only ever goes with the result
      el("div", { class: "row anjing-only" }, field(T("an_indicator"), tileInput("fin-an-indicator", "an_jing", { single: true }))),
      el("div", { class: "row xia-only" }, field(T("xia_indicator"), tileInput("fin-xia-indicator", "xia_jing", { single: true }))),
      otherSeats(),
      field(T("reason"), el("input", { id: "fin-reason", maxlength: 500 }), "field wide"),
      el("div", { class: "row" }, settle, exhausted, correct),
      el("div", { class: "error", id: "finish-error", role: "alert" }));
  }

  /** A field of tiles the picker writes to: ``label`` names it, ``single`` holds one tile. */
  function tileInput(id, label, { single = false, max = 64 } = {}) {
    const attrs = { id, "data-target": id, "data-label": label, maxlength: single ? 4 : max, autocomplete: "off", spellcheck: "false" };
    if (single) { attrs["data-single"] = "1"; attrs.size = 4; }
    return el("input", attrs);
  }

  /** Seats no reader saw (a silent reader, a table without readers): hand, melds, discards. */
  function otherSeats() {
    const rows = [0, 1, 2, 3].map((s) => {
      const on = el("input", { type: "checkbox", "data-o": "on", id: `o${s}-on` });
      const box = el("div", { id: `o${s}-melds` });
      const add = el("button", { class: "btn", type: "button" }, T("add_meld"));
      add.addEventListener("click", () => { on.checked = true; addMeld(box); renderPicker(); });
      const row = el("div", { class: "other-seat", "data-other-seat": s },
        el("div", { class: "row" }, el("b", null, MJ.seatName(s, null)), el("label", { class: "check" }, on, T("enter_seat"))),
        field(T("hand_only"), tileInput(`o${s}-hand`, "hand_only"), "field wide"), box, add,
        field(T("discards"), tileInput(`o${s}-discards`, "discards", { max: 128 }), "field wide"));
      row.addEventListener("input", (e) => { if (e.target !== on) on.checked = true; });
      return row;
    });
    return el("details", { class: "other-seats", id: "fin-others" }, el("summary", null, T("others")), rows);
  }

  let winnerNo = 0;
  /** Another winner on the same discard (一炮多响, where the ruleset allows it). */
  function addWinner(w = {}) {
    const id = `w${++winnerNo}`;
    const seat = el("select", { "data-w": "seat", id: `${id}-seat` }, seatOptions(Number.isInteger(w.seat) ? w.seat : 0));
    const box = el("div", { id: `${id}-melds` });
    const add = el("button", { class: "btn", type: "button" }, T("add_meld"));
    add.addEventListener("click", () => { addMeld(box); renderPicker(); });
    const hand = tileInput(`${id}-hand`, "tiles_hand");
    hand.value = typeof w.hand === "string" ? MJ.str(w.hand, 64) : "";
    const flags = FLAGS.map((f) => el("label", { class: "check" }, el("input", { type: "checkbox", "data-wflag": f, checked: !!(Array.isArray(w.flags) && w.flags.includes(f)) }), T(f)));
    const remove = el("button", { class: "btn", type: "button" }, T("remove"));
    const block = el("div", { class: "staff-winner", "data-winner": id },
      el("div", { class: "row" }, field(T("more_winner"), seat), remove),
      field(T("tiles_hand"), hand, "field wide"), box, add,
      el("div", { class: "row" }, el("span", null, T("flags")), flags),
      field(T("discards"), tileInput(`${id}-discards`, "discards", { max: 128 }), "field wide unread-only"));
    remove.addEventListener("click", () => { block.remove(); if (!$(S.active)) target("fin-hand"); renderPicker(); });
    $("fin-more").append(block);
    for (const m of Array.isArray(w.melds) ? w.melds.slice(0, 4) : []) addMeld(box, meldOf(m));
  }

  const extraWinners = () => [...document.querySelectorAll("#fin-more [data-winner]")].map((b) => {
    const id = b.dataset.winner;
    return {
      seat: Number($(`${id}-seat`).value), hand: $(`${id}-hand`).value.trim(), melds: melds($(`${id}-melds`)),
      flags: [...b.querySelectorAll("[data-wflag]:checked")].map((x) => x.dataset.wflag),
      discards: $(`${id}-discards`).value.trim(),
    };
  });

  /** The other seats entered (ticked, not a winner). */
  const othersEntered = (winners) => [0, 1, 2, 3].filter((s) => !winners.includes(s) && $(`o${s}-on`).checked).map((s) => {
    const x = { seat: s, hand: $(`o${s}-hand`).value.trim(), melds: melds($(`o${s}-melds`)) };
    const d = $(`o${s}-discards`).value.trim();
    if (d) x.discards = d;
    return x;
  });

  /** What a finish carries besides the winners: the seats entered, the flipped tile (and
      lianhua's 暗精, yongfeng's 下精). */
  function entries(winners) {
    const out = {};
    const seats = othersEntered(winners);
    if (seats.length) out.seats = seats;
    const indicator = $("fin-indicator").value.trim();
    if (!S.flipSeen && indicator) out.indicator = indicator;
    const an = $("fin-an-indicator").value.trim();
    if (S.anJing && an) out.an_indicator = an;
    const xia = $("fin-xia-indicator").value.trim();
    if (S.xiaJing && xia) out.xia_indicator = xia;
    return out;
  }

  /** The seats the winners' blocks hold (the first only once its hand is entered: left
      empty for a 流局, its seat is entered with the others). */
  const winnerSeats = () => [...($("fin-hand").value.trim() ? [Number($("fin-seat").value)] : []),
    ...extraWinners().map((w) => w.seat)];

  function fromOptions(winner) {
    const opts = [el("option", { value: "self" }, T("self")), el("option", { value: "kong_replacement" }, T("kong_replacement"))];
    for (const s of [0, 1, 2, 3]) if (s !== winner) opts.push(el("option", { value: String(s) }, T("discard_of", { s: MJ.seatName(s, null) })));
    for (const s of [0, 1, 2, 3]) if (s !== winner) opts.push(el("option", { value: `rob_kong:${s}` }, T("rob_of", { s: MJ.seatName(s, null) })));
    $("fin-from").replaceChildren(...opts);
  }

  let meldNo = 0;
  function addMeld(container, m = {}) {
    const id = `meld-${meldNo++}`;
    const type = el("select", { "data-meld": "type" }, MELD_TYPES.map((t) => el("option", { value: t, selected: t === m.type }, T(t))));
    const tiles = el("input", { "data-meld": "tiles", "data-target": id, "data-label": "melds", id, size: 8, maxlength: 16, value: m.tiles || "", autocomplete: "off" });
    const from = el("select", { "data-meld": "from" }, el("option", { value: "" }, "—"),
      [0, 1, 2, 3].map((s) => el("option", { value: s, selected: s === m.from }, MJ.seatName(s, null))));
    const remove = el("button", { class: "btn", type: "button" }, T("remove"));
    // the claimed tile as read (kept while the meld still holds it)
    const claimed = typeof m.claimed === "string" ? MJ.str(m.claimed, 4) : null;
    const row = el("div", { class: "row meld", "data-meld-row": id, "data-claimed": claimed }, type, tiles, el("span", null, T("meld_from")), from, remove);
    remove.addEventListener("click", () => { row.remove(); if (S.active === id) target("fin-hand"); renderPicker(); });
    container.append(row);
  }

  const melds = (container) => [...container.querySelectorAll("[data-meld-row]")].map((row) => {
    const get = (k) => row.querySelector(`[data-meld="${k}"]`).value;
    const m = { type: get("type"), tiles: get("tiles").trim() };
    if (get("from") !== "") m.from = Number(get("from"));
    const claimed = row.dataset.claimed;
    if (claimed && (MJ.parseTiles(m.tiles).kinds || []).includes(claimed)) m.claimed = claimed;
    return m;
  });

  /** A meld from the API (tiles as a list or as notation) for the form. */
  const meldOf = (m) => ({
    type: MELD_TYPES.includes(m.type) ? m.type : "pung",
    tiles: Array.isArray(m.tiles) ? m.tiles.map((t) => MJ.str(t, 2)).join("") : MJ.str(m.tiles, 16),
    from: Number.isInteger(m.from) ? m.from : undefined, claimed: m.claimed,
  });

  /** The winner's starting point: the readers' picture of a won hand (face up, so public),
      else the seat's melds on the table; the other winners of the same discard likewise. */
  function prefill(seat) {
    fromOptions(seat);
    const v = S.view;
    const reads = v && Array.isArray(v.winners_read) ? v.winners_read.filter((w) => w && Number.isInteger(w.seat)) : [];
    const read = reads.find((w) => w.seat === seat) || null;
    $("fin-melds").replaceChildren();
    $("fin-more").replaceChildren();
    $("fin-hand").value = read ? MJ.str(read.hand, 64) : "";
    $("fin-tile").value = read ? MJ.str(read.tile, 4) : "";
    if (read && typeof read.from !== "undefined") $("fin-from").value = String(read.from);
    document.querySelectorAll("[data-flag]").forEach((box) => { box.checked = !!(read && Array.isArray(read.flags) && read.flags.includes(box.dataset.flag)); });
    const ms = read ? read.melds : publicSeat(seat).melds;
    for (const m of Array.isArray(ms) ? ms.slice(0, 4) : []) addMeld($("fin-melds"), meldOf(m));
    if (read) for (const w of reads.slice(0, 3)) if (w.seat !== seat) addWinner(w);
    target("fin-hand");
  }

  function publicSeat(seat) {
    const seats = S.view && S.view.public && Array.isArray(S.view.public.seats) ? S.view.public.seats : [];
    const x = seats[seat] && typeof seats[seat] === "object" ? seats[seat] : {};
    return { tiles: Number.isInteger(x.tiles) ? x.tiles : null, melds: Array.isArray(x.melds) ? x.melds : [], discards: Array.isArray(x.discards) ? x.discards : [] };
  }

  // ---- the picker -------------------------------------------------------------------------------
  function target(id) {
    if (!$(id)) return;
    S.active = id;
    document.querySelectorAll("#staff [data-target]").forEach((n) => n.classList.toggle("editing", n.id === id));
    $("picker-target").textContent = `${T("editing")}: ${T($(id).dataset.label || "tiles_hand")}`;
  }

  function picker() {
    const grid = el("div", { class: "picker", id: "picker" }, KINDS.map((k) =>
      el("button", { class: "pick", type: "button", "data-kind": k, title: MJ.tileName(k) },
        MJ.tile(k, "tile-m"), el("span", { class: "left", "data-left": k }, "4"))));
    grid.addEventListener("click", (e) => {
      const b = e.target.closest("[data-kind]");
      if (!b || b.disabled) return;
      const input = $(S.active) || $("fin-hand");
      input.value = input.dataset.single ? b.dataset.kind : tidy(input.value + b.dataset.kind);
      input.dispatchEvent(new Event("input", { bubbles: true })); // (an other seat's row: entered)
      renderPicker();
    });
    const back = el("button", { class: "btn", type: "button", id: "pick-back" }, T("back"));
    back.addEventListener("click", () => {
      const input = $(S.active) || $("fin-hand");
      const { kinds } = MJ.parseTiles(input.value);
      input.value = kinds ? tidy(kinds.slice(0, -1).join("")) : "";
      renderPicker();
    });
    const clear = el("button", { class: "btn", type: "button", id: "pick-clear" }, T("clear"));
    clear.addEventListener("click", () => { ($(S.active) || $("fin-hand")).value = ""; renderPicker(); });
    return el("div", { class: "staff-picker" }, el("h3", null, T("picker")),
      el("div", { class: "muted" }, T("picker_hint")),
      el("div", { class: "row" }, el("b", { id: "picker-target" }), back, clear), grid);
  }

  /** Notation grouped by suit as the engine writes it: "123m 55p E C". */
  function tidy(text) {
    const { kinds } = MJ.parseTiles(text);
    if (!kinds) return text;
    const order = (k) => KINDS.indexOf(k);
    const sorted = kinds.slice().sort((a, b) => order(a) - order(b));
    const groups = [];
    for (const s of "mps") { const d = sorted.filter((k) => k[1] === s).map((k) => k[0]).join(""); if (d) groups.push(d + s); }
    const honors = sorted.filter((k) => k.length === 1).join("");
    if (honors) groups.push(honors);
    return groups.join(" ");
  }

  /** 4 of a kind, less what lies face up (discards, exposed melds, the 精) and what the
      form holds (the winning tile is in the winner's hand). */
  function renderPicker() {
    if (!$("picker")) return;
    const used = Object.fromEntries(KINDS.map((k) => [k, 0]));
    const count = (k) => { if (Object.hasOwn(used, k)) used[k] += 1; };
    const countText = (text) => (MJ.parseTiles(text).kinds || []).forEach(count);
    const winners = winnerSeats();
    const others = othersEntered(winners);
    const entered = [...winners, ...others.map((x) => x.seat)];
    for (let s = 0; s < 4; s++) {
      const seat = publicSeat(s);
      seat.discards.forEach(count);
      if (!entered.includes(s)) seat.melds.forEach((m) => (Array.isArray(m.tiles) ? m.tiles : []).forEach(count));
      $(`o${s}-on`).closest("[data-other-seat]").hidden = winners.includes(s);
    }
    const hand = MJ.parseTiles($("fin-hand").value);
    (hand.kinds || []).forEach(count);
    melds($("fin-melds")).forEach((m) => countText(m.tiles));
    if (S.unread) countText($("fin-discards").value);
    for (const w of extraWinners()) {
      countText(w.hand);
      w.melds.forEach((m) => countText(m.tiles));
      if (S.unread) countText(w.discards);
    }
    for (const x of others) { countText(x.hand); x.melds.forEach((m) => countText(m.tiles)); countText(x.discards); }
    if (!S.flipSeen) countText($("fin-indicator").value);
    else if (S.shownFlip) count(S.shownFlip);
    if (S.xiaJing) countText($("fin-xia-indicator").value);
    for (const k of KINDS) {
      const left = 4 - used[k];
      const button = document.querySelector(`#picker [data-kind="${k}"]`);
      button.disabled = left <= 0;
      button.querySelector("[data-left]").textContent = String(Math.max(left, 0));
    }
    $("fin-hand-tiles").replaceChildren(...(hand.kinds || []).map((k) => MJ.tile(k, "tile-s")));
  }

  // ---- the other acts ---------------------------------------------------------------------------
  function actForms() {
    const pSeat = el("select", { id: "pen-seat" }, seatOptions(0));
    const pKind = el("select", { id: "pen-kind" }, ["false_win", "xianggong"].map((p) => el("option", { value: p }, T(p))));
    const pReason = el("input", { id: "pen-reason", maxlength: 500, required: true });
    const pGo = el("button", { class: "btn", type: "button", id: "pen-go" }, T("apply"));
    pGo.addEventListener("click", () => needReason("pen", pReason.value) && act("pen", "/api/v1/staff/hands/current/penalties",
      { seat: Number(pSeat.value), penalty: pKind.value, reason: pReason.value }));
    pKind.addEventListener("change", penaltyHint);
    const aFrom = el("select", { id: "adj-from" }, seatOptions(0));
    const aTo = el("select", { id: "adj-to" }, seatOptions(1));
    const aPoints = el("input", { id: "adj-points", type: "number", min: 1, max: 100000, step: 1, size: 6 });
    const aReason = el("input", { id: "adj-reason", maxlength: 500 });
    const aGo = el("button", { class: "btn", type: "button", id: "adj-go" }, T("apply"));
    aGo.addEventListener("click", () => {
      const points = Number(aPoints.value);
      if (!Number.isInteger(points) || points < 1 || points > 100000) { say("adj", T("need_points"), false); return; }
      if (needReason("adj", aReason.value)) {
        act("adj", "/api/v1/staff/adjustments",
          { from_seat: Number(aFrom.value), to_seat: Number(aTo.value), points, reason: aReason.value });
      }
    });
    return el("div", { class: "staff-forms" },
      el("form", { class: "staff-form", id: "pen-form" }, el("h3", null, T("penalty")),
        el("div", { class: "row" }, field(T("seat"), pSeat), field("", pKind), field(T("reason"), pReason), pGo),
        el("p", { class: "muted", id: "pen-hint" }),
        el("div", { class: "error", id: "pen-error", role: "status" })),
      el("form", { class: "staff-form", id: "adj-form" }, el("h3", null, T("adjust")),
        el("div", { class: "row" }, field(T("from_seat"), aFrom), field(T("to_seat"), aTo), field(T("points"), aPoints),
          field(T("reason"), aReason), aGo),
        el("div", { class: "error", id: "adj-error", role: "status" })));
  }

  /** What the chosen penalty costs here, or that the owner must set it first (the button
      waits for it): said before anyone tries, from the hand's view. */
  function penaltyHint() {
    const kind = $("pen-kind") && $("pen-kind").value;
    const ready = S.view && S.view.penalties && typeof S.view.penalties === "object" ? S.view.penalties : null;
    if (!kind || !ready || !(kind in ready)) return;
    const p = ready[kind];
    const amount = p && Number.isInteger(p.amount) ? p.amount : null;
    $("pen-hint").textContent = amount === null ? T("pen_unset", { p: T(kind) })
      : T("pen_amount", { n: amount, by: T(p.by === "owner" ? "pen_by_owner" : "pen_by_ruleset") });
    $("pen-hint").classList.toggle("warn", amount === null);
    $("pen-go").disabled = amount === null;
  }

  function finishWin() {
    const fromValue = $("fin-from").value;
    const from = /^[0-3]$/.test(fromValue) ? Number(fromValue) : fromValue;
    const tile = $("fin-tile").value.trim();
    const main = {
      seat: Number($("fin-seat").value), hand: $("fin-hand").value.trim(), melds: melds($("fin-melds")), tile, from,
      flags: [...document.querySelectorAll("[data-flag]:checked")].map((b) => b.dataset.flag),
    };
    if (S.unread) main.discards = $("fin-discards").value.trim();
    // the others won on the same tile from the same seat (一炮多响)
    const more = extraWinners().map(({ discards, ...w }) => ({ ...w, tile, from, ...(S.unread ? { discards } : {}) }));
    const winners = [main, ...more];
    act("finish", "/api/v1/staff/hands/current/finish",
      { winners, reason: $("fin-reason").value, ...entries(winners.map((w) => w.seat)) });
  }

  /** Send an act with the hand and the events seen; the API's refusal beside its form. */
  async function act(form, path, body, noHandId = false) {
    if (!S.view || !S.view.hand_id) return false;
    const sent = { ...body, seen: S.view.seen };
    if (!noHandId) sent.hand_id = S.view.hand_id;
    return attempt(form, () => once(form, path, sent, body));
  }

  /** Where an act's fields are, to empty once it is done. */
  const FORMS = { finish: "finish-form", flip: "flip-form", pen: "pen-form", adj: "adj-form", void: "void-form",
    undo: "acts-form", recent: "recent-form", close: "session-form", ack: "store-loss" };

  /** One submission: an Idempotency-Key for it, kept while it is tried again with the same
   * values (an answer lost, a refusal), so the table does it once; after it is done a new
   * key, and the act's fields emptied, so a second tap sends nothing again and the next act
   * asks its own reason. */
  async function once(form, path, sent, values) {
    const answer = await call(path, sent, "POST", keyOf(form, `${path} ${JSON.stringify(values)}`));
    delete S.keys[form];
    const box = $(FORMS[form]);
    if (box) box.querySelectorAll("input:not([type=checkbox])").forEach((input) => { input.value = ""; });
    if (form === "void") $("void-form").hidden = true;
    return answer;
  }

  /** The form's Idempotency-Key: the same while it sends ``what`` again (a second tap, a
      retry), a new one for anything else; the caller forgets it after success. */
  function keyOf(form, what) {
    let k = S.keys[form];
    if (!k || k.what !== what) {
      const bytes = crypto.getRandomValues(new Uint8Array(16)); // (randomUUID: https only)
      k = S.keys[form] = { what, key: Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("") };
    }
    return k.key;
  }

  /** A line beside the act's form: a refusal stays until the next try, a "done" goes after
      a few seconds (and at the next act, or the next hand). */
  function say(form, text, ok) {
    const line = $(`${form}-error`);
    clearTimeout(S.said);
    document.querySelectorAll("#staff .error").forEach((n) => { n.textContent = ""; n.classList.remove("ok"); });
    if (!line) return;
    line.classList.toggle("ok", ok);
    line.textContent = text;
    if (ok) S.said = setTimeout(() => { if (line.textContent === text) { line.textContent = ""; line.classList.remove("ok"); } }, 4000);
  }

  /** Do ``work`` (a request), its refusal or "done" beside its form, then look again;
      true once done. */
  async function attempt(form, work) {
    if (S.busy) return false;
    S.busy = true;
    say(null, "", false);
    let refused = null;
    try {
      await work();
    } catch (e) {
      refused = e.message;
    } finally {
      S.busy = false;
    }
    await look();
    // "done" where it is seen: an act that closed its form (a finish) says it in the task card
    const seen = $(`${form}-error`) && $(`${form}-error`).offsetParent !== null;
    if (refused !== null) say(form, refused, false);
    else say(seen ? form : "roll-dice", T("done"), true);
    if ($("staff-more") && $("staff-more").open) lookRecent();
    return refused === null;
  }

  // ---- the view -------------------------------------------------------------------------------
  function renderView() {
    const v = S.view;
    if (S.entry) S.entry.update(v);
    if (!v || !v.hand_id) {
      renderTask();
      $("staff-view").replaceChildren(el("p", { class: "muted" }, T("no_hand")));
      $("staff-acts").replaceChildren();
      return;
    }
    const p = v.public && typeof v.public === "object" ? v.public : {};
    $("staff-view").dataset.seen = Number.isInteger(v.seen) ? String(v.seen) : ""; // (the events the acts name)
    // no reader saw a tile (a table without readers): every seat and the flip are entered
    const seen = [0, 1, 2, 3].map(publicSeat);
    S.unread = seen.every((x) => !x.tiles && !x.melds.length && !x.discards.length);
    // (a ruleset that turns up no tile has none to enter)
    S.flipSeen = v.flips === false || !!(p.jing && typeof p.jing === "object" && Object.keys(p.jing).length);
    // the turned-up tile lies face up (read, or entered as its own act): one fewer to pick
    S.shownFlip = p.jing && typeof p.jing === "object" ? MJ.str(p.jing.zheng || p.jing.flipped, 2) || null : null;
    document.body.classList.toggle("staff-unread", S.unread);
    document.body.classList.toggle("staff-noflip", !S.flipSeen);
    S.anJing = v.an_jing === true; // (the ruleset has a 暗精 no reader saw)
    document.body.classList.toggle("staff-anjing", S.anJing);
    S.xiaJing = v.xia_jing === true; // (the ruleset turns up a 下精 no reader saw)
    document.body.classList.toggle("staff-xia", S.xiaJing);
    penaltyHint();
    const dealer = Number.isInteger(p.dealer) ? p.dealer : null;
    const totals = Array.isArray(v.totals) ? v.totals : [];
    const jing = p.jing && typeof p.jing === "object" ? Object.values(p.jing).map((t) => MJ.str(t, 2)).filter(Boolean) : [];
    const seats = [0, 1, 2, 3].map((s) => {
      const x = publicSeat(s);
      return el("div", { class: "staff-seat", "data-seat": s },
        el("div", { class: "row" }, el("b", null, MJ.seatName(s, dealer)),
          el("span", null, x.tiles === null ? "" : `${x.tiles} ${T("tiles")}`),
          el("span", { class: "total" }, MJ.fmtNum(totals[s]) || "0")),
        el("div", { class: "tile-row" }, x.melds.slice(0, 8).map((m) =>
          el("span", { class: "meld-tiles" }, (Array.isArray(m.tiles) && m.tiles.length ? m.tiles.slice(0, 4) : ["?", "?", "?", "?"])
            .map((t) => MJ.tile(MJ.str(t, 2), "tile-s", { hidden: t === "?" }))))),
        el("div", { class: "tile-row discards" }, x.discards.slice(0, 40).map((t) => MJ.tile(MJ.str(t, 2), "tile-xs"))));
    });
    const head = [`${MJ.t("hand_no", { n: Number.isInteger(v.hand_no) ? v.hand_no : "?" })}`,
      v.in_progress ? T("in_play") : T("over")];
    if (typeof v.house === "string" && v.house) head.push(MJ.str(v.house, 64)); // the 店规 played
    if (typeof v.house_problem === "string" && v.house_problem) head.push(MJ.str(v.house_problem, 300)); // (and why not)
    if (typeof p.phase === "string") head.push(MJ.t("phase_" + p.phase));
    if (Number.isInteger(p.live)) head.push(`${MJ.t("wall")} ${p.live} ${MJ.t("tiles")}`);
    $("staff-view").replaceChildren(
      el("div", { class: "staff-hand-head", id: "staff-hand-head" }, head.join(" · "),
        jing.length ? el("span", { class: "jing" }, ` · ${T("jing")} `, jing.map((t) => MJ.tile(t, "tile-s"))) : null),
      el("div", { class: "staff-seats" }, seats));
    renderTask();
    if (S.handShown !== v.hand_id) { // a new hand: no reason or refusal of the last one stays
      S.handShown = v.hand_id;
      document.querySelectorAll("#staff input[id$='-reason']").forEach((n) => { n.value = ""; });
      document.querySelectorAll("#staff .error:not(.ok)").forEach((n) => { n.textContent = ""; });
    }
    const acts = Array.isArray(v.acts) ? v.acts.slice(-50) : [];
    $("staff-acts").replaceChildren(...(acts.length ? acts.map((a) => el("li", { "data-act": MJ.str(a.type, 32) },
      a.text && typeof a.text === "object" ? MJ.str(MJ.inLang(a.text), 700) : MJ.str(a.type, 32)))
      : [el("li", { class: "muted" }, T("no_acts"))]));
    $("undo").disabled = !acts.length || v.session_id === null; // (a closed session: nothing more)
    // a declared 胡 lies face up: its tiles can be corrected until the next hand starts
    $("fin-correct").disabled = !(Array.isArray(v.winners_read) && v.winners_read.length);
    // a new hand, or a win just declared: its tiles are the starting point
    const key = `${v.hand_id}/${Array.isArray(v.winners_read) ? v.winners_read.length : 0}`;
    if (S.prefilled !== key) {
      S.prefilled = key;
      const w = v.winners_read && v.winners_read[0];
      if (w && Number.isInteger(w.seat)) $("fin-seat").value = String(w.seat);
      for (let s = 0; s < 4; s++) {
        $(`o${s}-on`).checked = S.unread;
        for (const f of ["hand", "discards"]) $(`o${s}-${f}`).value = "";
        $(`o${s}-melds`).replaceChildren();
      }
      $("fin-discards").value = "";
      $("fin-indicator").value = "";
      $("fin-an-indicator").value = "";
      $("fin-xia-indicator").value = "";
      $("fin-others").open = S.unread;
      prefill(Number($("fin-seat").value));
    }
    renderPicker();
  }

  /** The hand's settlement as the players see it (what a finish, a void or a correction did). */
  function settlementView(raw) {
    if (!raw) return null;
    const st = MJ.cleaned("settlement", raw);
    const title = st.voided ? MJ.t("void") : MJ.t("settlement");
    const line = (l) => el("tr", null, el("td", null, l.reason), el("td", null, MJ.seatName(l.from, null)),
      el("td", null, "→"), el("td", null, MJ.seatName(l.to, null)), el("td", { class: "num" }, MJ.fmtNum(l.amount)));
    // who entered it, in the page's words as the display says it (the notes are the engine's)
    const notes = st.entered ? [MJ.t("entered_" + st.entered)] : [];
    return el("div", { class: "staff-settlement", id: "staff-settlement" }, el("h3", null, title),
      st.net ? el("div", { class: "row" }, st.net.map((n, s) => el("span", null, `${MJ.seatName(s, null)} ${MJ.fmtNum(n) || "0"}`))) : null,
      el("table", { class: "lines" }, st.lines.map(line)),
      notes.map((n) => el("div", { class: "muted" }, n)));
  }

  function onMessage(topic, payload) {
    if (payload === null) return;
    if (topic === "status") { S.status = payload; if (S.me && $("task")) renderTask(); } // (the notice card: dealer.js)
    if (["hand", "settlement", "events", "scores", "status", "cashout"].includes(topic)) lookSoon();
    if (topic === "seats" && S.me) loadSeats();
  }

  // the login is gone (a 401 on a look): the login form
  MJ.onLoggedOut(() => { S.me = null; localStorage.removeItem(LOGGED_IN); showLogin(); });

  document.addEventListener("DOMContentLoaded", () => {
    document.addEventListener("mj:lang", () => { if (S.me) { buildConsole(); S.prefilled = null; S.task = null; S.recentShown = null; renderView(); } else showLogin(); });
    document.addEventListener("mj:topic", (e) => onMessage(e.detail.topic, e.detail.payload));
    $("staff").addEventListener("input", renderPicker); // typed notation: the counts follow
    $("staff").addEventListener("focusin", (e) => { const n = e.target.closest("[data-target]"); if (n) target(n.id); });
    start();
  });
})();
