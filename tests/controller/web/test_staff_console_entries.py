"""The console's finish where the readers saw nothing of a seat (a table without readers):
every seat's hand, melds and discards and the flipped tile (as its own act, as soon as it
is turned up) are entered on the console, lianhua's concealed 暗精 and yongfeng's 下精
with the result only, and several winners of one discard (一炮多响, where the ruleset
allows it) in one finish.
In Debian's Chromium against the desk answering from a real store's ``HandKeeper``; what
the console sends settles as ``mjtable settle`` settles the request the hand keeps.

Set MJTABLE_SCREENSHOTS=docs/screenshots to refresh the screenshots docs/staff.md shows."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.cli.settle import settle_data
from controller.mqtt.topics import Topics
from controller.store import EventStore
from controller.store.owners import OwnerAccounts
from controller.table.hand_keeper import HandKeeper
from controller.table.publication import Outlet
from controller.web.passwords import hash_password
from tests.controller.web.test_browser import _shot, browser  # noqa: F401 (a fixture)
from tests.controller.web.test_staff_api import PASSWORD
from tests.controller.web.test_staff_console import _log_in, console_site

SECRET = b"e" * 32


def _site(store: EventStore, ruleset: str) -> Iterator[tuple[str, HandKeeper]]:
    """A hand whose tiles no reader sees (started on unknown walls, never dealt)."""
    keeper = HandKeeper(
        store, Outlet(Topics("demo", "t1")), parlour="demo", table="t1", ruleset=ruleset
    )
    keeper.resume()
    keeper.start_hand(None)
    OwnerAccounts(store).add("ann", hash_password(PASSWORD), "staff", ("t1",))
    for url, _ in console_site(store, keeper):
        yield url, keeper


@pytest.fixture
def guangdong(store: EventStore) -> Iterator[tuple[str, HandKeeper]]:
    yield from _site(store, "guangdong")  # 一炮多响: every winner of the discard is paid


@pytest.fixture
def xingguo(store: EventStore) -> Iterator[tuple[str, HandKeeper]]:
    yield from _site(store, "xingguo")  # its 精 flipped: entered here, no reader saw it


@pytest.fixture
def lianhua(store: EventStore) -> Iterator[tuple[str, HandKeeper]]:
    yield from _site(store, "lianhua")  # its 暗精 is secret until the hand ends


@pytest.fixture
def yongfeng(store: EventStore) -> Iterator[tuple[str, HandKeeper]]:
    yield from _site(store, "yongfeng")  # its 下精 is turned up after the win


def _seat(page: Any, seat: int, hand: str, discards: str) -> None:
    page.fill(f"#o{seat}-hand", hand)
    page.fill(f"#o{seat}-discards", discards)


def _finished(store: EventStore, keeper: HandKeeper) -> dict[str, Any]:
    assert keeper.hand_id is not None
    events = [e.payload for e in store.load_hand(keeper.hand_id).events]
    return next(e for e in events if e["type"] == "finished_by_staff")


def _flip_1m(page: Any) -> None:
    """The 精 entered as its own act: 1m turned up."""
    page.click("#fin-indicator")
    page.click('#picker [data-kind="1m"]')
    page.click("#fin-flip")
    page.wait_for_selector('#staff-acts [data-act="flip_entered"]')


def _self_draw(page: Any) -> None:
    """Seat 1 wins by self-draw on 5p; the other seats entered as no reader saw them."""
    _seat(page, 0, "19m19p19s1234567z", "9m")
    _seat(page, 2, "2223334446667p", "1s")
    _seat(page, 3, "2223334446667s", "8s")
    page.select_option("#fin-seat", "1")
    page.select_option("#fin-from", "self")
    page.fill("#fin-tile", "5p")
    page.fill("#fin-hand", "345m678m345s789s55p")
    page.fill("#fin-discards", "8p")


def _self_draw_request(ruleset: str, dealer: int, **indicators: str) -> dict[str, Any]:
    """``_self_draw`` with the 精 1m as an owner gives it to ``mjtable settle``."""
    return {
        "ruleset": ruleset,
        "dealer": dealer,
        "indicator": "1m",
        **indicators,
        "seats": [
            {"hand": "19m19p19s1234567z", "melds": [], "discards": "9m"},
            {"hand": "345m678m345s789s55p", "melds": [], "discards": "8p"},
            {"hand": "2223334446667p", "melds": [], "discards": "1s"},
            {"hand": "2223334446667s", "melds": [], "discards": "8s"},
        ],
        "win": [{"seat": 1, "tile": "5p", "from": "self"}],
    }


def _settled(store: EventStore, hand_id: str) -> dict[str, Any]:
    """The hand's last stored settlement."""
    events = reversed(store.load_hand(hand_id).events)
    settlement: dict[str, Any] = next(e for e in events if e.type == "settled").payload[
        "settlement"
    ]
    return settlement


