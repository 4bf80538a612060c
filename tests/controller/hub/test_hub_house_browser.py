"""The house rules on the hub's owners' page (PostgreSQL), in Debian's Chromium: the owner
makes 本店兴国 with another 德国 bonus (a bad value refused with the option named), assigns
it to t2 only, the audit shows both, and the list of tables shows each table's house
ruleset and software, t1 marked behind the hub's version."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from controller.process.software import software_version
from controller.store import EventStore
from controller.store.house_rules import HouseRules
from controller.store.owners import OwnerAccounts
from controller.web import LiveHub, WebAppSettings, create_app
from controller.web.passwords import hash_password
from tests.controller.web.conftest import OWNER, PASSWORD, SECRET
from tests.controller.web.server import serve
from tests.controller.web.test_browser import _shot, browser  # noqa: F401 (a fixture)
from tests.controller.web.test_house_browser import logged_in


@pytest.fixture
def hub_site(hub_store: EventStore) -> Iterator[str]:
    for table in ("t1", "t2"):
        hub_store.start_session(ruleset="xingguo", parlour="p1", table_id=table)
    OwnerAccounts(hub_store).add(OWNER, hash_password(PASSWORD))
    software = {"t1": "0.0.1", "t2": software_version()}
    live = LiveHub()
    settings = WebAppSettings(parlour="p1", table="hub", hub=True, secret_key=SECRET)
    with serve(create_app(hub_store, live, settings, table_software=software.get), live) as url:
        yield url


def test_the_owner_assigns_a_house_ruleset_to_one_table_at_the_hub(
    browser: Any,  # noqa: F811
    hub_site: str,
    hub_store: EventStore,
    tmp_path: Path,
) -> None:
    page = logged_in(browser, hub_site, "#/house")
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.get_by_label("店规名称").fill("本店兴国")
    page.get_by_role("button", name="新建").click()
    bonus = page.get_by_label("德国奖分", exact=True)
    bonus.fill("abc")
    page.get_by_role("button", name="保存").click()
    expect(page.get_by_role("alert")).to_contain_text("「德国奖分」")
    bonus.fill("10")
    page.get_by_role("button", name="保存").click()
    expect(page.get_by_role("alert")).to_have_text("已保存：第 1 版")

    page.get_by_role("link", name="店规").first.click()
    page.get_by_role("checkbox", name="t2").check()
    page.get_by_role("button", name="指派").click()
    expect(page.locator("#house-assignments tr[data-table='t2']")).to_contain_text("本店兴国")
    expect(page.locator("#house-assignments tbody tr")).to_have_count(1)
    expect(page.locator("#house-audit tbody tr").first).to_contain_text("t2")
    _shot(page, tmp_path, "house-hub-assign", full_page=True)
    rules = HouseRules(hub_store)
    assert rules.assignment("t1") is None
    assigned = rules.assignment("t2")
    assert assigned is not None and assigned.name == "本店兴国"
    saved = rules.get("本店兴国")
    assert saved is not None and saved.options == {"win.deguo_bonus": 10}

    page.get_by_role("link", name="牌局记录").click()
    expect(page.locator("[data-house='t2']")).to_contain_text("本店兴国")
    expect(page.locator("[data-house='t1']")).to_have_text("本机设置 · 兴国冲关麻将")
    expect(page.locator("[data-software='t1']")).to_contain_text("比总台旧")
    expect(page.locator("[data-software='t2']")).to_have_text(software_version())
    assert errors == []
