"""Pages fed straight from the broker, in Debian's Chromium (Playwright) against a real
Mosquitto started with the parlour's config (its WebSocket listener, accounts and ACL):
the floor view (/floor) with 20 tables publishing, and a table's display (/display?broker=)
opened from it. The tables publish what the service publishes: each hand's messages built
by controller.table.publication and turned into outbox rows, flat topics included, by its Outlet.

The page's CSP is not bypassed: it must let the page reach the broker's WebSocket (so the
waits here are selectors: Playwright's wait_for_function would need eval).
Set MJTABLE_SCREENSHOTS=docs/screenshots to refresh the screenshots docs/displays.md shows.
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import paho.mqtt.client as paho
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from controller.mqtt.broker_acl import display_user, table_user
from controller.mqtt.topics import Topics, encode
from controller.process.software import software_version
from controller.store import EventStore
from controller.table.alerts import AlertKind, PublicAlert
from controller.table.publication import Message, Outlet, alert_message
from controller.web import LiveHub, WebAppSettings, create_app
from engine.tiles import kind_name, successor
from tests.controller.hand_messages import hand_batches
from tests.controller.mosquitto import Mosquitto
from tests.controller.parlour_broker import parlour_broker, password
from tests.controller.web.conftest import SECRET
from tests.controller.web.server import serve
from tests.controller.web.test_browser import FONT_CHECK, _shot, browser  # noqa: F401

PARLOUR = "p1"
TABLES = [f"t{n:02d}" for n in range(1, 21)]
GUARD_MS = 15_000  # a hang guard, never a measured expectation


class Table:
    """One table's side: its Outlet makes the outbox rows, paho sends them (QoS 1)."""

    def __init__(self, table: str, port: int, seed: int) -> None:
        self.id = table
        self.hand_id = uuid.uuid4().hex
        self.batches, self.final = hand_batches(self.hand_id, seed)
        self.outlet = Outlet(Topics(PARLOUR, table))
        self.sent = 0
        self.client = paho.Client(CallbackAPIVersion.VERSION2, client_id=f"test-{table}")
        user = table_user(table)
        self.client.username_pw_set(user, password(user))
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def send(self, messages: list[Message]) -> None:
        rows = self.outlet.outbox(messages)
        self.outlet.committed([])
        for row in rows:
            info = self.client.publish(row.topic, row.payload, qos=1, retain=row.retain)
            info.wait_for_publish(GUARD_MS / 1000)

    def play(self, upto: int) -> None:
        """Send the batches up to (not including) ``upto``."""
        for batch in self.batches[self.sent : upto]:
            self.send(batch)
        self.sent = max(self.sent, upto)

    def flat(self, name: str) -> str:
        return self.outlet.flat.held("flat/" + name)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


@pytest.fixture
def parlour(
    mosquitto_factory: Callable[..., Mosquitto], tmp_path: Path, store: EventStore
) -> Iterator[tuple[str, int, list[Table]]]:
    users = ["floor", display_user(TABLES[2]), *(table_user(t) for t in TABLES)]
    broker, ws_port = parlour_broker(
        mosquitto_factory, tmp_path, parlour=PARLOUR, tables=TABLES, users=users
    )
    hub = LiveHub()
    # The hub's web app, as controller/cli/hub.py makes it: it plays no table.
    settings = WebAppSettings(
        parlour=PARLOUR, table="hub", hub=True, secret_key=SECRET, broker_port=ws_port
    )
    app = create_app(store, hub, settings)
    tables = [Table(t, broker.port, seed=100 + i) for i, t in enumerate(TABLES)]
    try:
        with serve(app, hub) as url:
            yield url, ws_port, tables
    finally:
        for t in tables:
            t.close()


def _card(page: Any, table: str) -> str:
    return f'.floor-card[data-table="{table}"]'


def _total(value: str) -> str:
    n = float(value)
    return ("+" if n > 0 else "") + (str(int(n)) if n.is_integer() else f"{n:.1f}")


