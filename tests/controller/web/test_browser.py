"""The pages in Debian's Chromium (Playwright, no downloaded browser): a simulated hand's
public messages go through the live hub step by step, as the service will send them.

Set MJTABLE_SCREENSHOTS=docs/screenshots to refresh the screenshots the docs show.
"""

from __future__ import annotations

import os
import random
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright import sync_api

from controller.hub.ingest import store_handlogs
from controller.store import EventStore
from controller.table.handlog import build_handlog, parse_handlog
from controller.web import LiveHub, WebAppSettings, create_app
from engine.session import Session
from engine.simulation import play_hand
from tests.controller.dice_hands import committed_hands
from tests.controller.hub.hands import record_hand
from tests.controller.web.conftest import OWNER, PASSWORD, SECRET
from tests.controller.web.feed import hand_messages
from tests.controller.web.helpers import Filled, wait_image_loaded
from tests.controller.web.server import serve

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-gpu",
    "--disable-component-update",
    "--no-first-run",
]

# 精 drawn in the CJK font and a code point no font has: different pixels unless 精 is tofu.
FONT_CHECK = """() => {
  const draw = (ch) => {
    const c = document.createElement('canvas'); c.width = 64; c.height = 64;
    const g = c.getContext('2d'); g.font = '48px "Noto Sans CJK SC"'; g.fillText(ch, 4, 52);
    return { data: Array.from(g.getImageData(0, 0, 64, 64).data).join(','),
             width: g.measureText(ch).width };
  };
  const jing = draw('精'), missing = draw('\\u{10FFFD}');
  return { loaded: document.fonts.check('16px "Noto Sans CJK SC"'),
           differs: jing.data !== missing.data, width: jing.width };
}"""


def _shot(page: Any, tmp_path: Path, name: str, full_page: bool = False) -> None:
    path = tmp_path / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    target = os.environ.get("MJTABLE_SCREENSHOTS")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(target) / path.name)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.fail(
            "needs Debian's chromium: run .ci/run (apt-get install chromium fonts-noto-cjk)"
        )
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def site(store: EventStore, filled: Filled) -> Iterator[tuple[str, LiveHub]]:
    hub = LiveHub()
    app = create_app(store, hub, WebAppSettings(parlour="demo", table="t1", secret_key=SECRET))
    with serve(app, hub) as url:
        yield url, hub


def _hand(seed: int = 3) -> list[list[tuple[str, Any]]]:
    started = Session("xingguo").next_hand()
    _, log = play_hand(started, random.Random(seed))
    return list(hand_messages("live-1", log, [5, -3, 0, -2]))


def _push(hub: LiveHub, steps: list[list[tuple[str, Any]]]) -> None:
    for step in steps:
        for topic, payload in step:
            hub.publish(topic, payload)


def _index(steps: list[list[tuple[str, Any]]], topic: str) -> int:
    return next(i for i, step in enumerate(steps) if any(t == topic for t, _ in step))