def test_two_winners_of_one_discard_and_every_seat_entered_on_the_console(
    browser: Any,  # noqa: F811
    guangdong: tuple[str, HandKeeper],
    store: EventStore,
    tmp_path: Path,
) -> None:
    url, keeper = guangdong
    page = browser.new_page(viewport={"width": 820, "height": 1180})  # a tablet
    _log_in(page, url)
    page.click("#open-finish")  # the finish entry, below the task
    # nothing was read: the other seats' block is open, the discards are asked for
    assert page.get_attribute("#fin-others", "open") is not None
    assert page.is_visible("#fin-discards")
    assert not page.is_visible("#fin-indicator")  # guangdong turns up no 精
    assert not page.is_visible("#fin-an-indicator")  # nor has a 暗精
    page.select_option("#fin-seat", "1")
    page.select_option("#fin-from", "0")
    page.click("#fin-tile")
    page.click('#picker [data-kind="5p"]')
    page.fill("#fin-hand", "123m456m789m123p55p")
    page.fill("#fin-discards", "1s")
    page.click("#add-winner")
    page.select_option("#w1-seat", "2")
    page.fill("#w1-hand", "456p789p123s456s55p")
    page.fill("#w1-discards", "2s")
    # the winners' rows are not asked for again; the others are
    assert not page.is_visible('[data-other-seat="1"]')
    assert not page.is_visible('[data-other-seat="2"]')
    _seat(page, 0, "1112223334445z", "9s")
    _seat(page, 3, "6667778889s666z", "3s")
    # the picker counts what the form holds: 5p four times over
    assert page.text_content('#picker [data-kind="5p"] [data-left]') == "0"
    assert page.is_disabled('#picker [data-kind="5p"]')
    _shot(page, tmp_path, "staff-two-winners", full_page=True)
    page.fill("#fin-reason", "no readers: entered at the table")
    page.click("#fin-settle")
    page.wait_for_selector('#staff-acts [data-act="finished_by_staff"]')

    finished = _finished(store, keeper)
    request = finished["request"]
    assert [w["seat"] for w in request["win"]] == [1, 2]
    assert {w["from"] for w in request["win"]} == {0} and {w["tile"] for w in request["win"]} == {
        "5p"
    }
    assert [s["discards"].replace(" ", "") for s in request["seats"]] == ["9s", "1s", "2s", "3s"]
    stored = next(
        e for e in reversed(store.load_hand(keeper.hand_id or "").events) if e.type == "settled"
    ).payload["settlement"]
    assert stored["lines"] == settle_data(request)["lines"]
    assert [(line["from"], line["to"]) for line in stored["lines"]] == [(0, 1), (0, 2)]


def test_a_draw_without_readers_enters_every_seat_and_the_flipped_tile(
    browser: Any,  # noqa: F811
    xingguo: tuple[str, HandKeeper],
    store: EventStore,
    tmp_path: Path,
) -> None:
    url, keeper = xingguo
    page = browser.new_page(viewport={"width": 390, "height": 844})  # a phone
    _log_in(page, url)
    page.click("#open-finish")  # the finish entry, below the task
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert page.is_visible("#fin-indicator")  # no reader saw the 精: entered here
    assert not page.is_visible("#fin-an-indicator")  # xingguo has no 暗精
    _seat(page, 0, "19m19p19s1234567z", "2m")
    _seat(page, 1, "2223334445556m", "5p")
    _seat(page, 2, "2223334445556p", "5s")
    _seat(page, 3, "2223334445556s", "6m")
    # the 精 turned up: entered at once, the table shows it while the hand is played
    page.click("#fin-indicator")
    page.click('#picker [data-kind="1m"]')
    assert page.input_value("#fin-indicator") == "1m"
    page.fill("#fin-reason", "精 turned up")
    page.click("#fin-flip")
    page.wait_for_selector('#staff-acts [data-act="flip_entered"]')
    page.wait_for_selector("#staff-hand-head .jing")
    assert not page.is_visible("#fin-indicator")  # entered: the finish settles with it
    _shot(page, tmp_path, "staff-flip-entered", full_page=True)
    assert keeper.state is not None and keeper.state.flip_entered is not None
    flip = keeper.log[-1].to_dict()
    assert flip["type"] == "flip_entered" and flip["by"] == "ann" and flip["indicator"] == "1m"
    page.fill("#fin-reason", "流局, entered")
    page.click("#fin-exhausted")
    page.wait_for_selector('#staff-acts [data-act="finished_by_staff"]')

    request = _finished(store, keeper)["request"]
    assert request["indicator"] == "1m" and request["win"] is None
    assert [s["hand"].replace(" ", "") for s in request["seats"]] == [
        "19m19p19s1234567z",
        "2223334445556m",
        "2223334445556p",
        "2223334445556s",
    ]
    stored = next(
        e for e in reversed(store.load_hand(keeper.hand_id or "").events) if e.type == "settled"
    ).payload["settlement"]
    assert stored["lines"] == settle_data(request)["lines"]


