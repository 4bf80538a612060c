/* The owners' house rules (docs/house-rules.md), a part of owner.js's pages:
   #/house            the house rulesets, the assignment to tables, the audit
   #/house/edit?name=<name>&base=<builtin>   the form: every option, a preview, save
   The server checks every value (mjtable rules check's validation) and names the option. */
"use strict";

MJ.houseRules = (() => {
  const { el } = MJ;
  const T = MJ.words({
    zh: {
      house: "店规", new_house: "新建店规", base: "从内置规则开始", name: "店规名称", edit: "修改",
      version: "版本", by: "修改人", at: "时间", none_yet: "还没有店规：从一个内置规则开始新建。",
      create: "新建", preview: "预览", save: "保存", saved: "已保存：第 {v} 版", saving: "保存中…",
      allowed: "可选：{a}", yes: "是", no: "否",
      preview_title: "三个样例牌局：原来的与现在的输赢", sample: "样例 {n}", old: "原来", new: "现在",
      assign: "指派给牌桌", assign_btn: "指派", next_hand: "从下一局起（否则从下一场起）",
      all_tables: "全部牌桌", assignments: "各牌桌的店规", table: "牌桌", applied: "已生效版本",
      problem: "未生效原因", audit: "修改记录", action: "操作", action_save: "保存", action_assign: "指派", action_receive: "从总台收到", action_refuse: "未采用总台的",
      old_values: "原来的值", new_values: "新的值", download: "下载规则文件（TOML）", seed: "出处",
      unchanged: "与内置规则相同", changed: "已改", pick_table: "请至少选择一张牌桌",
      software: "软件版本", behind: "比总台旧（{v}）", table_rules: "本机设置", not_applied: "未生效：{p}",
      changes: "改动", no_changes: "与原来相同", rules_version: "第 {v} 版", from_session: "从下一场起",
    },
    en: {
      house: "House rules", new_house: "New house ruleset", base: "Start from", name: "Name", edit: "Edit",
      version: "Version", by: "By", at: "When", none_yet: "No house ruleset yet: start one from a built-in ruleset.",
      create: "Create", preview: "Preview", save: "Save", saved: "Saved: version {v}", saving: "Saving…",
      allowed: "Allowed: {a}", yes: "yes", no: "no",
      preview_title: "Three sample hands: the nets before and now", sample: "Sample {n}", old: "Before", new: "Now",
      assign: "Assign to tables", assign_btn: "Assign", next_hand: "From the next hand (else the next session)",
      all_tables: "All tables", assignments: "Each table's house rules", table: "Table", applied: "Applied version",
      problem: "Not applied because", audit: "Changes", action: "Action", action_save: "save", action_assign: "assign", action_receive: "received from the hub", action_refuse: "refused the hub's",
      old_values: "Before", new_values: "After", download: "Download the preset (TOML)", seed: "From",
      unchanged: "as the built-in", changed: "changed", pick_table: "Choose at least one table",
      software: "Software", behind: "older than the hub's ({v})", table_rules: "the table's own settings", not_applied: "not applied: {p}",
      changes: "Changes", no_changes: "the same as before", rules_version: "version {v}", from_session: "from the next session",
    },
  });
  const api = (path, options) => MJ.api(path, options);
  const enc = encodeURIComponent;
  const head = (...cells) => el("thead", null, el("tr", null, cells.map((c) => el("th", null, c))));

  /** One option's value in words: 是/否, a number, or its choice's words (from the form). */
  function say(o, v) {
    if (o.kind === "bool") return v === true ? T("yes") : v === false ? T("no") : String(v);
    if (o.kind === "choice") {
      const i = o.choices.indexOf(v);
      return i >= 0 && o.words[i] ? MJ.inLang(o.words[i]) : String(v);
    }
    return String(v);
  }

  /** A save's option values as the audit shows them: 「label」value, by the form of its base. */
  function values(v, forms) {
    if (!v || typeof v !== "object") return "";
    if (v.options) {
      const known = (forms.get(v.base) || { options: [] }).options;
      const has = (k) => Object.prototype.hasOwnProperty.call(v.options, k);
      const said = [ // in the form's order (a stored object's keys may come in any)
        ...known.filter((o) => has(o.key)).map((o) => `「${o.label}」${say(o, v.options[o.key])}`),
        ...Object.keys(v.options).filter((k) => !known.some((o) => o.key === k)).map((k) => `${k} = ${JSON.stringify(v.options[k])}`)];
      return [T("rules_version", { v: v.version }), ...said].join("；");
    }
    return [v.name, T("rules_version", { v: v.version }), v.from_next_hand === undefined ? null : T(v.from_next_hand ? "next_hand" : "from_session"),
      typeof v.problem === "string" ? MJ.str(v.problem, 500) : null]
      .filter(Boolean).join(" · ");
  }
  /** The forms of the built-in rulesets the audit's saves start from. */
  async function formsOf(audit) {
    const bases = [...new Set(audit.flatMap((e) => [e.old, e.new]).filter((v) => v && v.base).map((v) => v.base))];
    const got = await Promise.all(bases.map((b) => api(`/api/v1/house/form/${enc(b)}`).catch(() => null)));
    return new Map(bases.map((b, i) => [b, got[i]]).filter(([, f]) => f));
  }

  /** #/house: the rulesets, the assignment form, each table's assignment, the audit. */
  async function list(page, onHub) {
    const [rulesets, builtins, assignments, audit, hub] = await Promise.all([
      api("/api/v1/house/rulesets"), api("/api/v1/house/builtins"), api("/api/v1/house/assignments"),
      api("/api/v1/house/audit"), onHub()]);
    const tables = hub ? (await api("/api/v1/tables")).map((t) => t.table_id) : [];
    const forms = await formsOf(audit);
    const baseName = (id) => { const b = builtins.find((x) => x.id === id); return b ? `${b.name}（${id}）` : id; };
    page(el("h1", null, T("house")),
      el("form", { class: "panel filters", id: "house-new" },
        el("label", null, T("name"), el("input", { id: "house-new-name", size: 12, maxlength: 64, required: true })),
        el("label", null, T("base"), el("select", { id: "house-new-base" },
          builtins.map((b) => el("option", { value: b.id, selected: b.id === "xingguo" }, `${b.name}（${b.id}）`)))),
        el("button", { class: "btn primary", type: "submit" }, T("create"))),
      el("div", { class: "panel" }, rulesets.length === 0 ? el("p", { class: "muted" }, T("none_yet")) :
        el("table", { class: "grid-table", id: "house-rulesets" },
          head(T("name"), T("base"), T("version"), T("by"), T("at"), ""),
          el("tbody", null, rulesets.map((r) => el("tr", null,
            el("td", null, r.name), el("td", null, baseName(r.base)), el("td", { class: "num" }, r.version),
            el("td", null, r.updated_by), el("td", null, MJ.when(r.updated_at)),
            el("td", null, el("a", { class: "btn", href: `#/house/edit?name=${enc(r.name)}&base=${enc(r.base)}` }, T("edit")))))))),
      rulesets.length === 0 ? null : el("form", { class: "panel filters", id: "house-assign" },
        el("h2", null, T("assign")),
        el("label", null, T("house"), el("select", { id: "assign-name" }, rulesets.map((r) => el("option", { value: r.name }, r.name)))),
        hub ? el("fieldset", { id: "assign-tables" }, el("legend", null, T("table")),
          el("label", null, el("input", { type: "checkbox", id: "assign-all" }), T("all_tables")),
          tables.map((t) => el("label", null, el("input", { type: "checkbox", name: "table", value: t }), t))) : null,
        el("label", null, el("input", { type: "checkbox", id: "assign-next-hand" }), T("next_hand")),
        el("button", { class: "btn primary", type: "submit" }, T("assign_btn")),
        el("span", { class: "error", id: "assign-state", role: "alert" })),
      el("div", { class: "panel" }, el("h2", null, T("assignments")),
        el("table", { class: "grid-table", id: "house-assignments" },
          head(T("table"), T("house"), T("version"), T("applied"), T("problem"), T("by"), T("at")),
          el("tbody", null, assignments.map((a) => el("tr", { "data-table": a.table_id },
            el("td", null, a.table_id), el("td", null, a.name), el("td", { class: "num" }, a.version),
            el("td", { class: "num" }, a.applied_version ?? ""), el("td", { class: "error" }, a.problem || ""),
            el("td", null, a.assigned_by), el("td", null, MJ.when(a.assigned_at))))))),
      el("div", { class: "panel" }, el("h2", null, T("audit")),
        el("table", { class: "grid-table", id: "house-audit" },
          head(T("at"), T("by"), T("action"), T("name"), T("table"), T("old_values"), T("new_values")),
          el("tbody", null, audit.map((e) => el("tr", null,
            el("td", null, MJ.when(e.at)), el("td", null, e.by), el("td", null, T(`action_${e.action}`)),
            el("td", null, e.name), el("td", null, e.table_id || ""),
            el("td", null, values(e.old, forms)), el("td", null, values(e.new, forms))))))));
    document.getElementById("house-new").addEventListener("submit", (e) => {
      e.preventDefault();
      const name = document.getElementById("house-new-name").value.trim();
      location.hash = `#/house/edit?name=${enc(name)}&base=${enc(document.getElementById("house-new-base").value)}`;
    });
    const form = document.getElementById("house-assign");
    if (!form) return;
    const all = document.getElementById("assign-all");
    if (all) all.addEventListener("change", () => form.querySelectorAll("input[name=table]").forEach((b) => { b.checked = all.checked; }));
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const state = document.getElementById("assign-state");
      const picked = [...form.querySelectorAll("input[name=table]:checked")].map((b) => b.value);
      if (hub && picked.length === 0) { state.textContent = T("pick_table"); return; }
      try {
        await api("/api/v1/house/assign", { method: "POST", body: {
          name: document.getElementById("assign-name").value, tables: hub ? picked : "all",
          from_next_hand: document.getElementById("assign-next-hand").checked } });
        await list(page, onHub);
      } catch (err) { state.textContent = err.message; }
    });
  }

  /** One option's control: 是/否, a number, or one of its values. */
  function control(o, value) {
    const id = `opt-${o.key}`;
    if (o.kind === "bool") {
      return el("select", { id, "data-key": o.key, "data-kind": "bool" },
        el("option", { value: "true", selected: value === true }, T("yes")),
        el("option", { value: "false", selected: value === false }, T("no")));
    }
    if (o.kind === "choice") {
      return el("select", { id, "data-key": o.key, "data-kind": "choice" }, o.choices.map((c) =>
        el("option", { value: c === null ? "" : c, selected: c === value }, say(o, c))));
    }
    return el("input", { id, "data-key": o.key, "data-kind": "int", size: 6, inputmode: "numeric", value: String(value) });
  }

  function read(input) {
    const raw = input.value.trim();
    if (input.dataset.kind === "bool") return raw === "true";
    if (input.dataset.kind === "choice") return raw === "" ? null : raw;
    return /^-?\d{1,9}$/.test(raw) ? Number(raw) : raw; // (anything else: the server names it)
  }

  /** #/house/edit: the form of every option, grouped, with a preview and save. */
  async function edit(page, query) {
    const q = new URLSearchParams(query);
    const name = q.get("name") || "";
    let saved = null;
    try { saved = await api(`/api/v1/house/rulesets/${enc(name)}`); } catch (err) { if (err.status !== 404) throw err; }
    const base = saved ? saved.base : q.get("base") || "xingguo";
    const form = await api(`/api/v1/house/form/${enc(base)}`);
    let current = saved ? saved.options : {};
    const groups = [...new Set(form.options.map((o) => o.group))];
    page(el("div", { class: "crumbs" }, el("a", { href: "#/house" }, T("house")), " › ", name),
      el("h1", null, `${name} · ${form.name}`),
      saved ? el("p", { class: "muted" }, `${T("version")} ${saved.version} · ${saved.updated_by} · ${MJ.when(saved.updated_at)} · `,
        el("a", { href: `/api/v1/house/rulesets/${enc(name)}/preset.toml`, download: `${name}.toml` }, T("download"))) : null,
      el("form", { class: "panel house-form", id: "house-form", novalidate: true },
        groups.map((g) => el("fieldset", { "data-group": g }, el("legend", null, form.groups[g] || g),
          form.options.filter((o) => o.group === g).map((o) => {
            const value = Object.prototype.hasOwnProperty.call(current, o.key) ? current[o.key] : o.default;
            return el("div", { class: "house-option" },
              el("label", { for: `opt-${o.key}` }, o.label), control(o, value),
              el("small", { class: "muted" }, ` ${T("allowed", { a: MJ.inLang(o.allowed_words) })} · ${o.key}`,
                o.note ? ` · ${T("seed")}: ${o.note}` : ""));
          }))),
        el("p", null,
          el("button", { class: "btn", type: "button", id: "house-preview" }, T("preview")), " ",
          el("button", { class: "btn primary", type: "submit", id: "house-save" }, T("save")), " ",
          el("span", { id: "house-state", role: "alert" }))),
      el("div", { class: "panel", id: "house-preview-out" }));
    const chosen = () => {
      const out = {};
      for (const input of document.querySelectorAll("#house-form [data-key]")) out[input.dataset.key] = read(input);
      return out;
    };
    const state = (text, bad) => { const s = document.getElementById("house-state"); s.className = bad ? "error" : "muted"; s.textContent = text; };
    document.getElementById("house-form").addEventListener("input", () => state("", false));
    document.getElementById("house-preview").addEventListener("click", async () => {
      try {
        const shown = await api("/api/v1/house/preview", { method: "POST", body: { base, old: current, new: chosen() } });
        const seat = (s) => MJ.seatName(s, null, []);
        const now = chosen();
        const was = (o) => (Object.prototype.hasOwnProperty.call(current, o.key) ? current[o.key] : o.default);
        const changed = form.options.filter((o) => now[o.key] !== was(o));
        document.getElementById("house-preview-out").replaceChildren(el("h2", null, T("preview_title")),
          el("p", { id: "house-changes" }, `${T("changes")}：`, changed.length === 0 ? T("no_changes")
            : changed.map((o) => `「${o.label}」${say(o, was(o))} → ${say(o, now[o.key])}`).join("；")),
          ...shown.map((h, i) => el("table", { class: "grid-table house-sample", "data-sample": i },
            el("caption", null, T("sample", { n: i + 1 }), h.hand.win ? ` · ${seat(h.hand.win.seat)} ${h.hand.win.from === "self" ? MJ.t("self_draw") : MJ.t("win")}` : ""),
            head("", T("old"), T("new")),
            el("tbody", null, [0, 1, 2, 3].map((s) => el("tr", null, el("th", null, seat(s)),
              el("td", { class: "num", "data-old": s }, MJ.fmtNum(h.old.net[s]) || "0"),
              el("td", { class: h.new.net[s] === h.old.net[s] ? "num" : "num changed", "data-new": s }, MJ.fmtNum(h.new.net[s]) || "0")))))));
      } catch (err) { state(err.message, true); }
    });
    document.getElementById("house-form").addEventListener("submit", async (e) => {
      e.preventDefault();
      state(T("saving"), false);
      try {
        const done = await api(`/api/v1/house/saves/${enc(name)}`, { method: "PUT",
          body: { base, options: chosen(), expected_version: saved ? saved.version : 0 } });
        saved = done;
        current = done.options;
        state(T("saved", { v: done.version }), false);
      } catch (err) { state(err.message, true); }
    });
  }

  /** The tables list's two columns (owner.js): each table's house ruleset and software,
      from GET /api/v1/house/tables; a table behind the hub's software is marked. */
  const tableHeads = () => [el("th", null, T("house")), el("th", null, T("software"))];
  async function tableInfo() {
    try {
      const got = await api("/api/v1/house/tables");
      return { hub: got.software, by: new Map(got.tables.map((t) => [t.table_id, t])) };
    } catch { return { hub: null, by: new Map() }; }
  }
  function tableCells(info, tableId) {
    const t = info.by.get(tableId);
    if (!t) return [el("td"), el("td")];
    const rules = t.house ? `${t.house} · ${T("version")} ${t.version}${t.applied_version !== null && t.applied_version !== t.version ? ` (${T("applied")} ${t.applied_version})` : ""}` : [T("table_rules"), t.own_ruleset].filter(Boolean).join(" · ");
    return [
      el("td", { "data-house": tableId }, rules, t.problem ? el("div", { class: "error" }, T("not_applied", { p: t.problem })) : null),
      el("td", { "data-software": tableId, class: t.behind ? "error" : null }, t.software || "", t.behind ? ` · ${T("behind", { v: info.hub })}` : ""),
    ];
  }

  return { list, edit, title: () => T("house"), tableHeads, tableInfo, tableCells };
})();