def test_display_follows_a_hand_live(
    browser: Any, site: tuple[str, LiveHub], tmp_path: Path
) -> None:
    url, hub = site
    steps = _hand()
    page = browser.new_page(bypass_csp=True, viewport={"width": 1280, "height": 720})
    page.goto(f"{url}/display")
    page.wait_for_selector('#live-banner[data-state="connected"]')
    assert page.text_content("#live-banner") == "已连接"
    fonts = page.evaluate(FONT_CHECK)
    assert fonts["loaded"] and fonts["differs"] and fonts["width"] > 40, fonts

    hub.publish("scores", {"session_id": "s1", "hand_no": 0, "totals": [5, -3, 0, -2]})
    flip = _index(steps, "jing")
    _push(hub, steps[:flip])
    page.wait_for_selector('body[data-hand-id="live-1"]', state="attached")  # not a predicate: CSP
    assert page.query_selector('#jing [data-role="zheng"]') is None  # not flipped yet
    _push(hub, steps[flip : flip + 1])
    jing = dict(steps[flip])["jing"]
    page.wait_for_selector(f'#jing [data-role="zheng"] svg[data-tile="{jing["zheng_jing"]}"]')
    page.wait_for_selector(f'#jing [data-role="fu"] svg[data-tile="{jing["fu_jing"]}"]')
    assert "正精" in page.text_content("#jing") and "副精" in page.text_content("#jing")
    assert page.text_content('[data-seat-score="0"]') == "+5"

    settle = _index(steps, "settlement")
    middle = (flip + settle) // 2
    _push(hub, steps[flip + 1 : middle])
    hand = dict(steps[middle - 1])["hand"]
    sync_api.expect(page.locator("#wall-big")).to_have_text(str(hand["live"]))
    assert page.is_hidden("#settlement")
    # the last thing done, in the service's words (a pass does not hide the discard)
    said = [p for step in steps[:middle] for t, p in step if t == "events"]
    last = [p for p in said if p["type"] not in ("passed", "claims_resolved")][-1]
    sync_api.expect(page.locator("#last-action")).to_have_text(last["text"]["zh"])
    turn = page.query_selector(".seat.is-turn")
    if hand["phase"] in ("turn", "draw", "replacement"):
        assert turn is not None and turn.get_attribute("id") == f"seat-{hand['turn']}"
    _shot(page, tmp_path, "display-during-hand")

    _push(hub, steps[middle:])
    page.wait_for_selector("#settlement:not([hidden])")
    settlement = dict(steps[settle])["settlement"]
    text = page.text_content("#settlement") or ""
    assert "结算" in text
    for line in settlement["lines"]:
        assert line["reason"] in text
    assert page.query_selector_all("#settlement .lines tbody tr").__len__() == len(
        settlement["lines"]
    )

    # The next hand starts: the settlement goes away.
    hub.publish("hand", dict(steps[0])["hand"] | {"hand_id": "live-2"})
    page.wait_for_selector("#settlement", state="hidden")
    # Its jing message names no tile until the flip: "未翻精", never 正精 東.
    hub.publish("jing", {"hand_id": "live-2"})
    hub.publish("scores", {"session_id": "s1", "hand_no": 1, "totals": [6, -4, 0, -2]})
    sync_api.expect(page.locator('[data-seat-score="0"]')).to_have_text("+6")
    assert page.query_selector('#jing [data-role="zheng"]') is None
    assert "未翻精" in (page.text_content("#jing") or "")
    # Its dice commitment, shown while the walls rise (as text), then the seed once settled.
    commitment = {"commitment": "ab" * 32, "table": "<b>t1</b>", "session": "s1", "hand_no": 2}
    opened = dict(steps[0])["hand"] | {"hand_id": "live-2", "dice_commitment": commitment}
    hub.publish("hand", opened)
    commitment_shown = page.locator("#dice-commitment")
    sync_api.expect(commitment_shown).to_have_attribute("data-commitment", "ab" * 32)
    assert page.text_content("#dice-commitment") == "骰子承诺 " + "ab" * 8 + "…"
    assert "<b>t1</b>" in (page.get_attribute("#dice-commitment", "title") or "")
    assert page.query_selector("#dice-commitment b") is None
    hub.publish("hand", opened | {"dice_seed": "cd" * 32})
    sync_api.expect(page.locator("#dice-commitment")).to_have_attribute("data-seed", "cd" * 32)

    # English, and a phone-sized screen without sideways scrolling (back in mid-hand).
    hub.publish("settlement", None)
    hub.publish("hand", hand)
    phone = browser.new_page(bypass_csp=True, viewport={"width": 390, "height": 844})
    phone.goto(f"{url}/display?lang=en")
    phone.wait_for_selector('#live-banner[data-state="connected"]')
    assert phone.text_content("#live-banner") == "Connected"
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    _shot(phone, tmp_path, "display-phone", full_page=True)
    phone.close()
    page.close()


def test_display_shows_when_it_reconnects(browser: Any, site: tuple[str, LiveHub]) -> None:
    url, hub = site
    page = browser.new_page(bypass_csp=True, viewport={"width": 1280, "height": 720})
    page.goto(f"{url}/display")
    page.wait_for_selector('#live-banner[data-state="connected"]')
    hub.disconnect_all()
    page.wait_for_selector('#live-banner[data-state="reconnecting"]')
    assert "重连" in (page.text_content("#live-banner") or "")
    hub.publish("status", {"state": "online"})
    page.wait_for_selector('#live-banner[data-state="connected"]', timeout=15_000)
    page.close()


