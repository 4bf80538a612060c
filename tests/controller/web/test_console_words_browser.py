"""The staff console's words in Debian's Chromium: a penalty says what it costs, or that
the owner must set it, before anyone tries; a refusal reads in Chinese, and in English on
the English page. And the served pages' own words (each page's ``zh`` table) carry no
field path, ``seats[``, 0-based seat or English-only sentence."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from playwright.sync_api import expect

from controller.store import EventStore
from controller.store.owners import OwnerAccounts, StaffPolicy
from controller.table.hand_keeper import HandKeeper
from controller.web import LiveHub
from tests.controller.test_words import readable
from tests.controller.web.test_browser import browser  # noqa: F401 (a fixture)
from tests.controller.web.test_staff_api import PASSWORD, keeper  # noqa: F401 (a fixture)
from tests.controller.web.test_staff_console import console_site


@pytest.fixture
def site(
    store: EventStore,
    keeper: HandKeeper,  # noqa: F811
) -> Iterator[tuple[str, LiveHub]]:
    yield from console_site(store, keeper)


def test_a_penalty_says_its_amount_or_that_the_owner_sets_it_before_anyone_tries(
    browser: Any,  # noqa: F811
    site: tuple[str, LiveHub],
    keeper: HandKeeper,  # noqa: F811 (xingguo: 诈胡 priced by its seed, 相公 by none)
    store: EventStore,
) -> None:
    url, _ = site
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.goto(f"{url}/dealer")
    _log_in_here(page)
    page.click("#staff-more > summary")  # the rare acts' menu
    hint = page.locator("#pen-hint")
    expect(hint).to_have_text("其他三家每家得 20 分（玩法规定）")
    expect(page.locator("#pen-go")).to_be_enabled()
    page.select_option("#pen-kind", "xianggong")
    expect(hint).to_contain_text("本玩法没有相公的罚分：请老板先在“员工权限”里设定罚分")
    expect(page.locator("#pen-go")).to_be_disabled()
    stored = len(store.load_hand(keeper.hand_id or "").events)
    # the owner sets it: the console says so at its next look
    OwnerAccounts(store).set_staff_policy(StaffPolicy(xianggong_amount=8), "boss")
    page.reload()
    page.wait_for_selector("#staff-hand-head")
    page.click("#staff-more > summary")
    page.select_option("#pen-kind", "xianggong")
    expect(hint).to_have_text("其他三家每家得 8 分（老板设定）")
    expect(page.locator("#pen-go")).to_be_enabled()
    assert len(store.load_hand(keeper.hand_id or "").events) == stored  # (nobody tried)
    page.close()


def test_a_refusal_reads_in_chinese_and_in_english_on_the_english_page(
    browser: Any,  # noqa: F811
    site: tuple[str, LiveHub],
    keeper: HandKeeper,  # noqa: F811
) -> None:
    url, _ = site
    for lang, said in (("zh", "出分和得分不能是同一家"), ("en", "to_seat: the same seat")):
        page = browser.new_page(viewport={"width": 1024, "height": 1366})
        page.goto(f"{url}/dealer?lang={lang}")
        _log_in_here(page)
        page.click("#staff-more > summary")  # the rare acts' menu
        page.select_option("#adj-from", "2")
        page.select_option("#adj-to", "2")
        page.fill("#adj-points", "5")
        page.fill("#adj-reason", "试一试")
        page.click("#adj-go")
        expect(page.locator("#adj-error")).to_contain_text(said)
        if lang == "zh":
            assert readable(page.locator("#adj-error").inner_text())
        page.close()


def _log_in_here(page: Any) -> None:
    """``_log_in``, on the page already open (in its language)."""
    page.click(".staff-door summary")
    page.fill("#staff-name", "ann")
    page.fill("#staff-password", PASSWORD)
    page.click("#staff-submit")
    page.wait_for_selector("#staff-hand-head")


def _zh_words(script: str) -> list[tuple[str, str]]:
    """Each ``key: "text"`` of the script's ``zh: {…}`` tables (its en tables follow)."""
    words: list[tuple[str, str]] = []
    for m in re.finditer(r"\bzh:\s*\{", script):
        table = script[m.end() :]
        end = re.search(r"\}\s*,\s*en:\s*\{", table)
        words += re.findall(
            r'([\w$]+)\s*:\s*"((?:[^"\\]|\\.)*)"', table[: end.start() if end else 0]
        )
    return words


def test_the_pages_chinese_words_are_peoples_words(client: TestClient) -> None:
    pages = ["common", "console", "owner", "floor", "member", "display", "dealer", "cashout"]
    seen = 0
    for name in pages:
        r = client.get(f"/static/{name}.js")
        assert r.status_code == 200, name
        for key, text in _zh_words(r.text):
            seen += 1
            if key == "lang":  # the toggle's label: the other language's own name
                continue
            assert readable(text) or not re.search(r"[A-Za-z]{3,}", text), (name, key, text)
    assert seen > 300
    # the penalty's words are there before anyone is refused
    console = dict(_zh_words(client.get("/static/console.js").text))
    assert "老板" in console["pen_unset"] and "{n}" in console["pen_amount"]
