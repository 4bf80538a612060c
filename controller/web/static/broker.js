/* Pages fed straight from the parlour's broker over WebSockets (docs/displays.md), with
   MQTT.js (mqtt.min.js, vendored: nothing is fetched from the internet).

   Where and who, from the page's address:
     ?broker=ws://hub:9001   the broker's WebSocket listener (default: this host at the web
                             app's `broker_port`); only that port of this host, or a broker the
                             web app names (/api/v1/public/table `broker_port` and `brokers`,
                             the same as its CSP's connect-src): the account goes nowhere else
     &parlour=p1&table=t3    which table (default: this web app's own)
     #username=display-t3&password=…   the account (in the fragment: never sent to a server)
*/
"use strict";

const MJBroker = (() => {
  const ROOT = "mahjong";
  const MAX_PAYLOAD = 1 << 20; // the broker's message_size_limit: anything bigger is not ours

  // A parlour or table id is one topic level (controller.config.ID_PATTERN): never + or #;
  // the pages' one copy of it (the floor checks the table ids of the topics with it)
  const ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
  const id = (v) => (v && ID.test(v) ? v : null);

  function settings() {
    const q = new URLSearchParams(location.search);
    const f = new URLSearchParams(location.hash.replace(/^#/, ""));
    return {
      url: q.get("broker") || "", // (none: this host's broker, once the web app says its port)
      parlour: id(q.get("parlour")),
      table: id(q.get("table")),
      username: f.get("username") || "",
      password: f.get("password") || "",
      wanted: q.has("broker"),
      brokers: [], // more brokers the web app allows (its /api/v1/public/table says)
      port: null, // the broker's port on this host (the same says): no other port of it
    };
  }

  /** What the web app allows (its /api/v1/public/table, `t`): its broker's port on this host
      (the default link's too) and the brokers it names. */
  function allow(s, t) {
    s.brokers = Array.isArray(t.brokers) ? t.brokers : [];
    s.port = Number.isInteger(t.broker_port) ? t.broker_port : null;
    if (!s.url && s.port !== null) s.url = `ws://${location.hostname || "localhost"}:${s.port}`;
  }

  /** May the page give its account to the link's broker? ws:/wss: at the broker's port on
      the page's own host, or one the web app names: not another port of this host (another
      program's). Anything else is refused before a byte is sent. */
  function permitted(s) {
    let u;
    try { u = new URL(s.url); } catch { return false; }
    if ((u.protocol !== "ws:" && u.protocol !== "wss:") || u.username || u.password) return false;
    const port = Number(u.port || (u.protocol === "wss:" ? 443 : 80));
    if (u.hostname === location.hostname && s.port !== null && port === s.port) return true;
    return Array.isArray(s.brokers) && s.brokers.includes(`${u.protocol}//${u.host}`);
  }

  /** MQTT.js, loaded only by pages that use the broker (a Pi's SSE page never needs it). */
  function load() {
    if (window.mqtt) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const el = document.createElement("script");
      el.src = "/static/mqtt.min.js";
      el.onload = () => resolve();
      el.onerror = () => reject(new Error("mqtt.min.js did not load"));
      document.head.appendChild(el);
    });
  }

  /** The same address with another table (the floor's links to a table's display). */
  function displayUrl(s, parlour, table) {
    const q = new URLSearchParams({ broker: s.url, parlour, table });
    const f = new URLSearchParams({ username: s.username, password: s.password });
    return `/display?${q}#${f}`;
  }

  /** Connect and subscribe to `filters`; onMessage(topic, text, retained). onState gets
      "connecting" | "connected" | "reconnecting", or "refused" (a broker the page may not
      use: nothing sent). Returns the MQTT.js client, or null. */
  function connect(s, filters, onMessage, onState) {
    if (!permitted(s)) { onState("refused"); return null; }
    onState("connecting");
    const client = mqtt.connect(s.url, {
      timerVariant: "native", // no keepalive timers in a blob worker: the CSP refuses one
      username: s.username || undefined,
      password: s.password || undefined,
      clientId: `mj-page-${Math.random().toString(16).slice(2, 10)}`,
      clean: true,
      reconnectPeriod: 2000,
      connectTimeout: 5000,
      protocolVersion: 4,
    });
    const decoder = new TextDecoder();
    client.on("connect", () => {
      client.subscribe(filters, { qos: 1 }, (err) => onState(err ? "reconnecting" : "connected"));
    });
    client.on("reconnect", () => onState("reconnecting"));
    client.on("offline", () => onState("reconnecting"));
    client.on("message", (topic, payload, packet) => {
      if (payload.length > MAX_PAYLOAD) return;
      onMessage(topic, decoder.decode(payload), !!packet.retain);
    });
    return client;
  }

  const TABLE_TOPICS = ["seats", "status", "hand", "jing", "dice", "scores", "settlement", "events", "alerts"];

  /** A table's JSON topics, handed over as the live hub's stream hands them (events
      flattened), so a page reads either feed the same way. */
  function tableLive(s, parlour, table, onMessage, banner) {
    const prefix = `${ROOT}/${parlour}/${table}/`;
    const show = (state) => MJ.showLive(banner, state);
    document.addEventListener("mj:lang", () => banner && show(banner.dataset.state || "connecting"));
    return connect(s, TABLE_TOPICS.map((t) => prefix + t), (topic, text, retained) => {
      const name = topic.slice(prefix.length);
      if (!TABLE_TOPICS.includes(name)) return;
      let payload;
      try { payload = JSON.parse(text); } catch { return; }
      if (name === "events" && payload && payload.event) {
        payload = { ...payload.event, hand_id: payload.hand_id, seq: payload.seq, text: payload.text };
      }
      const cleaned = MJ.cleaned(name, payload);
      if (name === "seats") MJ.setNames(cleaned.seats);
      onMessage(name, cleaned, { at: Date.now() / 1000, replayed: retained });
    }, show);
  }

  return { ROOT, id, settings, allow, permitted, load, displayUrl, connect, tableLive };
})();