def test_dealer_view_shows_break_flip_and_alerts(
    browser: Any, site: tuple[str, LiveHub], tmp_path: Path
) -> None:
    url, hub = site
    steps = _hand()
    page = browser.new_page(bypass_csp=True, viewport={"width": 1280, "height": 720})
    page.goto(f"{url}/dealer")
    page.wait_for_selector('#live-banner[data-state="connected"]')
    first_dealer = _index(steps, "dealer")
    _push(hub, steps[: first_dealer + 1])
    sync_api.expect(page.locator("#instruction")).to_contain_text("抓牌")
    assert page.query_selector('#wall-map rect[data-mark="1"]') is not None
    flip = _index(steps, "jing")
    _push(hub, steps[first_dealer + 1 : flip + 1])
    sync_api.expect(page.locator("#instruction")).to_contain_text("翻精")
    text = page.text_content("#instruction") or ""
    assert text.startswith("从牌尾数第") and text.endswith("墩翻精")
    # The flip is told twice: counted from the tail, then with its place once the wall is
    # known; the page may show the first before the second arrives.
    page.wait_for_selector('#wall-map rect[data-mark="1"]')
    # In play: not "等待掷骰" (no roll is due), and the wall map stays.
    # what controller.table.dealer_guide says once the hand is played (no roll due)
    hub.publish("dealer", {"hand_id": "live-1", "dealer": 0, "step": "wait", "dice": None})
    sync_api.expect(page.locator("#instruction")).to_contain_text("对局中")
    assert page.query_selector("#wall-map svg") is not None
    hub.publish("alerts", {"kind": "false_win", "seat": 2, "message": "3号位 胡牌不成立"})
    page.wait_for_selector('.alert[data-kind="false_win"]')
    assert "诈胡" in (page.text_content(".alert") or "")
    assert "处理办法" in (page.text_content(".alert") or "")
    _shot(page, tmp_path, "dealer-view")
    page.click(".alert button")
    page.wait_for_selector(".alert", state="detached")
    page.close()


def test_owner_logs_in_and_replays_a_hand(
    browser: Any, site: tuple[str, LiveHub], filled: Filled, tmp_path: Path
) -> None:
    url, _ = site
    page = browser.new_page(bypass_csp=True, viewport={"width": 1280, "height": 720})
    page.goto(f"{url}/owner")
    page.wait_for_selector("#login-form")
    page.fill("#login-name", OWNER)
    page.fill("#login-password", "not the password")
    page.click("#login-submit")
    sync_api.expect(page.locator("#login-error")).not_to_be_empty()
    page.fill("#login-password", PASSWORD)
    page.click("#login-submit")
    page.wait_for_selector("#tables a")
    page.click("#tables a")
    page.wait_for_selector("#hands tr[data-hand]")
    assert len(page.query_selector_all("#hands tr[data-hand]")) == 4
    page.select_option("#filters select[name=status]", "finished")
    page.click("#filters button[type=submit]")
    sync_api.expect(page.locator("#hands tr[data-hand]")).to_have_count(3)
    assert "status=finished" in (page.get_attribute("#export-csv", "href") or "")
    # Dates read year-month-day in the Chinese page, not the browser's mm/dd/yyyy.
    date_from = page.query_selector("#filters input[name=from]")
    assert date_from is not None and date_from.get_attribute("placeholder") == "年-月-日"
    assert date_from.evaluate("e => e.type") == "text"
    page.fill("#filters input[name=from]", "2000-01-01")
    page.click("#filters button[type=submit]")
    sync_api.expect(page.locator("#export-csv")).to_have_attribute(
        "href", re.compile("since=2000-01-01")
    )
    assert page.input_value("#filters input[name=from]") == "2000-01-01"

    hand_id = filled.finished[0]
    page.click(f'#hands tr[data-hand="{hand_id}"] a')
    page.wait_for_selector("#board .board-seat")
    assert page.text_content("#step-text") and page.get_attribute("body", "data-step") == "0"
    for _ in range(30):
        page.click("#next")
    assert page.get_attribute("body", "data-step") == "30"
    hands = page.query_selector_all("#board .hand-row")
    assert len(hands) == 4  # all four hands visible
    tiles = [len(h.query_selector_all("svg.tile")) for h in hands]
    assert all(n >= 10 for n in tiles), tiles
    assert page.is_hidden("#public-only") if page.query_selector("#public-only") else True
    assert "结算" in (page.text_content("#settlement") or "")
    _shot(page, tmp_path, "owner-replay", full_page=True)
    page.click("#last")
    assert page.text_content("#step-text").startswith("结算")  # type: ignore[union-attr]

    # An unfinished hand: public information only.
    page.goto(f"{url}/owner#/h/{filled.open_hand}")
    page.wait_for_selector("#public-only")
    page.wait_for_selector("#board .board-seat")
    assert page.query_selector_all("#board .hand-row") == []
    page.close()


