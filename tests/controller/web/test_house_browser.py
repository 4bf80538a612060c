"""The owners' house rules on a table's owners' page, in Debian's Chromium: the owner
starts 本店兴国 from 兴国, a bad 德国 bonus is refused with the option named, the preview
shows the sample hands under the old and the new values (as the API settles them), the
save, the assignment to this table and the audit.

Set MJTABLE_SCREENSHOTS=docs/screenshots to refresh the screenshots docs/house-rules.md shows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from controller.house.options import check_house
from controller.house.preview import preview
from controller.process.software import software_version
from controller.store import EventStore
from controller.store.house_rules import HouseRules
from controller.web import LiveHub
from tests.controller.web.conftest import OWNER, PASSWORD
from tests.controller.web.test_browser import _shot, browser, site  # noqa: F401 (fixtures)

HOUSE = {"table.multiple_winners": "all", "win.deguo_bonus": 10}


def _signed(n: int) -> str:
    """Points as the page shows them (+29, -7, 0)."""
    return f"{n:+d}" if n else "0"


def logged_in(browser: Any, url: str, route: str) -> Any:  # noqa: F811
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.goto(f"{url}/owner{route}")
    page.fill("#login-name", OWNER)
    page.fill("#login-password", PASSWORD)
    page.click("#login-submit")
    return page


def test_the_owner_makes_saves_and_assigns_a_house_ruleset(
    browser: Any,  # noqa: F811
    site: tuple[str, LiveHub],  # noqa: F811
    store: EventStore,
    tmp_path: Path,
) -> None:
    url, _ = site
    page = logged_in(browser, url, "#/house")
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.get_by_label("店规名称").fill("本店兴国")
    page.get_by_label("从内置规则开始").select_option("xingguo")
    page.get_by_role("button", name="新建").click()
    bonus = page.get_by_label("德国奖分", exact=True)
    expect(bonus).to_have_value("5")
    expect(page.get_by_text("[decision]").first).to_be_visible()
    # every choice in words, never its id
    claims = page.get_by_label("一炮多人胡时", exact=True)
    expect(claims.locator("option")).to_have_text(
        ["点炮后最近的一家胡", "都算胡", "胡得最大的一家胡", "保护牌型先胡，再按远近"]
    )
    _shot(page, tmp_path, "house-editor")

    # a bad value: refused by the server's check, the option named in words
    bonus.fill("-1")
    page.get_by_role("button", name="保存").click()
    expect(page.get_by_role("alert")).to_contain_text("「德国奖分」")
    assert HouseRules(store).all() == []

    bonus.fill("10")
    claims.select_option(label="都算胡")
    page.get_by_role("button", name="预览").click()
    expect(page.locator("#house-changes")).to_have_text(
        "改动：「一炮多人胡时」点炮后最近的一家胡 → 都算胡；「德国奖分」5 → 10"
    )
    expected = preview("xingguo", {}, check_house("xingguo", HOUSE))
    for i, sample in enumerate(expected):
        table = page.locator(f"table[data-sample='{i}']")
        for seat in range(4):
            expect(table.locator(f"[data-old='{seat}']")).to_have_text(
                _signed(sample["old"]["net"][seat])
            )
            expect(table.locator(f"[data-new='{seat}']")).to_have_text(
                _signed(sample["new"]["net"][seat])
            )
    _shot(page, tmp_path, "house-preview", full_page=True)

    page.get_by_role("button", name="保存").click()
    expect(page.get_by_role("alert")).to_have_text("已保存：第 1 版")
    saved = HouseRules(store).get("本店兴国")
    assert saved is not None and saved.options == HOUSE

    page.get_by_role("link", name="店规").first.click()
    page.get_by_role("button", name="指派").click()
    row = page.locator("#house-assignments tr[data-table='t1']")
    expect(row).to_contain_text("本店兴国")
    listed = page.locator("#house-rulesets tbody tr").first
    expect(listed).to_contain_text("兴国冲关麻将（xingguo）")  # the built-in by its name
    audit = page.locator("#house-audit tbody tr")
    expect(audit).to_have_count(2)
    expect(audit.first).to_contain_text("指派")
    expect(audit.nth(1)).to_contain_text("「一炮多人胡时」都算胡；「德国奖分」10")
    _shot(page, tmp_path, "house-assign", full_page=True)
    assignment = HouseRules(store).assignment("t1")
    assert assignment is not None and assignment.name == "本店兴国"
    # the list of tables names it, and the software the table runs
    page.get_by_role("link", name="牌局记录").click()
    expect(page.locator("[data-house='t1']")).to_contain_text("本店兴国")
    expect(page.locator("[data-software='t1']")).to_have_text(software_version())
    # and in English on the toggle
    page.get_by_role("link", name="店规").first.click()
    expect(audit.nth(1)).to_contain_text("「一炮多人胡时」都算胡")
    page.locator("#lang").click()
    expect(audit.nth(1)).to_contain_text("all of them win")
    assert errors == []
