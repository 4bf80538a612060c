"""The display marks a settlement a person entered by hand, from the settlement topic's
public note (「工作人员录入」, 「玩家录入」), as the owners' pages and the hub do; a
settlement the readers saw carries no mark."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from controller.web import LiveHub
from tests.controller.web.test_browser import _hand, _push, browser, site  # noqa: F401


@pytest.mark.parametrize(
    ("note", "mark", "en"),
    [
        ("工作人员录入 (entered by staff ann)", "工作人员录入", "entered by staff"),
        ("玩家录入 (entered by player phone-2)", "玩家录入", "entered by the players"),
        (None, None, None),
    ],
    ids=["staff", "players", "readers"],
)
def test_the_display_marks_a_settlement_entered_by_hand(
    browser: Any,  # noqa: F811
    site: tuple[str, LiveHub],  # noqa: F811
    note: str | None,
    mark: str | None,
    en: str | None,
) -> None:
    url, hub = site
    steps = _hand()
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    page.goto(f"{url}/display")
    page.wait_for_selector('#live-banner[data-state="connected"]')
    settle = next(i for i, s in enumerate(steps) if any(t == "settlement" for t, _ in s))
    _push(hub, steps[:settle])
    settlement = dict(steps[settle])["settlement"]
    if note is not None:
        settlement = settlement | {"notes": [*settlement.get("notes", []), note]}
    hub.publish("settlement", settlement)
    summary = page.locator("#settlement .settle-summary")
    page.wait_for_selector("#settlement:not([hidden])")
    if mark is None:
        expect(page.locator("#settlement [data-entered]")).to_have_count(0)
        assert "录入" not in (summary.text_content() or "")
    else:
        expect(summary).to_contain_text(mark)
        page.get_by_role("button", name="English").click()
        expect(summary).to_contain_text(en or "")
    page.close()
