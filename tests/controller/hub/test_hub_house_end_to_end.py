"""House rules end to end, with the real parts an owner has: two table services (virtual
tables, bots playing), the hub on PostgreSQL, a Mosquitto with the parlour's accounts and
ACLs, Debian's Chromium on the hub's owners' page.

The owner makes 本店兴国 with another 德国 bonus (a bad value refused by the form, the option
named) and assigns it to t2 only, while t2 is off; the audit shows the change. t2 picks it up
when it reconnects, and its next session plays it: each hand settles as ``mjtable settle
--preset`` with the same values, and the hub's page says t2 applied it; the hub keeps its
hands with the house ruleset's name and t2's hand list shows it. t1 keeps its own
rules. A rules message forged with t1's account on t2's topic is refused by the broker.

Costs one to two minutes (65-95 s measured on a loaded 2-core machine): five sessions of one
or two hands, each a service start, and one page; besides PostgreSQL's and Chromium's start.
Set MJTABLE_SCREENSHOTS=docs/screenshots to refresh the screenshot docs/house-rules.md shows.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
from playwright.sync_api import expect
from pydantic import SecretStr
from typer.testing import CliRunner

from controller.cli import (
    app,
    commands,  # noqa: F401  (registers the commands)
)
from controller.cli.json_input import loads
from controller.config import TableSettings
from controller.house.options import preset_toml
from controller.hub.service import HubIngest
from controller.mqtt import encode
from controller.mqtt.broker_acl import table_user
from controller.runtime import running
from controller.store import EventStore
from controller.store.house_rules import HouseRules
from controller.store.owners import OwnerAccounts
from controller.web import LiveHub, WebAppSettings, create_app
from controller.web.passwords import hash_password
from engine.round import event_from_dict
from engine.round.finish import finished_hand
from engine.round.fold import fold
from engine.settlement.finished_hand import request_of
from tests.controller.mosquitto import Mosquitto
from tests.controller.mqtt_helpers import settings
from tests.controller.parlour_broker import parlour_broker, password
from tests.controller.service_helpers import (
    GUARD,
    ServiceThread,
    config_for,
    data_dir,
    options,
    until,
)
from tests.controller.web.conftest import OWNER, PASSWORD, SECRET
from tests.controller.web.server import serve
from tests.controller.web.test_browser import _shot, browser  # noqa: F401 (a fixture)
from tests.controller.web.test_house_browser import logged_in

pytestmark = pytest.mark.timeout(600)
PARLOUR = "p1"
BONUS = {"win.deguo_bonus": 10}
HOUSE = {"name": "本店兴国", "version": 1}
runner = CliRunner()


class Hub:
    """``mjtable hub``'s two parts: the ingest (MQTT) in a thread of its own, the web app."""

    def __init__(self, store: EventStore, url: str) -> None:
        mqtt = settings(url, username="hub", password=password("hub"))
        self.ingest = HubIngest(store, mqtt, parlour=PARLOUR)
        self.stop: Callable[[], object] = lambda: None
        self.thread = ServiceThread(self._main)

    async def _main(self) -> None:
        loop = asyncio.get_running_loop()
        self.stop = lambda: loop.call_soon_threadsafe(self.ingest.stop)
        await self.ingest.run()


def _in_thread(main: Callable[[], Coroutine[Any, Any, Any]]) -> Any:
    """What ``main()`` returns, run on an event loop of its own (Playwright's sync API holds
    this thread's)."""
    got: list[Any] = []

    async def keep() -> None:
        got.append(await main())

    thread = ServiceThread(keep)
    thread.start()
    assert thread.finished.wait(GUARD * 8), "it did not end"
    assert thread.failed is None, thread.failed
    return got[0]