def check_card(page: Any, t: Table, state: str | None = None) -> None:
    """The card shows what the table's topics carry (waits: a batch's rows come one by one)."""
    card = _card(page, t.id)
    page.wait_for_selector(f'{card}[data-state="{state or t.flat("state")}"]', timeout=GUARD_MS)
    hand = f"第{t.flat('hand_no')}局"
    page.wait_for_selector(f"{card} .hand-no:text-is('{hand}')", timeout=GUARD_MS)
    for seat in range(4):
        total = t.flat(f"seat/{seat}/total")
        shown = f'{card} [data-seat="{seat}"] [data-total]'
        page.wait_for_selector(f"{shown}:text-is('{_total(total) if total else '0'}')")
    for role in ("zheng", "fu"):
        code = t.flat(f"jing/{role}_code")
        tile = f'{card} .floor-jing svg[data-tile="{code}"]'
        if code:
            page.wait_for_selector(tile, timeout=GUARD_MS)
        else:
            assert page.query_selector(f"{card} .floor-jing svg") is None, t.id


@pytest.mark.timeout(300)
def test_floor_shows_twenty_tables_live_from_the_broker(
    browser: Any,  # noqa: F811
    parlour: tuple[str, int, list[Table]],
    tmp_path: Path,
) -> None:
    url, ws_port, tables = parlour
    rng = random.Random(5)
    # Before the page opens: tables at every stage (dealing, mid-hand, settled), retained.
    for i, t in enumerate(tables):
        t.play(len(t.batches) if i % 5 == 0 else rng.randrange(4, len(t.batches) - 1))

    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    query = urlencode({"broker": f"ws://127.0.0.1:{ws_port}"})
    secret = urlencode({"username": "floor", "password": password("floor")})
    page.goto(f"{url}/floor?{query}#{secret}")
    page.wait_for_selector('#live-banner[data-state="connected"]', timeout=GUARD_MS)
    page.wait_for_selector(f".floor-card >> nth={len(TABLES) - 1}", timeout=GUARD_MS)
    assert len(page.query_selector_all(".floor-card")) == len(TABLES)
    fonts = page.evaluate(FONT_CHECK)
    assert fonts["loaded"] and fonts["differs"], fonts
    for t in tables:
        check_card(page, t)
    settled = tables[0]
    assert settled.final.settlement is not None
    assert settled.flat("seat/0/total") == str(int(settled.final.settlement.net[0]))
    flip = settled.final.wall.flip if settled.final.wall else None
    assert flip is not None and flip.kind is not None
    assert settled.flat("jing/zheng_code") == kind_name(flip.kind)
    assert settled.flat("jing/fu_code") == kind_name(successor(flip.kind))

    # An alert: shown with how long it has been open, counting.
    alerted = tables[3]
    sent_at = time.monotonic()
    alerted.send(
        [alert_message(PublicAlert(AlertKind.XIANGGONG, 2, have=12, want=13), alerted.hand_id)]
    )
    alert = f'{_card(page, alerted.id)} li[data-kind="xianggong"]'
    page.wait_for_selector(alert, timeout=GUARD_MS)
    latency = time.monotonic() - sent_at
    print(f"floor: an alert shown {latency * 1000:.0f} ms after it was published (noisy)")
    text = page.text_content(alert) or ""
    assert text.startswith("相公 · ") and "3号位" in text
    page.wait_for_selector(f"{alert} time:not(:text-is('0:00'))", timeout=GUARD_MS)

    # A table whose service is gone: its will says offline.
    gone = tables[4]
    gone.client.publish(
        Topics(PARLOUR, gone.id).status, encode({"state": "offline"}), qos=1, retain=True
    ).wait_for_publish(GUARD_MS / 1000)
    page.wait_for_selector(f'{_card(page, gone.id)}[data-state="offline"]', timeout=GUARD_MS)
    assert page.text_content(f"{_card(page, gone.id)} .state") == "离线"
    _shot(page, tmp_path, "floor", full_page=True)

    # All twenty play on at once, interleaved; the page keeps up with every one of them.
    last_table = tables[0]
    while any(t.sent < len(t.batches) for t in tables):
        for t in tables:
            if t.sent < len(t.batches):
                t.play(t.sent + 3)
                last_table = t
    sent_at = time.monotonic()
    total = last_table.flat("seat/3/total")  # (the scores come with the hand's last batch)
    cell = f'{_card(page, last_table.id)} [data-seat="3"] [data-total]'
    page.wait_for_selector(f"{cell}:text-is('{_total(total)}')", timeout=GUARD_MS)
    latency = time.monotonic() - sent_at
    print(f"floor: the last table's totals shown {latency * 1000:.0f} ms after sent (noisy)")
    for t in tables:
        check_card(page, t, "offline" if t is gone else "idle")
    assert page.query_selector(alert) is not None  # open until the table's next hand

    # A click opens that table's display, fed from the broker with the same account.
    shown = tables[8]
    assert (
        page.get_attribute(f"{_card(page, shown.id)} .to-handlog", "href")
        == f"/owner#/t/{shown.id}"
    )
    page.click(f"{_card(page, shown.id)} .floor-jing")
    page.wait_for_url(f"**/display?**table={shown.id}**", timeout=GUARD_MS)
    page.wait_for_selector('#live-banner[data-state="connected"]', timeout=GUARD_MS)
    page.wait_for_selector(f'body[data-hand-id="{shown.hand_id}"]', timeout=GUARD_MS)
    assert page.text_content("#table-name") == f"{PARLOUR} · {shown.id}"
    zheng = shown.flat("jing/zheng_code")
    page.wait_for_selector(f'#jing [data-role="zheng"] svg[data-tile="{zheng}"]', timeout=GUARD_MS)
    page.wait_for_selector("#settlement:not([hidden])", timeout=GUARD_MS)
    _shot(page, tmp_path, "display-from-broker")
    page.close()


