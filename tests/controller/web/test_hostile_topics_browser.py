"""Hostile topic payloads in Debian's Chromium, the page's own CSP in force: a table's
account (or anyone who can write its topics) retains JSON whose fields are markup, with
inline styles for a full-screen fake score. Every page (display from a real Mosquitto,
dealer from the live stream, floor) shows those fields as text or not at all, never as
elements; it keeps showing the valid messages that follow; and nothing is written to the
console (MQTT.js's keepalive timers need no blob worker). A link naming another broker
host gets the account nowhere: nothing connects to it.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from controller.mqtt.broker_acl import display_user, table_user
from controller.mqtt.topics import Topics, encode
from controller.process.local_ports import free_local_port
from controller.store import EventStore
from controller.web import LiveHub, WebAppSettings, create_app
from tests.controller.mosquitto import Mosquitto
from tests.controller.parlour_broker import parlour_broker, password
from tests.controller.web.conftest import SECRET
from tests.controller.web.server import serve
from tests.controller.web.test_browser import browser  # noqa: F401
from tests.controller.web.test_floor_browser import Table

PARLOUR, TABLE = "p1", "t1"
GUARD_MS = 15_000  # a hang guard, never a measured expectation

OVERLAY = (
    '<div id="owned" class="settlement" style="position:fixed;inset:0;z-index:99;'
    'background:#fff;font-size:90px">庄家 +1000</div>'
)
IMG = '<img id="owned-img" src="x" onerror="document.body.dataset.owned=1">'
HAND_ID = "h-hostile"

# The fields found turned into elements, in payloads otherwise as the service writes them.
NAMED: dict[str, Any] = {
    "dice": {"hand_id": HAND_ID, "seat": 0, "purpose": "break", "a": OVERLAY, "b": 3},
    "hand": {
        "hand_id": HAND_ID,
        "hand_no": OVERLAY,
        "ruleset": "xingguo",
        "dealer": 0,
        "turn": 0,
        "phase": "turn",
        "live": 80,
        "dice": [],
        "jing": {},
        "seats": [{"tiles": OVERLAY, "melds": [], "discards": []} for _ in range(4)],
    },
    "settlement": {
        "hand_id": HAND_ID,
        "net": [1, -1, 0, 0],
        "lines": [{"code": "x", "reason": "r", "from": OVERLAY, "to": 1, "amount": 1}],
    },
}

# Every field of the wrong type, too long, or markup.
HOSTILE: dict[str, Any] = {
    "dice": {"hand_id": HAND_ID, "seat": 0, "purpose": "break", "a": OVERLAY, "b": IMG},
    "hand": {
        "hand_id": HAND_ID,
        "hand_no": OVERLAY,
        "ruleset": IMG,
        "dealer": 0,
        "turn": "<b>0</b>",
        "phase": OVERLAY,
        "live": {"x": OVERLAY},
        "dice": [{"seat": 0, "purpose": OVERLAY, "a": 1, "b": [IMG]}],
        "jing": {"zheng": OVERLAY, "fu": IMG},
        "seats": [
            {"tiles": OVERLAY, "melds": [{"tiles": [IMG, "5m"]}], "discards": [OVERLAY, 7]},
            {"tiles": 13, "melds": OVERLAY, "discards": "x" * 100_000},
            None,
            {"tiles": 1e308, "melds": [None], "discards": [[IMG]]},
        ],
        "wins": [{"seat": OVERLAY, "source": IMG, "tile": OVERLAY}],
    },
    "jing": {"hand_id": HAND_ID, "indicator": IMG, "zheng_jing": OVERLAY, "fu_jing": "5m"},
    "scores": {"hand_no": OVERLAY, "totals": [OVERLAY, 1e308, "7/2", IMG]},
    "settlement": {
        "hand_id": HAND_ID,
        "net": [OVERLAY, 3, "-7/2", {"a": 1}],
        "lines": [
            {"reason": OVERLAY, "from": OVERLAY, "to": IMG, "amount": OVERLAY},
            {"reason": "自摸", "from": 1, "to": 0, "amount": "7/2"},
        ],
        "void": OVERLAY,
    },
    "status": {"state": OVERLAY},
}

# What a page may hold, whatever the topics say: its own elements and text only (the
# display's own image: the join code's QR, from the players' API, not from a topic).
NOTHING_INJECTED = """() => {
  const bad = document.querySelectorAll(
    '[id^="owned"], img:not(#join-qr), [style], [onerror], [onload], iframe, object, embed, ' +
    'script:not([src])');
  const centre = document.elementFromPoint(innerWidth / 2, innerHeight / 2);
  return { bad: [...bad].map((e) => e.outerHTML.slice(0, 120)),
           owned: document.body.dataset.owned || null,
           centre: centre ? centre.id || centre.className.baseVal || centre.className : null };
}"""


class Console:
    """Every console error and uncaught exception of a page (a CSP refusal is one)."""

    def __init__(self, page: Any) -> None:
        self.errors: list[str] = []
        page.on(
            "console",
            lambda m: m.type == "error" and self.errors.append(f"{m.text} ({m.location})"),
        )
        page.on("pageerror", lambda e: self.errors.append(str(e)))


@pytest.fixture
def parlour(
    mosquitto_factory: Callable[..., Mosquitto], tmp_path: Path, store: EventStore
) -> Iterator[tuple[str, int, LiveHub, Table]]:
    users = ["floor", display_user(TABLE), table_user(TABLE)]
    broker, ws_port = parlour_broker(
        mosquitto_factory, tmp_path, parlour=PARLOUR, tables=[TABLE], users=users
    )
    hub = LiveHub()
    settings = WebAppSettings(parlour=PARLOUR, table=TABLE, secret_key=SECRET, broker_port=ws_port)
    app = create_app(store, hub, settings)
    table = Table(TABLE, broker.port, seed=7)
    try:
        with serve(app, hub) as url:
            yield url, ws_port, hub, table
    finally:
        table.close()


def _retain(table: Table, payloads: dict[str, Any]) -> None:
    prefix = Topics(PARLOUR, TABLE).prefix
    for name, payload in payloads.items():
        info = table.client.publish(prefix + name, encode(payload), qos=1, retain=True)
        info.wait_for_publish(GUARD_MS / 1000)


def _clean(page: Any) -> None:
    found = page.evaluate(NOTHING_INJECTED)
    assert found["bad"] == [] and found["owned"] is None, found
    assert found["centre"] != "owned", found


def _link(url: str, page: str, broker: str, account: str, **more: str) -> str:
    query = urlencode({"broker": broker, **more})
    secret = urlencode({"username": account, "password": password(account)})
    return f"{url}/{page}?{query}#{secret}"


@pytest.mark.timeout(180)
def test_hostile_retained_fields_are_text_on_every_page_and_valid_ones_follow(
    browser: Any,  # noqa: F811
    parlour: tuple[str, int, LiveHub, Table],
) -> None:
    url, ws_port, hub, table = parlour
    broker = f"ws://127.0.0.1:{ws_port}"
    _retain(table, NAMED)

    # The display, straight from the broker with the table's display account.
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    console = Console(page)
    link = _link(url, "display", broker, display_user(TABLE), parlour=PARLOUR, table=TABLE)
    page.goto(link)
    page.wait_for_selector('#live-banner[data-state="connected"]', timeout=GUARD_MS)
    page.wait_for_selector(f'body[data-hand-id="{HAND_ID}"]', timeout=GUARD_MS)
    page.wait_for_selector("#settlement:not([hidden])", timeout=GUARD_MS)
    _clean(page)
    assert page.text_content("#seat-0 .seat-count") == ""  # no count: not a number
    _retain(table, HOSTILE)
    reason = f"#settlement .reason:text-is('{OVERLAY[:80]}')"
    page.wait_for_selector(reason, timeout=GUARD_MS)
    _clean(page)
    # shown as text where a text belongs; dropped where a number or a tile belongs
    assert page.text_content("#hand-title") == ""  # no hand number: no title
    assert page.text_content("#dice") == "—"  # no valid die in the dice topic or the hand
    assert "+1000" not in (page.text_content("#settlement .nets") or "")
    # The table goes on with a valid hand: the page follows it to its settlement.
    table.play(len(table.batches))
    page.wait_for_selector(f'body[data-hand-id="{table.hand_id}"]', timeout=GUARD_MS)
    page.wait_for_selector("#settlement:not([hidden])", timeout=GUARD_MS)
    zheng = table.flat("jing/zheng_code")
    page.wait_for_selector(f'#jing [data-role="zheng"] svg[data-tile="{zheng}"]', timeout=GUARD_MS)
    _clean(page)
    assert console.errors == [], console.errors
    page.close()

    # The dealer's view, from the web app's live stream.
    for topic, payload in HOSTILE.items():
        hub.publish(topic, payload)
    hub.publish(
        "dealer",
        {
            "hand_id": HAND_ID,
            "dealer": OVERLAY,
            "step": "break",
            "dice": [{"seat": 0, "a": OVERLAY, "b": 2}, {"a": 3, "b": 4}],
            "wall_seat": IMG,
            "stack": 4,
            "place": {"wall_seat": 1, "stack": OVERLAY},
            "text": {"zh": OVERLAY, "en": IMG},
        },
    )
    hub.publish(
        "alerts",
        {"kind": OVERLAY, "seat": IMG, "message": OVERLAY, "title": {"zh": IMG}, "advice": IMG},
    )
    page = browser.new_page(viewport={"width": 1000, "height": 800})
    console = Console(page)
    page.goto(f"{url}/dealer")
    page.wait_for_selector('#live-banner[data-state="connected"]', timeout=GUARD_MS)
    page.wait_for_selector(".alert", timeout=GUARD_MS)
    page.wait_for_selector("#wall-map svg", timeout=GUARD_MS)
    _clean(page)
    assert page.text_content("#instruction") == OVERLAY
    assert len(page.query_selector_all("#dice svg")) == 2  # only the valid roll
    hub.publish("dealer", {"hand_id": HAND_ID, "step": "break", "wall_seat": 2, "stack": 5})
    page.wait_for_selector('#wall-map rect[data-mark="1"]', timeout=GUARD_MS)
    assert console.errors == [], console.errors
    page.close()

    # The floor: the table's flat topics, status and alerts.
    prefix = Topics(PARLOUR, TABLE).prefix
    for name, text in (("flat/state", OVERLAY), ("flat/hand_no", IMG), ("flat/seat/0/wind", IMG)):
        table.client.publish(prefix + name, text, qos=1, retain=True).wait_for_publish(5)
    page = browser.new_page(viewport={"width": 1000, "height": 800})
    console = Console(page)
    page.goto(_link(url, "floor", broker, "floor"))
    page.wait_for_selector('#live-banner[data-state="connected"]', timeout=GUARD_MS)
    page.wait_for_selector(f'.floor-card[data-table="{TABLE}"]', timeout=GUARD_MS)
    table.client.publish(prefix + "alerts", encode({"kind": OVERLAY, "seat": 1}), qos=1)
    page.wait_for_selector(".floor-alerts li", timeout=GUARD_MS)
    _clean(page)
    assert OVERLAY[:200] == page.text_content(".floor-card .state")
    assert console.errors == [], console.errors
    page.close()


@pytest.mark.timeout(120)
@pytest.mark.parametrize("where", ["127.0.0.2", "127.0.0.1"], ids=["other-host", "other-port"])
def test_a_link_to_another_broker_gets_nothing(
    browser: Any,  # noqa: F811
    parlour: tuple[str, int, LiveHub, Table],
    where: str,
) -> None:
    """The page is at 127.0.0.1, its broker at 127.0.0.1's ``ws_port``; a listener on
    127.0.0.2 stands for a stranger's host, one on another port of 127.0.0.1 for another
    program of the page's own host. The page refuses the link, visibly; and the CSP refuses
    a WebSocket there even when asked directly (a page whose script was changed)."""
    url, _ws_port, _hub, _table = parlour
    with socket.socket() as stranger:
        stranger.bind((where, free_local_port()))
        stranger.listen()
        stranger.settimeout(0.1)
        host, port = stranger.getsockname()
        elsewhere = f"ws://{host}:{port}"
        pages = []
        for name in ("display", "floor"):
            page = browser.new_page()
            pages.append(page)
            page.goto(_link(url, name, elsewhere, display_user(TABLE)))
            page.wait_for_selector('#live-banner[data-state="refused"]', timeout=GUARD_MS)
            assert "Not connected" in (page.text_content("#live-banner") or "") or "未连接" in (
                page.text_content("#live-banner") or ""
            )
        blocked = pages[0].evaluate(
            """(url) => new Promise((done) => {
                 try {
                   const ws = new WebSocket(url);
                   ws.onopen = () => done("open");
                   ws.onerror = () => done("refused");
                 } catch (err) { done("refused: " + err.name); }
               })""",
            elsewhere,
        )
        assert blocked.startswith("refused"), blocked
        pages[0].wait_for_timeout(1000)
        with pytest.raises(TimeoutError):
            stranger.accept()  # nothing ever connected: no account sent there
        for page in pages:
            page.close()