class Tables:
    """t1 and t2: a table's service is started for one session of ``hands`` hands, then
    stopped once the hub has them (a table off between its sessions)."""

    def __init__(self, broker: Mosquitto, tmp_path: Path) -> None:
        self.configs: dict[str, TableSettings] = {}
        for table in ("t1", "t2"):
            plain = config_for(
                data_dir(tmp_path / table), "xingguo", broker.url, parlour=PARLOUR, table=table
            )
            user = table_user(table)
            mqtt = plain.mqtt.model_copy(
                update={"username": user, "password": SecretStr(password(user))}
            )
            self.configs[table] = plain.model_copy(update={"mqtt": mqtt})
        self.stores: dict[str, EventStore] = {}

    def session(
        self,
        table: str,
        hands: int,
        *,
        seed: int,
        until_: Callable[[Any], bool] = lambda _run: True,
    ) -> str:
        """A new session of ``hands`` hands; the service stops once ``until_(run)`` holds and
        the hub acknowledged every hand. Returns the session's id."""
        ran: dict[str, str] = {}

        async def main() -> None:
            async with running(self.configs[table], options(seed, hands)) as run:
                ran["session"] = run.keeper.session_id
                # (a hang guard: a starved virtual board retries its buttons)
                await asyncio.wait_for(run.service.run(asyncio.Event()), GUARD * 3 * hands)
                store = run.store
                await until(lambda: not store.unacked_handlogs(), f"{table}'s hands at the hub")
                await until(lambda: until_(run), f"{table} to hear from the hub")

        _in_thread(main)
        return ran["session"]

    def store(self, table: str) -> EventStore:
        if table not in self.stores:
            self.stores[table] = EventStore.open(
                f"sqlite:///{self.configs[table].data_dir}/mjtable.db"
            )
        return self.stores[table]

    def close(self) -> None:
        for store in self.stores.values():
            store.close()


@pytest.fixture
def parlour(
    mosquitto_factory: Callable[..., Mosquitto], hub_store: EventStore, tmp_path: Path
) -> Iterator[tuple[Mosquitto, Hub, str, Tables]]:
    users = ["hub", table_user("t1"), table_user("t2")]
    broker, _ws = parlour_broker(
        mosquitto_factory, tmp_path, parlour=PARLOUR, tables=["t1", "t2"], users=users
    )
    OwnerAccounts(hub_store).add(OWNER, hash_password(PASSWORD))
    hub = Hub(hub_store, broker.url)
    hub.thread.start()
    live = LiveHub()
    web = WebAppSettings(parlour=PARLOUR, table="hub", hub=True, secret_key=SECRET)
    site = create_app(hub_store, live, web, table_software=hub.ingest.software.get)
    tables = Tables(broker, tmp_path)
    try:
        with serve(site, live) as url:
            yield broker, hub, url, tables
    finally:
        tables.close()
        hub.stop()
        assert hub.thread.finished.wait(GUARD)
        assert hub.thread.failed is None, hub.thread.failed


def _hands_of(store: EventStore, session: str) -> list[str]:
    return [h.id for h in store.list_hands(status="finished") if h.session_id == session]


def _played_with(store: EventStore, hand: str) -> tuple[str, dict[str, object]]:
    first = event_from_dict(store.load_hand(hand).event_dicts()[0])
    return first.ruleset, first.options  # type: ignore[attr-defined]


def _settles_as_mjtable_settle(store: EventStore, hand: str, preset: Path) -> None:
    stored = store.load_hand(hand)
    state = fold([event_from_dict(e) for e in stored.event_dicts()])
    request = preset.with_name(f"{hand}.json")
    request.write_text(json.dumps(request_of(finished_hand(state))), encoding="utf-8")
    settled = runner.invoke(app, ["settle", str(request), "--preset", str(preset)])
    assert settled.exit_code == 0, settled.output
    assert loads(settled.output) == stored.settlement


async def _forge_and_read(port: int) -> dict[str, Any]:
    """t1's account writes rules on t2's topic (retained); what the broker then holds there,
    as t2 reads it."""
    topic = f"mahjong/{PARLOUR}/t2/house_rules"
    forged = {
        "format": "mjtable.house_rules", "version": 1, "name": "本店兴国", "base": "xingguo",
        "options": {"win.deguo_bonus": 99}, "rules_version": 9, "from_next_hand": True,
        "by": "t1",
    }  # fmt: skip
    forger = table_user("t1")
    async with aiomqtt.Client("127.0.0.1", port, username=forger, password=password(forger)) as c:
        await c.publish(topic, encode(forged), qos=1, retain=True)  # (acknowledged, dropped)
    reader = table_user("t2")
    async with aiomqtt.Client("127.0.0.1", port, username=reader, password=password(reader)) as c:
        await c.subscribe(topic, qos=1)
        async for message in c.messages:
            assert isinstance(message.payload, bytes)
            held: dict[str, Any] = json.loads(message.payload)
            return held
    raise AssertionError("no retained message")