def _public(store: EventStore) -> str:
    """Every message the table has put out for its public topics, as one text."""
    return "\n".join(f"{m.topic} {m.payload}" for m in store.outbox_peek(limit=10_000))


def test_lianhuas_an_jing_is_entered_with_the_result_and_settles_as_mjtable_settle(
    browser: Any,  # noqa: F811
    lianhua: tuple[str, HandKeeper],
    store: EventStore,
) -> None:
    url, keeper = lianhua
    hand_id = keeper.hand_id or ""
    page = browser.new_page(viewport={"width": 820, "height": 1180})
    _log_in(page, url)
    page.click("#open-finish")  # the finish entry, below the task
    page.wait_for_selector("#fin-an-indicator", state="visible")  # no reader saw the 墩
    _flip_1m(page)  # the 精 is public as soon as it is turned up; the 暗精 is not
    assert page.is_visible("#fin-an-indicator")  # (it goes with the result)
    _self_draw(page)
    # without it the API refuses, naming the field, as text beside the form
    page.click("#fin-settle")
    page.wait_for_selector("#finish-error:not(:empty)")
    error = page.eval_on_selector("#finish-error", "n => n.textContent")
    assert error.startswith("暗精：莲花冲关要填暗精"), error
    events = len(store.load_hand(hand_id).events)
    # a refused finish that carries it stores and publishes nothing of it
    page.click("#fin-an-indicator")
    page.click('#picker [data-kind="5p"]')
    assert page.input_value("#fin-an-indicator") == "5p"
    page.fill("#fin-hand", "345m678m345s789s56p")  # no win
    page.click("#fin-settle")
    page.wait_for_selector("#finish-error:not(:empty)")
    assert "号位不是胡牌" in page.eval_on_selector("#finish-error", "n => n.textContent")
    assert len(store.load_hand(hand_id).events) == events
    public = _public(store)
    assert "an_indicator" not in public and "暗精" not in public and "an_jing" not in public
    page.fill("#fin-hand", "345m678m345s789s55p")
    page.fill("#fin-reason", "no readers: entered at the table")
    page.click("#fin-settle")
    page.wait_for_selector('#staff-acts [data-act="finished_by_staff"]')

    request = _finished(store, keeper)["request"]
    assert request["an_indicator"] == "5p" and request["indicator"] == "1m"
    # the same input, as an owner would give it to ``mjtable settle``
    expected = settle_data(_self_draw_request("lianhua", request["dealer"], an_indicator="5p"))
    stored = _settled(store, hand_id)
    assert stored["lines"] == expected["lines"] and stored["net"] == expected["net"]
    assert any(line["code"] == "an_jing" for line in stored["lines"])


def test_yongfengs_xia_jing_is_entered_with_the_result_and_settles_as_mjtable_settle(
    browser: Any,  # noqa: F811
    yongfeng: tuple[str, HandKeeper],
    store: EventStore,
) -> None:
    url, keeper = yongfeng
    hand_id = keeper.hand_id or ""
    page = browser.new_page(viewport={"width": 820, "height": 1180})
    _log_in(page, url)
    page.click("#open-finish")  # the finish entry, below the task
    page.wait_for_selector("#fin-xia-indicator", state="visible")  # no reader will see it
    assert not page.is_visible("#fin-an-indicator")  # yongfeng has no 暗精
    _flip_1m(page)
    _self_draw(page)
    # without it the API refuses, naming the field, and nothing is stored
    events = len(store.load_hand(hand_id).events)
    page.click("#fin-settle")
    page.wait_for_selector("#finish-error:not(:empty)")
    error = page.eval_on_selector("#finish-error", "n => n.textContent")
    assert error.startswith("下精：永丰冲关要填下精"), error
    assert len(store.load_hand(hand_id).events) == events
    # the picker counts it as a tile out of the wall: 5m, one in seat 1's hand, two left
    page.click("#fin-xia-indicator")
    page.click('#picker [data-kind="5m"]')
    assert page.input_value("#fin-xia-indicator") == "5m"
    left = page.eval_on_selector('#picker [data-left="5m"]', "n => n.textContent")
    page.fill("#fin-reason", "no readers: entered at the table")
    page.click("#fin-settle")
    page.wait_for_selector('#staff-acts [data-act="finished_by_staff"]')

    request = _finished(store, keeper)["request"]
    assert request["xia_indicator"] == "5m" and request["indicator"] == "1m"
    expected = settle_data(_self_draw_request("yongfeng", request["dealer"], xia_indicator="5m"))
    stored = _settled(store, hand_id)
    assert stored["lines"] == expected["lines"] and stored["net"] == expected["net"]
    assert any(line["code"] == "xia_jing" for line in stored["lines"])
    assert left == "2", left
