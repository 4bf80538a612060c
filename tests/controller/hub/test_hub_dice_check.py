"""The hub checks every hand's dice against its commitment as the hand arrives, on a real
PostgreSQL: a hand whose rolls do not come from its committed seed is flagged in its row,
and the owners' hand list (the hub's web API) shows the flag and why."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from controller.hub.ingest import store_handlogs
from controller.store import EventStore
from tests.controller.dice_hands import committed_hands
from tests.controller.hub.hands import played_hands, table_handlogs
from tests.controller.hub.owners import dice_flags, owners_api

pytestmark = pytest.mark.timeout(180)


@pytest.fixture
def hub(pg_url: str) -> Iterator[EventStore]:
    store = EventStore.open(pg_url)
    yield store
    store.close()


def test_the_hub_flags_a_hand_whose_rolls_do_not_match_its_commitment(hub: EventStore) -> None:
    hands = committed_hands(3, seed=11, table="t1", session="s-dice", rigged=frozenset({2}))
    # as table t1 sends them: its committed hands, then a hand from before commitments
    logs = table_handlogs([*hands, *played_hands(1, seed=3)])
    assert store_handlogs(hub.engine, logs).stored == [log.hand_id for log in logs]

    by_no = {h.hand_no: h for h in hub.list_hands(limit=10)}
    assert (by_no[1].dice_check, by_no[1].dice_problem) == ("ok", None)
    assert by_no[3].dice_check == "ok"
    rigged = by_no[2]
    assert rigged.dice_check == "failed"
    assert rigged.dice_problem is not None and "roll 0 (break" in rigged.dice_problem
    assert "the seed gives" in rigged.dice_problem
    assert by_no[4].dice_check == "unverified"  # no commitment: not passed as checked

    # the owners' hand list on the hub shows the flag and the reason
    with owners_api(hub) as client:
        flags = dice_flags(client, "t1")
        assert flags[2][0] == "failed" and "the seed gives" in flags[2][1]
        assert flags[1] == ("ok", None)
        replay = client.get(f"/api/v1/hands/{rigged.id}/replay").json()
        assert replay["dice"]["verdict"] == "failed" and replay["dice"]["problems"]


def test_the_hub_flags_a_revealed_seed_that_does_not_match(hub: EventStore) -> None:
    hands = committed_hands(1, seed=12, table="t1", session="s-dice")
    events = [dict(e) for e in hands[0]]
    for e in events:
        if e["type"] in ("dice_committed", "dice_seed_revealed"):
            e["seed"] = "0" * 64
    (log,) = table_handlogs([events])
    store_handlogs(hub.engine, [log])
    (record,) = hub.list_hands(limit=1)
    assert record.dice_check == "failed"
    assert (
        record.dice_problem is not None and "does not match the commitment" in record.dice_problem
    )