def test_an_owner_changes_a_house_rule_at_the_hub_and_only_t2_plays_it(
    browser: Any,  # noqa: F811
    parlour: tuple[Mosquitto, Hub, str, Tables],
    hub_store: EventStore,
    tmp_path: Path,
) -> None:
    broker, hub, url, tables = parlour
    # both tables have played at the hub (so its page lists them), then are off
    first = {t: tables.session(t, 1, seed=n) for n, t in [(1, "t1"), (2, "t2")]}
    rules = HouseRules(hub_store)

    page = logged_in(browser, url, "#/house")
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.get_by_label("店规名称").fill("本店兴国")
    page.get_by_role("button", name="新建").click()
    bonus = page.get_by_label("德国奖分", exact=True)
    bonus.fill("-1")
    page.get_by_role("button", name="保存").click()
    expect(page.get_by_role("alert")).to_contain_text("「德国奖分」")  # refused, named
    assert rules.all() == []
    bonus.fill("10")
    page.get_by_role("button", name="保存").click()
    expect(page.get_by_role("alert")).to_have_text("已保存：第 1 版")
    page.get_by_role("link", name="店规").first.click()
    page.get_by_role("checkbox", name="t2").check()
    page.get_by_role("button", name="指派").click()
    expect(page.locator("#house-assignments tr[data-table='t2']")).to_contain_text("本店兴国")
    audit = page.locator("#house-audit tbody tr")
    expect(audit).to_have_count(2)
    expect(audit.first).to_contain_text("t2")
    expect(audit.nth(1)).to_contain_text("「德国奖分」10")

    # another table's account cannot put rules on t2's topic: the hub's message stays
    held = _in_thread(lambda: asyncio.wait_for(_forge_and_read(broker.port), GUARD))
    assert (held["rules_version"], held["options"]) == (1, BONUS)

    # t2, off during the change, takes it as it reconnects; a session started before it
    # heard of it plays on under its own rules (never mid-session)
    t2 = tables.store("t2")

    def heard(run: Any) -> bool:
        return HouseRules(run.store).assignment("t2") is not None

    tables.session("t2", 1, seed=3, until_=heard)
    received = HouseRules(t2).get("本店兴国")
    assert received is not None and received.options == BONUS and received.version == 1
    # … and its next session plays it, each hand as mjtable settle with the same values
    session = tables.session("t2", 2, seed=4)
    assert t2.get_session(session).house == HOUSE
    preset = tmp_path / "house.toml"
    preset.write_text(preset_toml("xingguo", BONUS, "本店兴国"), encoding="utf-8")
    hands = _hands_of(t2, session)
    assert len(hands) == 2
    for hand in hands:
        assert t2.load_hand(hand).hand.house == HOUSE
        assert _played_with(t2, hand) == ("xingguo", BONUS)
        _settles_as_mjtable_settle(t2, hand, preset)

    # the hub heard that t2 applied version 1, and keeps its hands with the values played
    def applied() -> bool:
        return (a := rules.assignment("t2")) is not None and a.applied_version == 1

    _in_thread(lambda: until(applied, "the hub to hear that t2 applied version 1"))
    assert all(_played_with(hub_store, h) == ("xingguo", BONUS) for h in hands)
    assert all(hub_store.load_hand(h).hand.house == HOUSE for h in hands)

    # t1 keeps its rules (table.toml's): no assignment reached it, its next session as before
    t1 = tables.store("t1")
    again = tables.session("t1", 1, seed=5)
    assert HouseRules(t1).all() == [] and t1.get_session(again).house is None
    assert all(_played_with(t1, h) == ("xingguo", {}) for h in _hands_of(t1, again))
    assert first["t1"] != again

    page.reload()
    expect(page.locator("#house-assignments tr[data-table='t2'] td").nth(3)).to_have_text("1")
    expect(page.locator("#house-assignments tbody tr")).to_have_count(1)
    _shot(page, tmp_path, "house-hub-applied", full_page=True)
    # the hub's hand list of t2 names the house ruleset its last hands were played under
    page.evaluate("location.hash = '#/t/t2'")
    expect(page.locator("#hands tbody tr").first).to_contain_text("店规 本店兴国（第 1 版）")
    assert errors == []
    assert hub.thread.failed is None