def test_the_display_names_who_sits_where_as_text(browser: Any, site: tuple[str, LiveHub]) -> None:
    """The public seats topic: a member's name where 1号位 stood, set as text (a name
    that looks like markup stays text), a guest's seat keeps its number."""
    url, hub = site
    steps = _hand()
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    page.goto(f"{url}/display")
    page.wait_for_selector('#live-banner[data-state="connected"]')
    hub.publish("seats", {"seats": [None, "<b>王五</b>", None, "李四"]})
    _push(hub, steps[:3])
    page.wait_for_selector('body[data-hand-id="live-1"]', state="attached")  # not a predicate: CSP
    names = page.locator("#seat-1 .seat-name")
    assert "<b>王五</b>" in names.inner_text()
    assert page.locator("#seat-1 .seat-name b").count() == 0
    assert "李四" in page.locator("#seat-3 .seat-name").inner_text()
    assert "1号位" in page.locator("#seat-0 .seat-name").inner_text()


def test_owner_sees_the_dice_check_and_the_fairness_report(
    browser: Any, store: EventStore, filled: Filled, tmp_path: Path
) -> None:
    # table t9's hands as the hub holds them: sent as handlogs, their dice checked on arrival
    hands = committed_hands(30, seed=4, table="t9", session="s9", rigged=frozenset({2}))
    source = EventStore.open("sqlite://")
    source.start_session(ruleset="xingguo", parlour="demo", table_id="t9", session_id="s9")
    ids = [record_hand(source, e, session_id="s9", hand_no=i + 1) for i, e in enumerate(hands)]
    logs = [
        parse_handlog(build_handlog(source.load_hand(h), parlour="demo", table="t9")) for h in ids
    ]
    source.close()
    assert store_handlogs(store.engine, logs).stored == ids
    hub = LiveHub()
    app = create_app(store, hub, WebAppSettings(parlour="demo", table="t1", secret_key=SECRET))
    with serve(app, hub) as url:
        page = browser.new_page(bypass_csp=True, viewport={"width": 1280, "height": 720})
        page.goto(f"{url}/owner")
        page.wait_for_selector("#login-form")
        page.fill("#login-name", OWNER)
        page.fill("#login-password", PASSWORD)
        page.click("#login-submit")
        page.wait_for_selector("#tables a")

        page.goto(f"{url}/owner#/h/{ids[0]}")
        page.wait_for_selector("#dice-check")
        assert page.get_attribute("#dice-check", "data-verdict") == "ok"
        assert "骰子已验证" in (page.text_content("#dice-check") or "")

        page.goto(f"{url}/owner#/h/{ids[1]}")  # hand 2: its rolls are not its seed's
        page.wait_for_selector("#dice-check[data-verdict=failed]")
        text = page.text_content("#dice-check") or ""
        assert "骰子验证失败" in text and "the seed gives" in text

        page.goto(f"{url}/owner#/t/t9")
        page.wait_for_selector("#hands tr[data-hand]")
        flagged = page.query_selector_all("#hands tr[data-hand] .dice-flag")
        assert len(flagged) == 1 and "骰子验证失败" in (flagged[0].text_content() or "")
        assert "the seed gives" in (flagged[0].get_attribute("title") or "")
        page.wait_for_selector("#fairness-link")
        page.click("#fairness-link")
        page.wait_for_selector("#fairness-tests tr[data-test]")
        rows = page.query_selector_all("#fairness-tests tr[data-test]")
        assert [r.get_attribute("data-test") for r in rows] == [
            "faces",
            "sums",
            "seat_wins",
            "dealer_streak",
        ]
        assert len(page.query_selector_all(".charts img")) == 4
        for chart in page.locator(".charts img").all():
            wait_image_loaded(chart)
        assert "fairness.csv" in (page.get_attribute("#fairness-csv", "href") or "")
        assert "30" in (page.text_content("#fairness-summary") or "")
        # a Chinese page in Chinese: a test with too few hands says so first in Chinese
        notes = [r.query_selector("td.muted").text_content() for r in rows]
        assert any(n.startswith("样本太少，无法检验（至少需要") for n in notes), notes
        assert not any(n[:1].isascii() and n[:1].isalpha() for n in notes), notes
        flips = page.text_content("#fairness-flips") or ""
        assert "精从牌墙第几张翻出" in flips and "×" in flips and ":" not in flips
        # a number column's header sits over its numbers
        aligns = page.eval_on_selector_all(
            "#fairness-tests th.num", "ths => ths.map((t) => getComputedStyle(t).textAlign)"
        )
        assert aligns == ["right", "right", "right"]
        _shot(page, tmp_path, "owner-fairness", full_page=True)
        page.close()