def test_display_follows_a_table_from_the_broker_mid_hand(
    browser: Any,  # noqa: F811
    parlour: tuple[str, int, list[Table]],
) -> None:
    url, ws_port, tables = parlour
    t = tables[2]
    t.play(len(t.batches) // 2)
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    query = urlencode({"broker": f"ws://127.0.0.1:{ws_port}", "parlour": PARLOUR, "table": t.id})
    account = display_user(t.id)  # the table's own display account
    secret = urlencode({"username": account, "password": password(account)})
    page.goto(f"{url}/display?{query}#{secret}")
    page.wait_for_selector('#live-banner[data-state="connected"]', timeout=GUARD_MS)
    wall = t.flat("wall") or "—"
    page.wait_for_selector(f"#wall-big:text-is('{wall}')", timeout=GUARD_MS)
    t.play(len(t.batches))  # to the end: the settlement shows
    page.wait_for_selector("#settlement:not([hidden])", timeout=GUARD_MS)
    assert "结算" in (page.text_content("#settlement") or "")
    # a table id that is a wildcard is not a table: the page's own table instead
    wild = browser.new_page()
    q_wild = urlencode({"broker": f"ws://127.0.0.1:{ws_port}", "parlour": PARLOUR, "table": "+"})
    wild.goto(f"{url}/display?{q_wild}#{secret}")
    wild.wait_for_selector("#table-name:text-is('p1 · hub')", timeout=GUARD_MS)
    wild.close()
    # a wrong password: refused, never connected
    bad = browser.new_page()
    wrong = urlencode({"username": account, "password": "wrong"})
    bad.goto(f"{url}/display?{query}#{wrong}")
    bad.wait_for_timeout(1500)
    assert bad.get_attribute("#live-banner", "data-state") != "connected"
    bad.close()
    page.close()


def test_a_pis_floor_shows_its_own_table(
    browser: Any,  # noqa: F811
    parlour: tuple[str, int, list[Table]],
    store: EventStore,
) -> None:
    _url, ws_port, tables = parlour
    for t in tables[:3]:
        t.play(len(t.batches) // 2)
    mine = tables[1]
    hub = LiveHub()
    settings = WebAppSettings(
        parlour=PARLOUR, table=mine.id, secret_key=SECRET, broker_port=ws_port
    )
    app = create_app(store, hub, settings)
    with serve(app, hub) as url:
        page = browser.new_page(viewport={"width": 800, "height": 600})
        query = urlencode({"broker": f"ws://127.0.0.1:{ws_port}"})
        secret = urlencode({"username": "floor", "password": password("floor")})
        page.goto(f"{url}/floor?{query}#{secret}")
        page.wait_for_selector('#live-banner[data-state="connected"]', timeout=GUARD_MS)
        check_card(page, mine)
        assert [c.get_attribute("data-table") for c in page.query_selector_all(".floor-card")] == [
            mine.id
        ]
        page.close()


def test_the_floor_shows_a_tables_garbage_as_text_and_goes_on(
    browser: Any,  # noqa: F811
    parlour: tuple[str, int, list[Table]],
) -> None:
    url, ws_port, tables = parlour
    bad, good = tables[5], tables[6]
    prefix = Topics(PARLOUR, bad.id).prefix
    script = '<img src=x onerror="document.body.dataset.owned=1">'

    def publish(garbage: list[tuple[str, str]], retain: bool) -> None:
        for topic, payload in garbage:
            info = bad.client.publish(prefix + topic, payload, qos=1, retain=retain)
            info.wait_for_publish(GUARD_MS / 1000)

    publish(
        [
            ("flat/state", script),
            ("flat/hand_no", "9" * 5000),
            ("flat/dealer", "seven"),
            ("flat/jing/zheng_code", "<b>5m"),
            ("status", "{not json"),
            ("scores", '{"house": "本店兴国<b>", "totals": [0, 0, 0, 0]}'),
            *((f"flat/junk/{n}", "x") for n in range(300)),
        ],
        retain=True,
    )
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    query = urlencode({"broker": f"ws://127.0.0.1:{ws_port}"})
    secret = urlencode({"username": "floor", "password": password("floor")})
    page.goto(f"{url}/floor?{query}#{secret}")
    page.wait_for_selector('#live-banner[data-state="connected"]', timeout=GUARD_MS)
    publish(
        [
            ("alerts", '{"kind": "<script>x()</script>", "seat": 99}'),
            ("alerts", "[1, 2]"),
            ("alerts", "not json"),
        ],
        retain=False,
    )
    good.play(len(good.batches))
    check_card(page, good)  # the other tables go on
    card = _card(page, bad.id)
    page.wait_for_selector(f'{card} li[data-kind="<script>x()</script>"]', timeout=GUARD_MS)
    assert page.get_attribute("body", "data-owned") is None  # shown as text, never run
    assert script in (page.text_content(f"{card} .state") or "")
    assert len(page.text_content(f"{card} .hand-no") or "") < 300
    # the house ruleset the table plays (its scores' name), as text
    page.wait_for_selector(f'{card} .house:has-text("本店兴国")', timeout=GUARD_MS)
    assert page.text_content(f"{card} .house") == "本店兴国<b>"
    page.close()


def test_the_floor_shows_each_tables_software_and_marks_one_behind_the_hubs(
    browser: Any,  # noqa: F811
    parlour: tuple[str, int, list[Table]],
    tmp_path: Path,
) -> None:
    """Each table says its version on its retained ``status`` (the publisher's); the hub's
    comes with /api/v1/public/table. A version that is no version is not shown."""
    url, ws_port, tables = parlour
    said = {
        tables[0]: {"state": "online", "version": software_version()},
        tables[1]: {"state": "offline", "version": "0.0.1"},  # (its will: still its version)
        tables[2]: {"state": "online", "version": "<b>9.9</b>"},
        tables[3]: {"state": "online"},  # (a table older than the version on its status)
    }
    for t, status in said.items():
        t.play(len(t.batches) // 2)
        info = t.client.publish(Topics(PARLOUR, t.id).status, encode(status), qos=1, retain=True)
        info.wait_for_publish(GUARD_MS / 1000)
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    query = urlencode({"broker": f"ws://127.0.0.1:{ws_port}"})
    secret = urlencode({"username": "floor", "password": password("floor")})
    page.goto(f"{url}/floor?{query}#{secret}")
    page.wait_for_selector('#live-banner[data-state="connected"]', timeout=GUARD_MS)
    current, old, garbage, silent = (f"[data-software='{t.id}']" for t in said)
    page.wait_for_selector(f'{current}[data-behind="no"]', timeout=GUARD_MS)
    assert page.text_content(current) == f"软件 {software_version()}"
    page.wait_for_selector(f'{old}[data-behind="yes"]', timeout=GUARD_MS)
    assert page.text_content(old) == f"软件 0.0.1 · 比总台旧（{software_version()}）"
    check_card(page, tables[2])
    assert page.text_content(garbage) == "" and page.text_content(silent) == ""
    _shot(page, tmp_path, "floor-software")
    page.close()
