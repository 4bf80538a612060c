"""House rulesets at the hub: the same store on PostgreSQL (JSONB values, the audit), and
sent to the tables through a Mosquitto with the parlour's ACLs: to the assigned table only,
to a table offline when it reconnects (retained), answered with the version it applied or
why it refused one; another table's account cannot forge them."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import aiomqtt
import pytest
from sqlalchemy import update

from controller.config import MqttSettings
from controller.hub.handlog_sync import HandlogSync
from controller.hub.service import HubIngest
from controller.mqtt import Topics, encode
from controller.mqtt.broker_acl import table_user
from controller.process.software import software_version
from controller.store import EventStore
from controller.store.house_rules import HouseAssignment, HouseRules
from controller.store.models import HOUSE_ASSIGNMENTS, HOUSE_RULESETS
from controller.table.house_choice import HouseChoice, RulesInForce
from tests.controller.hub.tables import PARLOUR
from tests.controller.mosquitto import Mosquitto
from tests.controller.mqtt_helpers import guarded, settings, until
from tests.controller.parlour_broker import parlour_broker, password

pytestmark = pytest.mark.timeout(240)


def test_the_hub_keeps_house_rulesets_assignments_and_their_audit(hub_store: EventStore) -> None:
    rules = HouseRules(hub_store)
    rules.save("本店兴国", "xingguo", {"win.deguo_bonus": 10}, "boss")
    rules.assign("t2", "本店兴国", "boss", from_next_hand=True)
    saved = rules.get("本店兴国")
    assert saved is not None and saved.options == {"win.deguo_bonus": 10}
    assigned = rules.assignment("t2")
    assert assigned is not None and assigned.from_next_hand and assigned.version == 1
    assert [e.action for e in rules.audit()] == ["assign", "save"]


BONUS = {"win.deguo_bonus": 10}


def _assignment(store: EventStore, table: str) -> HouseAssignment | None:
    return HouseRules(store).assignment(table)


def test_the_hub_sends_a_house_ruleset_to_its_table_only(
    mosquitto_factory: Callable[..., Mosquitto], hub_store: EventStore, tmp_path: Path
) -> None:
    users = ["hub", table_user("t1"), table_user("t2")]
    broker, _ws = parlour_broker(
        mosquitto_factory, tmp_path, parlour=PARLOUR, tables=["t1", "t2"], users=users
    )

    def mqtt(user: str) -> MqttSettings:
        return settings(broker.url, username=user, password=password(user))

    stores = {t: EventStore.open(f"sqlite:///{tmp_path / t / 'mjtable.db'}") for t in ("t1", "t2")}

    def sync(table: str) -> HandlogSync:
        topics = Topics(PARLOUR, table)
        return HandlogSync(stores[table], mqtt(table_user(table)), topics, resend_after=0.2)

    async def main() -> None:
        hub = HubIngest(hub_store, mqtt("hub"), parlour=PARLOUR)
        tasks = [asyncio.create_task(hub.run())]
        t1 = sync("t1")
        tasks.append(asyncio.create_task(t1.run()))
        await guarded(hub.connected.wait(), "the hub to connect")
        await guarded(t1.connected.wait(), "t1 to connect")
        rules = HouseRules(hub_store)
        rules.save("本店兴国", "xingguo", BONUS, "boss")
        rules.assign("t2", "本店兴国", "boss")  # t2 is offline meanwhile
        hub.house_wake.set()
        t2 = sync("t2")
        tasks.append(asyncio.create_task(t2.run()))  # … and reads it as it connects
        await until(lambda: _assignment(stores["t2"], "t2") is not None, "t2 to receive it")
        # t2's next session plays it (= the values the hub sent), and the hub hears so
        chosen = HouseChoice(stores["t2"], "t2", RulesInForce("xingguo")).for_session(None)
        assert (chosen.ruleset, chosen.options, chosen.name) == ("xingguo", BONUS, "本店兴国")
        await until(
            lambda: (a := rules.assignment("t2")) is not None and a.applied_version == 1,
            "the hub to hear that t2 applied version 1",
        )
        # every table answers with the software it runs
        await until(lambda: hub.software.get("t1") == software_version(), "t1's version")
        assert hub.software.get("t2") == software_version()
        # t1 was assigned nothing: its table.toml's rules
        assert HouseRules(stores["t1"]).all() == [] and _assignment(stores["t1"], "t1") is None

        # another table's account cannot put rules on t2's topic: the broker drops it
        forged = {
            "format": "mjtable.house_rules", "version": 1, "name": "本店兴国", "base": "xingguo",
            "options": {"win.deguo_bonus": 99}, "rules_version": 9, "from_next_hand": True,
            "by": "t1",
        }  # fmt: skip
        creds = {"username": table_user("t1"), "password": password(table_user("t1"))}
        async with aiomqtt.Client("127.0.0.1", broker.port, **creds) as forger:
            await forger.publish(
                f"mahjong/{PARLOUR}/t2/house_rules", encode(forged), qos=1, retain=True
            )
        rules.save("本店兴国", "xingguo", {"win.deguo_bonus": 8}, "boss")  # what t2 does get
        hub.house_wake.set()
        await until(
            lambda: (r := HouseRules(stores["t2"]).get("本店兴国")) is not None and r.version == 2,
            "t2 to receive version 2",
        )
        kept = HouseRules(stores["t2"]).get("本店兴国")
        assert kept is not None and kept.options == {"win.deguo_bonus": 8}
        assert all(
            e.new.get("options") != {"win.deguo_bonus": 99}
            for e in HouseRules(stores["t2"]).audit()
        )

        # a value t2 cannot validate (as from a newer hub): refused, its rules kept, the
        # hub's page shows why
        with hub_store.engine.begin() as c:
            c.execute(update(HOUSE_RULESETS).values(options={"win.deguo_bonus": -5}, version=3))
            c.execute(update(HOUSE_ASSIGNMENTS).values(version=3))
        hub.house_wake.set()
        await until(
            lambda: (
                (a := rules.assignment("t2")) is not None and "「德国奖分」" in (a.problem or "")
            ),
            "the hub to hear why t2 refused version 3",
        )
        still = HouseRules(stores["t2"]).get("本店兴国")
        assert still is not None and still.version == 2

        hub.stop()
        t1.stop()
        t2.stop()
        await guarded(asyncio.gather(*tasks), "the tasks to stop")

    try:
        asyncio.run(main())
    finally:
        for store in stores.values():
            store.close()
