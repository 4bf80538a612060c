"""The owner's cash-out terms on the owners' page, in Debian's Chromium: the form loads the
stored terms and who set them, a change is saved and survives a reload, the printable
cash-out of the open session counts with it; a value the API refuses shows its message as
text and stores nothing; staff see the terms and cannot change them.

Set MJTABLE_SCREENSHOTS=docs/screenshots to refresh the screenshot docs/players.md shows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from controller.store import EventStore
from controller.store.owners import CashoutTerms, OwnerAccounts
from controller.table.hand_keeper import HandKeeper
from tests.controller.web.test_browser import _shot, browser  # noqa: F401 (a fixture)
from tests.controller.web.test_cashout_browser import site  # noqa: F401 (a fixture)
from tests.controller.web.test_staff_api import PASSWORD


def owner_page(
    browser: Any,  # noqa: F811
    url: str,
    name: str,
    route: str = "#/terms",
    ready: str = "#terms-form",
) -> Any:
    """The owners' page at ``route``, logged in as ``name``, once ``ready`` shows."""
    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    page.goto(f"{url}/owner{route}")
    page.fill("#login-name", name)
    page.fill("#login-password", PASSWORD)
    page.click("#login-submit")
    page.wait_for_selector(ready)
    return page


def _value(page: Any, selector: str) -> str:
    return str(page.eval_on_selector(selector, "e => e.value"))


def _fill(page: Any, point: str, fee: str, per: str, cutoff: str) -> None:
    page.fill("#terms-point", point)
    page.fill("#terms-fee", fee)
    page.select_option("#terms-fee-per", per)
    page.fill("#terms-cutoff", cutoff)


def _refused(page: Any, field: str) -> str:
    """Submit; the state says failed with the API's message, written as text."""
    page.click("#terms-save")
    page.wait_for_selector(f"#terms-state[data-state='failed']:has-text('{field}')")
    assert page.eval_on_selector("#terms-state", "e => e.children.length") == 0
    return str(page.text_content("#terms-state"))


def test_the_owner_sets_the_cash_out_terms_on_the_form(
    browser: Any,  # noqa: F811
    site: tuple[str, HandKeeper],  # noqa: F811
    store: EventStore,
    tmp_path: Path,
) -> None:
    url, keeper = site
    session_id = keeper.session_id  # open: its sheet counts with the terms in force
    assert session_id is not None
    accounts = OwnerAccounts(store)
    errors: list[str] = []
    page = owner_page(browser, url, "boss")
    page.on("pageerror", lambda e: errors.append(str(e)))
    # the stored terms (the fixture's), and who set them
    assert _value(page, "#terms-point") == "2" and _value(page, "#terms-fee") == "20"
    assert _value(page, "#terms-fee-per") == "hand" and _value(page, "#terms-cutoff") == ""
    page.wait_for_selector("#terms-changed:has-text('boss')")

    # refused by the API: its message shows as text, nothing stored
    before = accounts.cashout_terms()
    _fill(page, "0.5", "-5", "hour", "")
    assert "要大于 0" in _refused(page, "台费")  # (the API's words: the field by its name)
    _fill(page, "0.5", "15", "hour", "25:00")
    _refused(page, "每日结算时间")
    _fill(page, "0.5", "15", "hour", "<b>06:00</b>")  # markup is a value like any other
    _refused(page, "每日结算时间")
    assert page.query_selector("#terms-state b") is None
    assert accounts.cashout_terms() == before

    # saved: the state says so, the store holds it, the audit names the owner
    _fill(page, "0.5", "15", "hour", "06:00")
    page.click("#terms-save")
    page.wait_for_selector("#terms-state[data-state='saved']")
    terms, by = accounts.cashout_terms()
    assert by == "boss"
    assert terms == CashoutTerms(point_value=0.5, table_fee=15, fee_per="hour", cutoff="06:00")
    changed_by, at = accounts.cashout_terms_changed()
    assert changed_by == "boss" and at is not None
    page.reload()
    page.wait_for_selector("#terms-form")
    assert _value(page, "#terms-point") == "0.5" and _value(page, "#terms-fee") == "15"
    assert _value(page, "#terms-fee-per") == "hour" and _value(page, "#terms-cutoff") == "06:00"
    page.wait_for_selector("#terms-changed:has-text('boss')")
    _shot(page, tmp_path, "owner-terms")

    # the open session's printable cash-out counts with them
    sheet = page.context.new_page()  # the owner's login (its cookie)
    sheet.goto(f"{url}/cashout?session={session_id}")
    sheet.wait_for_selector("body[data-ready='yes']")
    meta = sheet.text_content("#meta")
    assert "1 分 = 0.5 元" in meta and "台费: 15 元 每小时" in meta
    assert sheet.eval_on_selector("#sheet", "e => e.textContent.includes('元')")

    # no fee and no point value: points only
    page.select_option("#terms-fee-per", "")
    page.fill("#terms-point", "")
    page.click("#terms-save")
    page.wait_for_selector("#terms-state[data-state='saved']")
    terms, _ = accounts.cashout_terms()
    assert terms.table_fee is None and terms.point_value is None and terms.cutoff == "06:00"
    sheet.reload()
    sheet.wait_for_selector("body[data-ready='yes']")
    assert "台费" not in sheet.text_content("#meta")
    assert errors == []


def test_staff_see_the_terms_and_cannot_change_them(
    browser: Any,  # noqa: F811
    site: tuple[str, HandKeeper],  # noqa: F811
) -> None:
    url, _ = site
    page = owner_page(browser, url, "ann")
    assert _value(page, "#terms-point") == "2" and _value(page, "#terms-fee-per") == "hand"
    assert page.query_selector("#terms-save") is None
    fields = "#terms-form input, #terms-form select"
    assert page.eval_on_selector_all(fields, "es => es.length === 5 && es.every(e => e.disabled)")
    assert "boss" not in page.text_content("#terms-changed")  # the audit is the owners'
