"""The phones' joins listed for staff on the console, behind its menu of rare acts
(Chromium, a table without readers over a real Mosquitto): each join, a phone leaving
and a seat staff freed, newest first, who and when, in words; a name as text, never
markup; a seat a phone holds freed by staff with one tap."""

from __future__ import annotations

from typing import Any

import pytest

from tests.controller.play.phones import call, join_all, staff_token
from tests.controller.play.test_phone_claims_browser import WAIT
from tests.controller.web.test_browser import (
    _shot,
    browser,  # noqa: F401 (a fixture)
)
from tests.controller.web.test_staff_console import _log_in

MARKUP = "<b id='x'>王五</b>"


@pytest.mark.timeout(300)
def test_staff_see_the_phones_joins_leaves_and_releases_on_the_console(
    browser: Any,  # noqa: F811
    table: Any,
    tmp_path: Any,
) -> None:
    base = table.url
    tokens = join_all(base, ("张三", "李四", MARKUP, "赵六"))
    assert call(f"{base}/api/v1/play/leave", {}, token=tokens[1]).status == 204
    auth = {"Authorization": f"Bearer {staff_token(base)}"}
    assert call(f"{base}/api/v1/staff/phones/3/release", {}, headers=auth).status == 200

    page = browser.new_page(viewport={"width": 1024, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    _log_in(page, base)
    assert page.locator("#phone-joins li").count() == 0  # (loaded when the menu opens)
    page.click("#staff-more > summary")  # the rare acts' menu
    page.wait_for_selector("#phone-joins li:nth-child(6)", timeout=WAIT)
    shown = [li.text_content() or "" for li in page.query_selector_all("#phone-joins li")]
    assert len(shown) == 6
    # newest first: 4号位 freed by staff ann, 2号位 left, then the four joins
    assert "4号位" in shown[0] and "赵六" in shown[0] and "被工作人员让出" in shown[0]
    assert "员工 ann" in shown[0]
    assert "2号位" in shown[1] and "李四" in shown[1] and "离座" in shown[1]
    assert [s.split(" · ")[1] for s in shown[2:]] == ["4号位", "3号位", "2号位", "1号位"]
    assert all("扫码入座" in s and " · 手机 " in s for s in shown[2:])
    assert MARKUP in shown[3]  # the name as its text
    assert page.locator("#phone-joins #x").count() == 0  # never as markup
    page.locator("#phone-joins").scroll_into_view_if_needed()
    _shot(page, tmp_path, "console-phone-joins")

    # staff free a seat a phone holds from the seats' rows: one tap, audited as a release
    page.wait_for_selector("#seat-0-release", timeout=WAIT)
    assert page.locator("#seat-1-release").count() == 0  # 2号位's phone left
    assert page.locator("[data-phone-seat='2']").text_content() == f"手机：{MARKUP}"
    page.click("#seat-0-release")
    page.wait_for_selector("#phone-joins li:nth-child(7)", timeout=WAIT)
    newest = page.locator("#phone-joins li").first.text_content() or ""
    assert "1号位" in newest and "张三" in newest and "被工作人员让出" in newest
    page.wait_for_selector("#seat-0-release", state="detached", timeout=WAIT)
    assert call(f"{base}/api/v1/play/seats").body["seats"][0] is None
    assert errors == []
    page.close()
