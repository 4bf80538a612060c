"""The hub checks the dice of the hands it stored before it checked dice (their rows without
a verdict, as migration 0011 left them), on a real PostgreSQL: in bounded batches, with the
verdict each would have had on arrival, a tampered hand flagged, an intact one passed, the
owners' list showing the verdicts, nothing checked twice; and from the hub's start, beside
the ingest of new hands (a real Mosquitto)."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import select, update

from controller.hub.aliases import alias
from controller.hub.dice_backfill import check_unchecked
from controller.hub.ingest import store_handlogs
from controller.store import EventStore
from controller.store.models import EVENTS, HANDS
from tests.controller.dice_hands import committed_hands
from tests.controller.hub.hands import played_hands, table_handlogs
from tests.controller.hub.owners import dice_flags, owners_api
from tests.controller.hub.tables import Table, start_hub, stop_hub
from tests.controller.mosquitto import Mosquitto
from tests.controller.mqtt_helpers import guarded, until

pytestmark = pytest.mark.timeout(240)

Verdicts = dict[str, tuple[str | None, str | None]]


def verdicts(store: EventStore) -> Verdicts:
    with store.engine.connect() as c:
        rows = c.execute(select(HANDS.c.id, HANDS.c.dice_check, HANDS.c.dice_problem))
        return {hid: (check, problem) for hid, check, problem in rows}


def forget_verdicts(store: EventStore) -> None:
    """The rows as a hub before the dice check stored them."""
    with store.engine.begin() as c:
        c.execute(update(HANDS).values(dice_check=None, dice_problem=None))


def tamper_first_roll(store: EventStore, hand_id: str) -> None:
    """The stored log's first roll changed (a face one higher, or lower on a 6)."""
    with store.engine.begin() as c:
        seq, payload = c.execute(
            select(EVENTS.c.seq, EVENTS.c.payload)
            .where(EVENTS.c.hand_id == hand_id, EVENTS.c.type == "dice_rolled")
            .order_by(EVENTS.c.seq)
            .limit(1)
        ).one()
        changed = copy.deepcopy(payload)
        changed["a"] = changed["a"] + 1 if changed["a"] < 6 else 5
        c.execute(
            update(EVENTS)
            .where(EVENTS.c.hand_id == hand_id, EVENTS.c.seq == seq)
            .values(payload=changed)
        )


def store_old_hands(hub: EventStore) -> tuple[dict[str, Any], Verdicts]:
    """Table t1's hands (its second rigged, its fifth from before commitments) and table
    t2's, whose session id t1 holds (stored under t2's alias); their verdicts on arrival."""
    t1 = committed_hands(4, seed=21, table="t1", session="s-dice", rigged=frozenset({2}))
    t2 = committed_hands(1, seed=22, table="t2", session="s-dice")
    logs = table_handlogs([*t1, *played_hands(1, seed=4)])
    logs += table_handlogs(t2, table="t2")
    assert len(store_handlogs(hub.engine, logs).stored) == 6
    by = {f"{log.table}#{log.hand_no}": log.hand_id for log in logs}
    return by, verdicts(hub)


def test_stored_hands_without_a_verdict_are_checked_in_batches(hub_store: EventStore) -> None:
    hub = hub_store
    by, on_arrival = store_old_hands(hub)
    assert on_arrival[by["t1#3"]] == ("ok", None)
    tamper_first_roll(hub, by["t1#3"])
    forget_verdicts(hub)

    assert [check_unchecked(hub.engine, limit=4) for _ in range(3)] == [4, 2, 0]

    after = verdicts(hub)
    assert all(check is not None for check, _ in after.values())
    # an intact hand passes, as on arrival
    for hand in ("t1#1", "t1#4", "t2#1"):
        assert after[by[hand]] == on_arrival[by[hand]] == ("ok", None), hand
    # (t2's session is stored under its alias: checked against the one it sent)
    with hub.engine.connect() as c:
        sid = c.scalar(select(HANDS.c.session_id).where(HANDS.c.id == by["t2#1"]))
    assert sid == alias("p1", "t2", "s-dice")
    # a hand that rolled other dice than it committed to, flagged as on arrival
    rigged = after[by["t1#2"]]
    assert rigged == on_arrival[by["t1#2"]] and rigged[0] == "failed"
    # a log changed after it was stored: flagged, naming the roll
    check, problem = after[by["t1#3"]]
    assert check == "failed" and problem is not None
    assert problem.startswith("roll 0 (break, seat ") and "the seed gives" in problem
    assert after[by["t1#5"]] == ("unverified", None)  # no commitment: not passed as checked

    # idempotent: nothing is left to check, nothing changes
    assert check_unchecked(hub.engine) == 0
    assert verdicts(hub) == after
    # and a verdict given meanwhile is kept (a hand re-sent longer is checked on arrival)
    with hub.engine.begin() as c:
        c.execute(update(HANDS).where(HANDS.c.id == by["t1#1"]).values(dice_problem="kept"))
    assert check_unchecked(hub.engine) == 0
    assert verdicts(hub)[by["t1#1"]] == ("ok", "kept")

    # the owners' hand list shows them like any other hand's
    with owners_api(hub) as client:
        flags = dice_flags(client, "t1")
        assert flags[3] == after[by["t1#3"]] and flags[4] == ("ok", None)
        # and its replay checks the dice as the hub did: t2's against the session it sent
        for hand, verdict in (("t2#1", "ok"), ("t1#1", "ok"), ("t1#2", "failed")):
            replayed = client.get(f"/api/v1/hands/{by[hand]}/replay")
            assert replayed.status_code == 200, (hand, replayed.text)
            assert replayed.json()["dice"]["verdict"] == verdict, (hand, replayed.json()["dice"])


@pytest.mark.timeout(300)
def test_the_hub_checks_them_from_its_start_beside_the_ingest(
    mosquitto: Mosquitto, hub_store: EventStore, make_table: Callable[..., Table]
) -> None:
    hub = hub_store
    _, on_arrival = store_old_hands(hub)
    forget_verdicts(hub)
    table = make_table("t3", mosquitto.url)

    async def main() -> int:
        ingest, task = start_hub(hub, mosquitto.url)
        ingest.dice_batch = 2  # three batches, among the new hands' writes
        await guarded(ingest.connected.wait(), "the hub to subscribe")
        table.start()
        table.play(3, seed=5)
        await until(table.all_acked, "t3's hands acknowledged")
        await until(lambda: ingest.counters.dice_checked == 6, "the stored hands checked")
        await table.stop()
        await stop_hub(ingest, task)
        return ingest.counters.dice_checked

    assert asyncio.run(main()) == 6
    after = verdicts(hub)
    assert {hid: after[hid] for hid in on_arrival} == on_arrival
    # t3's hands were checked on arrival (no commitment in these bots' logs)
    assert [after[h] for h in table.hands] == [("unverified", None)] * 3
